/**
 * The change feed of a SQLite database (`ChangeFeed`, change-feed.ts): it reads the log on the
 * server's connection, synchronously. `sync()` first compares `PRAGMA data_version` and
 * `total_changes()` with the last look (two cached statements, no query through Kysely):
 * unchanged, the kept results are current. Otherwise it reads the log's counter, its rows and the
 * events' states in one read transaction, so that they are one snapshot even while another
 * process (a second instance, a CLI command) commits, and remembers the data version of that
 * snapshot. A commit of another server that wrote only state outside the log (marked by its
 * triggers, quiet-writes.ts) leaves the kept results as they are; any other move of the data
 * version without log rows resets them, once no commit has explained it for `UNEXPLAINED_MS`.
 *
 * @example
 *   const feed = createSqliteFeed(database); // a better-sqlite3 connection
 *   await feed.sync();
 */
import { listingStateOf, type ListingState } from './listing-states.js';
import { CHANGES_SINCE_SQL, HEAD_SQL, toChangeRow, type RawChangeRow } from './change-log.js';
import { POSITIONS_SQL } from './calendar-positions.js';
import { buildBatch, type BatchParts, type ChangeBatch, type EventText } from './change-batches.js';
import { MAX_ROWS, calendarViews, feedCore, textOf, type ChangeFeed, type StateRow } from './change-feed.js';
import { QUIET_SQL } from './quiet-writes.js';

/** How long a move of the data version with nothing to show for it waits to be explained before it resets (ms). */
export const UNEXPLAINED_MS = 500;

/**
 * What a SQLite feed at `from` finds in the log (in the caller's read transaction): the counter,
 * and, when it moved, the batch of rows after `from` with their events' states; when it did not
 * but another connection committed (`othersCommitted`) and `othersMarked()` says it was not
 * (only) the service's state outside the log: plain SQL, an older version; then a reset, since
 * what changed is unknown. No batch while the feed has not started (`from < 0`).
 */
function readSince(
  st: { counter: { get(): unknown }; since: { all(...params: unknown[]): unknown[] }; states: { all(...params: unknown[]): unknown[] } },
  from: number,
  othersCommitted: boolean,
  othersMarked: () => boolean,
): { value: number; batch?: ChangeBatch; parts?: BatchParts; unlogged?: 'marked' | 'unknown' } {
  const value = Number(st.counter.get() ?? 0);
  if (from < 0) return { value };
  if (value === from) {
    if (!othersCommitted) return { value };
    return othersMarked() ? { value, unlogged: 'marked' } : { value, batch: buildBatch(value, value, [], new Map(), new Map(), true), unlogged: 'unknown' };
  }
  const raw = st.since.all(from, value, MAX_ROWS + 1) as RawChangeRow[];
  const truncated = raw.length > MAX_ROWS || value < from;
  const rows = truncated ? [] : raw.map(toChangeRow);
  const ids = [...new Set(rows.filter((r) => r.type === 'event').map((r) => r.id))];
  const states = new Map<number, ListingState>();
  const texts = new Map<number, EventText | undefined>();
  for (let i = 0; i < ids.length; i += 500) {
    const found = st.states.all(JSON.stringify(ids.slice(i, i + 500))) as Array<StateRow & { terms: string; organizers: string }>;
    for (const r of found) {
      states.set(Number(r.id), listingStateOf(r, (JSON.parse(r.terms) as number[]).map(Number), (JSON.parse(r.organizers) as number[]).map(Number)));
      texts.set(Number(r.id), textOf(r));
    }
  }
  return { value, batch: buildBatch(from, value, rows, states, texts, truncated), parts: { rows, states, texts } };
}

/**
 * The feed of a SQLite database, reading on its connection synchronously. `inTransaction` tells
 * whether a transaction of another request is open on that connection: the feed then keeps its
 * number (uncommitted rows must not be read as changes); that request's commit is seen next time.
 * `ownQuiet` counts the rows this connection marked as written outside the log (quiet-writes.ts;
 * without it, every commit of another connection without log rows resets); `unexplainedMs`, how
 * long a move of the data version may wait for its commit (`UNEXPLAINED_MS`).
 */
