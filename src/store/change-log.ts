/**
 * Reading the change log (migration 005; written by `change-notes.ts`): the one place that reads
 * `changes`. Every reader of the log is a *consumer*: a cursor (the sequence number it has
 * handled, kept wherever it must survive: in memory for caches, in a row for webhook endpoints)
 * plus a handler for the rows after it. A consumer reads with {@link ChangeLog.read} (ordered rows,
 * whole writes only) and is woken by {@link ChangeLog.subscribe}: soon after each local commit,
 * and, for writes of other instances (a second server on the same PostgreSQL, a CLI command on the
 * same SQLite file), on a poll.
 *
 * The readers of today:
 * - the change feed (`change-feed.ts`): the in-process caches' consumer, on the read path of every
 *   request. For speed it reads with this file's SQL inside its own statements: on SQLite
 *   `CHANGES_SINCE_SQL` and `HEAD_SQL`, prepared on the connection and run synchronously; on
 *   PostgreSQL `changeRowsCte`, in the same statement as the events' states. Its cursor is in
 *   memory (`feed.seq()`); it is woken per batch of requests (`expectChanges`) and by `onCommit`;
 * - versions (`versions.ts`: ETags, `Last-Modified`): point lookups, `newestSeqOf` and `timeOf`;
 * - sync tokens (`domain/sync.ts`): `readChanges` (what `read` runs) of the window after a token,
 *   on the handle it is given;
 * - webhooks (`webhooks/service.ts`): one consumer per endpoint, its cursor in `webhook_endpoints`,
 *   moved in the transaction that stores its deliveries (`runConsumer`).
 *
 * @example
 *   // A consumer: a cursor and a handler (a federation outbox, a CalDAV sync-collection).
 *   const outbox: ChangeConsumer = {
 *     limit: 500,
 *     cursor: async () => (await readOutboxCursor(db)) ?? (await store.changes.head()),
 *     handle: async (rows, { from, through }) => {
 *       // Store what `rows` mean and move the cursor from `from` to `through` in one transaction
 *       // (compare-and-set on `from`, so that two instances never handle the same rows twice).
 *     },
 *   };
 *   // Woken after local commits and polled for other instances' (run one step at a time: a wake
 *   // that comes while a step runs should run another after it, as the webhook worker does).
 *   const stop = store.changes.subscribe(() => void runConsumer(store.changes, outbox), { pollMs: 1000 });
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './schema.js';
import type { ChangeAction, EventChangeDetail, RecordChangeDetail, RecordType } from './listing-states.js';
import { acrossCalendars, calendarFilter } from './calendar-scope.js';

/** A change as read back from the log: one row of `changes`, in (seq, idx) order. */
export interface ChangeRow {
  seq: number;
  /** its place among the rows of its write (one write: one `seq`, rows 0, 1, …) */
  idx: number;
  type: RecordType;
  id: number;
  action: ChangeAction;
  /** the logged detail (listing state before, a term's count move, …), parsed; null when none */
  detail: (EventChangeDetail & RecordChangeDetail) | null;
  /** the detail as logged (JSON text), for consumers that keep it as it is */
  detailText: string | null;
  /** when the write was committed (UTC, `YYYY-MM-DD HH:MM:SS`) */
  created_gmt: string;
  /** the calendar the write was of (migration 031) */
  calendar: number;
}

/** A raw log row (numbers may arrive as strings from PostgreSQL). */
export interface RawChangeRow {
  seq: number | string;
  idx?: number | string;
  record_type: string;
  record_id: number | string;
  action: string;
  detail: string | null;
  created_gmt?: string;
  calendar_id?: number | string;
}

/** A raw log row as a `ChangeRow`. */
export function toChangeRow(r: RawChangeRow): ChangeRow {
  return {
    seq: Number(r.seq),
    idx: Number(r.idx ?? 0),
    type: r.record_type as RecordType,
    id: Number(r.record_id),
    action: r.action as ChangeAction,
    detail: r.detail ? (JSON.parse(r.detail) as EventChangeDetail & RecordChangeDetail) : null,
    detailText: r.detail,
    created_gmt: r.created_gmt ?? '',
    calendar: Number(r.calendar_id ?? 1),
  };
}

/** What one read returns: rows after the cursor, and how far they reach. */
export interface ChangeRead {
  /** the rows in (from, through], ordered by (seq, idx): whole writes only */
  rows: ChangeRow[];
  /** the last sequence number read in full (`to` when everything up to it was read) */
  through: number;
}

const COLUMNS = ['seq', 'idx', 'record_type', 'record_id', 'action', 'detail', 'created_gmt', 'calendar_id'] as const;

/** The sequence number of the last committed write, read on `db`. */
export async function headOf(db: Executor): Promise<number> {
  const r = await sql<{ value: number | string }>`select "value" from "change_counter" where "id" = 1`.execute(db);
  return Number(r.rows[0]?.value ?? 0);
}

