/**
 * What a database error means for a caller: the database is out of reach, busy, full or
 * read-only, or none of these (a bug or a constraint, answered as before). Errors come from `pg`
 * (SQLSTATE codes, Node socket errors, its own "Connection terminated" errors), from the pool
 * (connection timeout) and from better-sqlite3 (`SQLITE_*` codes).
 *
 * @example
 *   storeFault(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })) // 'busy'
 *   storeFault(new Error('Connection terminated unexpectedly'))                         // 'unavailable'
 */

export type StoreFault = 'unavailable' | 'busy' | 'full' | 'read-only';

/** Socket-level error codes of a connection that could not be made or was lost. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
]);

/** `pg` and pg-pool's own errors for a connection that is gone or could not be made in time. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout", plain "Connection terminated"
  /^timeout exceeded when trying to connect/,
  /is not queryable$/, // "Client has encountered a connection error and is not queryable", "Client was closed …"
  /^Cannot use a pool after calling end on the pool/,
  /^driver has already been destroyed/, // Kysely, during shutdown
  /^The database connection is not open/, // better-sqlite3, after close
];

/** SQLSTATEs (PostgreSQL) of a server that is going away, starting or refusing connections. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05', '53300', '58030']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : '';
}

/** The fault an error stands for, or undefined for any other error. */
export function storeFault(err: unknown): StoreFault | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const code = codeOf(err);
  if (code !== undefined) {
    if (code.startsWith('SQLITE_')) {
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
      if (code === 'SQLITE_FULL') return 'full';
      if (code.startsWith('SQLITE_READONLY')) return 'read-only';
      if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) return 'unavailable';
      return undefined;
    }
    if (SOCKET_CODES.has(code)) return 'unavailable';
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code)) return 'unavailable';
      if (code === '53100') return 'full'; // disk_full
      if (code === '25006') return 'read-only'; // read_only_sql_transaction: a standby after a failover
      return undefined;
    }
  }
  const message = messageOf(err);
  if (CONNECTION_MESSAGES.some((re) => re.test(message))) return 'unavailable';
  // Node's "happy eyeballs" reports every failed address at once.
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => storeFault(e) === 'unavailable')) return 'unavailable';
  return undefined;
}

/**
 * True when a query failed because its established connection was lost (killed by the server,
 * reset, closed): the same statement may succeed on another connection. Failures to connect are
 * not included: a new attempt would only fail again.
 */
export function isLostConnection(err: unknown): boolean {
  const code = codeOf(err);
  if (code === '57P01' || code === '57P02' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED') return true;
  const message = messageOf(err);
  return message === 'Connection terminated unexpectedly' || /is not queryable$/.test(message);
}