export function createSqliteFeed(
  connection: {
    prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[]; run(...params: unknown[]): unknown; pluck(on?: boolean): unknown };
    readonly inTransaction: boolean;
  },
  ownQuiet?: () => number,
  { unexplainedMs = UNEXPLAINED_MS }: { unexplainedMs?: number } = {},
): ChangeFeed {
  const core = feedCore();
  type Stmt = { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[]; run(...params: unknown[]): unknown };
  let statements: { dataVersion: Stmt; totalChanges: Stmt; counter: Stmt; quiet: Stmt; since: Stmt; states: Stmt; positions: Stmt; begin: Stmt; end: Stmt; readVersion: Stmt } | undefined;
  let lastDataVersion = -1;
  let lastTotalChanges = -1;
  // The marked rows' count (`change_counter` row 2) when it was last read, and how many of them
  // were this connection's then: what moved beyond this connection's own marks is other servers'.
  let lastQuiet = -1;
  let lastOwnQuiet = 0;
  // Whether other servers marked rows since the count was last read (in the caller's read
  // transaction). Read only when the log did not move though another connection committed, and at
  // the start: the count's moves and this connection's are compared over the same span, however
  // long. Without `change_counter` row 2 (a database not migrated yet) or marking, never.
  const othersMarked = (st: { quiet: Stmt }): boolean => {
    if (!ownQuiet) return false;
    const own = ownQuiet();
    const row = st.quiet.get();
    const quiet = row === undefined ? -1 : Number(row);
    const marked = lastQuiet >= 0 && quiet >= 0 && quiet - lastQuiet > own - lastOwnQuiet;
    lastQuiet = quiet;
    lastOwnQuiet = own;
    return marked;
  };
  const unlogged = { marked: 0, unknown: 0, explainedLater: 0 };
  // Since when (ms) the data version has moved with nothing in the log or the marks to show for
  // it, else undefined. A writer that starts the write-ahead log over (after a checkpoint copied it
  // all) rewrites the log's header when it writes its first page, before it commits: a look in
  // between sees the version move, and the read finds nothing yet (measured: every 2-3 s under
  // creates on another server). Its commit, a moment later, explains it; a commit of plain SQL
  // never is, and resets once `unexplainedMs` have passed, at the first look after that.
  let unexplainedSince: number | undefined;
  // Whether other connections' commits were looked for since the last batch of requests arrived
  // (`expectChanges`) and in this turn of the event loop. A commit by another process that was
  // acknowledged before a request was sent is seen by that request; one that lands while requests
  // are being answered is seen by the next batch or turn (as if it had committed a moment later).
  let othersChecked = false;
  let resetScheduled = false;
  let looks = 0;
  // Whether this connection committed since the last sync (`expectOwnCommit`, from the change
  // log's commit hook): then `total_changes()` is read again. Otherwise a sync in a turn that has
  // looked already costs no call into SQLite at all.
  let ownCommitted = true;
  const resetOthersChecked = () => {
    othersChecked = false;
    resetScheduled = false;
  };
  const lookAgain = () => {
    othersChecked = false;
  };
  const ownCommit = () => {
    ownCommitted = true;
  };
  const prepare = () => {
    const dataVersion = connection.prepare('pragma data_version') as unknown as { pluck(): Stmt };
    const totalChanges = connection.prepare('select total_changes()') as unknown as { pluck(): Stmt };
    return {
      dataVersion: dataVersion.pluck(),
      totalChanges: totalChanges.pluck(),
      counter: (connection.prepare(HEAD_SQL) as unknown as { pluck(): Stmt }).pluck(),
      quiet: (connection.prepare(QUIET_SQL) as unknown as { pluck(): Stmt }).pluck(),
      since: connection.prepare(CHANGES_SINCE_SQL) as Stmt,
      positions: connection.prepare(POSITIONS_SQL) as Stmt,
      begin: connection.prepare('begin') as Stmt,
      end: connection.prepare('commit') as Stmt,
      // `PRAGMA data_version` again, inside the read transaction: the version of what it read.
      readVersion: (connection.prepare('select "data_version" from pragma_data_version()') as unknown as { pluck(): Stmt }).pluck(),
      states: connection.prepare(
        `select p."id", p."status", p."author_id", p."parent_id", p."date_gmt", e."start_local", e."end_local", e."hide_from_listings", e."featured", e."venue_id", v."geo_lat" as "venue_lat", v."geo_lng" as "venue_lng", p."password" <> '' as "protected", p."title", p."excerpt", p."content",
           (select json_group_array("term_id") from "event_terms" t where t."event_id" = p."id") as "terms",
           (select json_group_array("organizer_id") from (select "organizer_id" from "event_organizers" o where o."event_id" = p."id" order by o."position")) as "organizers"
         from "posts" p inner join "events" e on e."post_id" = p."id" left join "venues" v on v."post_id" = e."venue_id" where p."id" in (select "value" from json_each(?))`,
      ) as Stmt,
    };
  };
  const syncNow = (): number => {
    if (othersChecked && !ownCommitted && core.seq() >= 0) return core.seq();
    statements ??= prepare();
    const st = statements;
    if (connection.inTransaction) return core.seq();
    ownCommitted = false;
    const totalChanges = Number(st.totalChanges.get());
    if (othersChecked && totalChanges === lastTotalChanges) return core.seq();
    let dataVersion = lastDataVersion;
    if (!othersChecked) {
      dataVersion = Number(st.dataVersion.get());
      looks++;
      othersChecked = true;
      if (!resetScheduled) {
        resetScheduled = true;
        setImmediate(resetOthersChecked);
      }
    }
    if (dataVersion === lastDataVersion && totalChanges === lastTotalChanges) return core.seq();
    // The counter, its rows and their events' states in one read transaction: each statement on
    // its own would see the commits of other processes landed in between, and a state newer than
    // the batch's last row would be applied twice (once here, once with the later row's batch).
    st.begin.run();
    let read: { value: number; batch?: ChangeBatch; parts?: BatchParts; unlogged?: 'marked' | 'unknown' | 'unexplained' };
    try {
      const othersCommitted = dataVersion !== lastDataVersion;
      if (core.seq() < 0) othersMarked(st);
      read = readSince(st, core.seq(), othersCommitted, () => othersMarked(st));
      if (read.unlogged === 'unknown') {
        const now = Date.now();
        unexplainedSince ??= now;
        if (now - unexplainedSince < unexplainedMs) read = { value: read.value, unlogged: 'unexplained' };
        else unexplainedSince = undefined;
      } else if (othersCommitted && unexplainedSince !== undefined && (read.batch || read.unlogged === 'marked')) {
        unexplainedSince = undefined;
        unlogged.explainedLater++;
      }
      if (read.unlogged === 'marked' || read.unlogged === 'unknown') unlogged[read.unlogged]++;
      // The version of the snapshot just read: a commit that landed between the look above and
      // this read is in it, and must not pass for a commit without log rows at the next look
      // (a reset of every calendar's kept results).
      dataVersion = Number(st.readVersion.get());
    } finally {
      st.end.run();
    }
    if (core.seq() < 0) core.start(read.value);
    else if (read.batch) core.apply(read.batch, read.parts);
    // While the version's move is unexplained, the next look reads again.
    if (unexplainedSince === undefined) lastDataVersion = dataVersion;
    lastTotalChanges = totalChanges;
    return core.seq();
  };
  // A calendar's position is read at once on the connection, at or below the feed's number (a
  // transaction open on it writes rows above that number, which are not read).
  const know = (calendar: number) => {
    if (core.seq() < 0 && syncNow() < 0) return;
    statements ??= prepare();
    const at = core.positions.lookupAt();
    const r = statements.positions.get(calendar, at.seq, at.seq) as { own: number | null; people: number | null } | undefined;
    core.positions.learn(calendar, Number(r?.own ?? 0), Number(r?.people ?? 0), at);
  };
  const feed: ChangeFeed = {
    seq: () => (core.seq() < 0 ? syncNow() : core.seq()),
    ...calendarViews(core, know),
    sync: async () => syncNow(),
    expectChanges: lookAgain,
    // This connection's own commits show in `total_changes()`: read it again at the next sync
    // (others' commits are looked for once per batch of requests or turn, as before).
    expectOwnCommit: ownCommit,
    subscribe: core.subscribe,
    forgetCalendar: core.forgetCalendar,
    transitionsBetween: core.transitionsBetween,
    kept: core.kept,
    looks: () => looks,
    unlogged: () => ({ ...unlogged }),
  };
  return feed;
}