/** When the newest write of any calendar was logged (`created_gmt`), or undefined for an empty log (one look across calendars, by the log's key). */
export async function lastWriteGmt(db: Executor): Promise<string | undefined> {
  const row = await acrossCalendars(() => db.selectFrom('changes').select('created_gmt').orderBy('seq', 'desc').orderBy('idx', 'desc').limit(1).executeTakeFirst());
  return row?.created_gmt;
}

/**
 * The log rows after `from` up to `to`, at most `limit` of them and whole writes only (a write's
 * rows go together): `through` is the last sequence number read in full (`to` when everything
 * was). A single write with more rows than `limit` is read whole, alone.
 *
 * @example await readChanges(db, 1043, 1990, 1000) // { rows: [… 1000 rows at most], through: 1512 }
 */
export async function readChanges(db: Executor, from: number, to: number, limit: number): Promise<ChangeRead> {
  if (to <= from) return { rows: [], through: from };
  const rows = await db
    .selectFrom('changes')
    .select(COLUMNS)
    .where('seq', '>', from)
    .where('seq', '<=', to)
    .orderBy('seq')
    .orderBy('idx')
    .limit(limit + 1)
    .execute();
  if (rows.length <= limit) return { rows: rows.map(toChangeRow), through: to };
  const cut = Number(rows[limit]!.seq);
  const whole = rows.filter((r) => Number(r.seq) < cut);
  if (whole.length) return { rows: whole.map(toChangeRow), through: cut - 1 };
  const alone = await db.selectFrom('changes').select(COLUMNS).where('seq', '=', cut).orderBy('idx').execute();
  return { rows: alone.map(toChangeRow), through: cut };
}

/** The SQL of the rows after a number up to another (`?` parameters: from, to, limit), for a prepared statement. */
export const CHANGES_SINCE_SQL = 'select "seq", "idx", "record_type", "record_id", "action", "detail", "calendar_id" from "changes" where "seq" > ? and "seq" <= ? order by "seq", "idx" limit ?';

/** The SQL of the log's head, for a prepared statement. */
export const HEAD_SQL = 'select "value" from "change_counter" where "id" = 1';

/**
 * The rows after `from` up to the head as one statement's CTEs (PostgreSQL): `"c"` holds the head
 * (`value`), `"ch"` the rows (at most `limit`), for a statement that reads more in the same
 * snapshot (the change feed's look reads the events' states with them).
 */
export function changeRowsCte(from: number, limit: number): RawBuilder<unknown> {
  return sql`"c" as (select "value" from "change_counter" where "id" = 1),
  "ch" as (
    select "seq", "idx", "record_type", "record_id", "action", "detail", "calendar_id" from "changes"
    where "seq" > ${from}::bigint and "seq" <= (select "value" from "c")
    order by "seq", "idx" limit ${limit}::int
  )`;
}

/**
 * The newest sequence number logged for any of these records, or for a bulk load (`all`),
 * whichever is later (0: none): one index lookup each (migration 007's index on
 * `changes (record_type, record_id, seq)`).
 */
export async function newestSeqOf(db: Executor, records: ReadonlyArray<readonly [string, number]>): Promise<number> {
  const parts = records.map(([t, i]) => sql`select max("seq") as "s" from "changes" where "record_type" = ${t} and "record_id" = ${i}${calendarFilter('changes')}`);
  parts.push(sql`select max("seq") as "s" from "changes" where "record_type" in ('all', 'settings')${calendarFilter('changes')}`);
  const r = await sql<{ s: number | string | null }>`select max("s") as "s" from (${sql.join(parts, sql` union all `)}) as "v"`.execute(db);
  return Number(r.rows[0]?.s ?? 0);
}

/** When the change with this sequence number was committed (undefined: not in the log). */
export async function timeOf(db: Executor, seq: number): Promise<string | undefined> {
  if (seq <= 0) return undefined;
  const row = await db.selectFrom('changes').select('created_gmt').where('seq', '=', seq).limit(1).executeTakeFirst();
  return row?.created_gmt;
}

/** A reader of the log: where it stands, and what it does with the rows after. */
export interface ChangeConsumer {
  /** Rows handed over at most per call of `handle` (whole writes; a larger write comes alone). */
  limit: number;
  /** The sequence number the consumer has handled (read where it keeps it). */
  cursor(): number | Promise<number>;
  /**
   * Handle the rows in (from, through] and move the cursor to `through` (a consumer that keeps its
   * cursor in the database does both in one transaction, with a compare-and-set on `from`).
   */
  handle(rows: ChangeRow[], range: { from: number; through: number }): Promise<void>;
}

/**
 * One step of a consumer: read the rows after its cursor (up to `to`, by default the head) and
 * hand them over. Answers false when there was nothing to read.
 */
