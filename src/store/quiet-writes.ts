/**
 * SQLite: the service's writes outside the change log mark themselves, so that other servers on
 * the same file can tell them from writes made with plain SQL.
 *
 * A server's change feed (sqlite-feed.ts) sees that another connection committed (`PRAGMA
 * data_version` moved); when the log has no new rows, it cannot know what changed, and drops every
 * calendar's kept results and moves every calendar's revision (`~n`). Much of what servers write
 * is outside the log and behind no answer they keep: the login throttle's and the quotas' counts,
 * post locks, singleton jobs' leases, sessions being used, deliveries of webhooks, mail and federation. Each such commit
 * of one server used to reset every other server on the file: their kept results were built again
 * and, worse, their revisions parted (`L2~1` on one, `L2` on the other), so an `If-None-Match` or a
 * sync token from one was not current on the other.
 *
 * So every connection the service opens has TEMP triggers (its own, not in the file) on the
 * tables of `QUIET_TABLES` that count each row it changes there in `change_counter` row 2, and in
 * memory (`own`). A feed that finds the log unchanged but row 2 moved by more than its own
 * connection moved it knows another server wrote state of this kind, and keeps what it has. A
 * connection without these triggers (the `sqlite3` shell, another program) moves nothing there:
 * its commit resets as before. A plain-SQL commit that lands between the same two looks as a
 * marked one (or as a logged one, as before) goes unseen: after changing data with plain SQL, run
 * `events-calendar refresh`, as on PostgreSQL.
 *
 * @example
 *   const quiet = quietWrites(database); // a better-sqlite3 connection
 *   quiet.install();                     // after opening, and again after migrating
 *   quiet.own();                         // rows this connection marked so far
 */
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Tables whose rows no kept result, revision or replayed answer is built from: the service's
 * state of the moment (limits, locks, sessions, deliveries), read afresh by whoever needs it.
 * Their meaningful changes that do show are logged besides (a session ended, a password revoked:
 * `credentials` rows). A table is added here only when no list, page, feed or public answer reads
 * it; every other table's writes outside the log reset the other servers' feeds, to be safe.
 */
export const QUIET_TABLES = [
  // the login throttle and the quotas' counts (shared-limits.ts, quotas.ts)
  'login_failures',
  'rate_limit_grants',
  'submission_quota',
  'submission_pow_used',
  // credentials in use (their last use, a code spent); their changes that matter are logged
  'sessions',
  'app_passwords',
  'user_tokens',
  'user_totp',
  // who has an event open in the admin app, read live by its editors' list
  'edit_locks',
  // deliveries and their queues
  'webhook_deliveries',
  'webhook_attempts',
  'mail_outbox',
  'mail_cursors',
  'federation_queue',
  'federation_deliveries',
  'federation_received',
  'federation_kv',
  // an import's run and progress (the admin app reads it afresh; what it writes is logged)
  'imports',
  // singleton jobs' leases (job-locks.ts)
  'job_locks',
  // webhook endpoints and their cursors (the delivery job moves them): no answer is kept from them
  'webhook_endpoints',
  // a calendar's follows: the mirroring job's list (what it copies is logged, and moves revisions)
  'calendar_follows',
] as const;

/** The row of `change_counter` that counts marked rows (row 1 is the log's head). */
export const QUIET_ROW = 2;

/** The count of marked rows, for a prepared statement. */
export const QUIET_SQL = `select "value" from "change_counter" where "id" = ${QUIET_ROW}`;

export interface QuietWrites {
  /** Add the triggers to every table of `QUIET_TABLES` that exists and lacks them (a migration that made a table anew dropped them). */
  install(): void;
  /** Rows this connection has marked since it opened, committed or not. */
  own(): number;
}

/** The marking of `database`'s writes to `QUIET_TABLES` (SQLite; see the file's comment). */
export function quietWrites(database: BetterSqlite3.Database): QuietWrites {
  let own = 0;
  // Called by the triggers, once per row: what this connection marked, apart from others' marks.
  database.function('calendar_quiet_mark', { deterministic: false }, () => {
    own++;
    return 1;
  });
  const existing = database.prepare(`select "name" from "sqlite_master" where "type" = 'table' and "name" in (${QUIET_TABLES.map(() => '?').join(', ')})`).pluck();
  return {
    install() {
      // Temporary triggers are this connection's schema: DDL that is best outside a request's
      // transaction. Opening and migrating run outside any.
      if (database.inTransaction) return;
      const tables = existing.all(...QUIET_TABLES) as string[];
      for (const table of tables) {
        for (const op of ['insert', 'update', 'delete'] as const) {
          database.exec(
            `create temp trigger if not exists "calendar_quiet_${table}_${op}" after ${op} on main."${table}" begin update main."change_counter" set "value" = "value" + calendar_quiet_mark() where "id" = ${QUIET_ROW}; end`,
          );
        }
      }
    },
    own: () => own,
  };
}