export async function runConsumer(log: Pick<ChangeLog, 'read' | 'head'>, consumer: ChangeConsumer, to?: number): Promise<boolean> {
  const from = await consumer.cursor();
  const upTo = to ?? (await log.head());
  if (from >= upTo) return false;
  const { rows, through } = await log.read(from, consumer.limit, { to: upTo });
  await consumer.handle(rows, { from, through });
  return true;
}

/** What `subscribe` calls: soon after a local commit, or when a poll found the head moved. */
export type ChangeWake = () => void;

/** The change log of one open store (`Store.changes`). */
export interface ChangeLog {
  /** The sequence number of the last committed write (on `on`, e.g. a transaction, when given). */
  head(on?: Executor): Promise<number>;
  /**
   * The rows after `afterSeq`, ordered, at most `limit` and whole writes only, up to `to` (default:
   * the head); `through` says how far they reach. Read on `on` when given (a transaction).
   */
  read(afterSeq: number, limit: number, options?: { to?: number; on?: Executor }): Promise<ChangeRead>;
  /**
   * Call `wake` soon after commits of this process that moved the head (coalesced: commits within
   * a few milliseconds cost one look at the head) and, with `pollMs`, when a poll that often finds
   * the head moved (other instances' commits). With `wanted`, only while it answers true: when no
   * subscriber wants waking, a commit costs no look at the head (a webhook worker with no endpoint
   * enabled). Returns what stops it.
   */
  subscribe(wake: ChangeWake, options?: { pollMs?: number; wanted?: () => boolean }): () => void;
  /**
   * Called synchronously at each local commit (before the wakes): for the change feed, which must
   * look again before the next read.
   */
  onCommit(listener: () => void): void;
  /** The store says a transaction of this process committed (or is committing). */
  committed(): void;
  /**
   * Another thread of this process committed on a connection of its own (the write worker): wake
   * the subscribers as after a local commit (one look at the head, coalesced). The change feed
   * finds the commit itself, at its next look.
   */
  committedElsewhere(): void;
  /** Stop the polls (the store closes). */
  close(): void;
}

/**
 * Commits of this process seen within this many milliseconds cost one look at the head (a
 * subscriber's own commits, e.g. a webhook claim, move no head and wake nobody).
 */
const COMMIT_LOOK_MS = 5;

/** The change log of a store's handle (`openStore` makes one per store). */
export function createChangeLog(db: Executor): ChangeLog {
  const immediate: Array<() => void> = [];
  /** the subscribers, with whether each wants waking now */
  const wakes = new Map<ChangeWake, () => boolean>();
  const always = () => true;
  const anyWanted = () => {
    for (const wanted of wakes.values()) if (wanted()) return true;
    return false;
  };
  const timers = new Set<NodeJS.Timeout>();
  let lookTimer: NodeJS.Timeout | undefined;
  /** the head the subscribers were last woken for */
  let wokenAt: number | undefined;
  const look = () => {
    lookTimer = undefined;
    headOf(db)
      .then((head) => {
        if (head === wokenAt) return;
        wokenAt = head;
        for (const [wake, wanted] of [...wakes]) if (wanted()) wake();
      })
      .catch(() => {});
  };
  const log: ChangeLog = {
    head: (on) => headOf(on ?? db),
    async read(afterSeq, limit, options = {}) {
      const on = options.on ?? db;
      return readChanges(on, afterSeq, options.to ?? (await headOf(on)), limit);
    },
    subscribe(wake, options = {}) {
      wakes.set(wake, options.wanted ?? always);
      let timer: NodeJS.Timeout | undefined;
      if (options.pollMs !== undefined) {
        let seen: number | undefined;
        let polling = false;
        timer = setInterval(() => {
          if (polling) return;
          polling = true;
          headOf(db)
            .then((head) => {
              if (seen !== undefined && head !== seen && wakes.has(wake)) wake();
              seen = head;
            })
            .catch(() => {})
            .finally(() => {
              polling = false;
            });
        }, options.pollMs);
        timer.unref();
        timers.add(timer);
      }
      return () => {
        wakes.delete(wake);
        if (timer) {
          clearInterval(timer);
          timers.delete(timer);
        }
      };
    },
    onCommit(listener) {
      immediate.push(listener);
    },
    committed() {
      for (const l of immediate) l();
      log.committedElsewhere();
    },
    committedElsewhere() {
      if (!lookTimer && anyWanted()) {
        lookTimer = setTimeout(look, COMMIT_LOOK_MS);
        lookTimer.unref();
      }
    },
    close() {
      if (lookTimer) clearTimeout(lookTimer);
      lookTimer = undefined;
      for (const t of timers) clearInterval(t);
      timers.clear();
      wakes.clear();
    },
  };
  return log;
}
