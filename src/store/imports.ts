/**
 * Background imports (migration 014; domain/imports.ts runs them): queued by the admin API,
 * claimed one at a time with a compare-and-set on the status, in turns by calendar, their progress
 * and heartbeat written while they run, their outcome at the end. Not logged in the change log (the records an
 * import writes are, through the domain services).
 *
 * @example
 *   const id = await insertImport(db, { kind: 'ics', source: 'https://…/feed.ics', options: '{}', upload: null, user_id: 1, created_gmt: now });
 *   const claimed = await claimNextImport(db, now); // the row, now running, or undefined
 */
import type { Generated, Selectable } from 'kysely';
import type { Executor } from './schema.js';
import { acrossCalendars } from './calendar-scope.js';

export interface ImportsTable {
  id: Generated<number>;
  kind: string;
  status: string;
  source: string;
  options: Generated<string>;
  upload: string | null;
  user_id: number;
  attempts: Generated<number>;
  phase: Generated<string>;
  done: Generated<number>;
  total: Generated<number>;
  counts: Generated<string>;
  messages: Generated<string>;
  error: string | null;
  created_gmt: string;
  started_gmt: string | null;
  finished_gmt: string | null;
  heartbeat_gmt: string | null;
}

export type ImportRow = Selectable<ImportsTable>;

const tables = (db: Executor) => db.withTables<{ imports: ImportsTable }>();
/** The table with its calendar, for the readers across calendars (the scope plugin sets it elsewhere). */
const scoped = (db: Executor) => db.withTables<{ imports: ImportsTable & { calendar_id: Generated<number> } }>();

/**
 * The calendars whose imports wait: a suspended calendar's stay queued until it is resumed (it
 * does nothing while suspended, as its deliveries wait), and are then taken in their turn.
 */
const suspendedCalendars = (db: Executor) => db.selectFrom('calendars').select('id').where('status', '=', 'suspended');

/** A claimed import, with the calendar it was queued in (it runs there). */
export type ClaimedImport = ImportRow & { calendar_id: number };

/** The columns answered by reads (the upload's text stays in the table). */
const COLUMNS = [
  'id',
  'kind',
  'status',
  'source',
  'options',
  'user_id',
  'attempts',
  'phase',
  'done',
  'total',
  'counts',
  'messages',
  'error',
  'created_gmt',
  'started_gmt',
  'finished_gmt',
  'heartbeat_gmt',
] as const;

export type ImportListing = Omit<ImportRow, 'upload'>;

export async function insertImport(db: Executor, row: { kind: string; source: string; options: string; upload: string | null; user_id: number; created_gmt: string }): Promise<number> {
  const r = await tables(db)
    .insertInto('imports')
    .values({ ...row, status: 'queued' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function findImport(db: Executor, id: number): Promise<ImportListing | undefined> {
  return tables(db).selectFrom('imports').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function listImports(db: Executor, limit: number, offset: number): Promise<{ rows: ImportListing[]; total: number }> {
  const rows = await tables(db).selectFrom('imports').select(COLUMNS).orderBy('id', 'desc').limit(limit).offset(offset).execute();
  const n = await tables(db)
    .selectFrom('imports')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return { rows, total: Number(n?.n ?? 0) };
}

/**
 * Running imports of every calendar whose heartbeat is older than `staleBefore`: queued again (or
 * failed after `maxAttempts`). Returns how many were queued again. One queue for the whole
 * database, served by calendar in turns (`queuedCalendars`).
 */
export async function requeueStale(db: Executor, staleBefore: string, maxAttempts: number, now: string): Promise<number> {
  return acrossCalendars(async () => {
    await tables(db)
      .updateTable('imports')
      .set({ status: 'failed', error: 'The import stopped (its server stopped) too many times.', finished_gmt: now, upload: null })
      .where('status', '=', 'running')
      .where('heartbeat_gmt', '<', staleBefore)
      .where('attempts', '>=', maxAttempts)
      .execute();
    const r = await tables(db).updateTable('imports').set({ status: 'queued' }).where('status', '=', 'running').where('heartbeat_gmt', '<', staleBefore).executeTakeFirst();
    return Number(r.numUpdatedRows);
  });
}

/** A calendar with imports queued: its oldest queued import, and its last turn (the newest heartbeat of its imports, '' for none). */
export interface QueuedCalendar {
  calendar_id: number;
  id: number;
  turn: string;
}

/**
 * The calendars with imports queued (suspended ones aside: `suspendedCalendars`), in the order of
 * their turns: the one whose imports ran least recently first (never: first of all), then the one whose turn this server gave longest ago
 * (`lastTurn`, a counter the job keeps: heartbeats are to the second, and slices may be shorter),
 * then the oldest queued import. An import's heartbeat is renewed while it runs, so a calendar
 * whose import just ended a slice goes behind every calendar that waits.
 */
export async function queuedCalendars(db: Executor, lastTurn: (calendar: number) => number = () => -1): Promise<QueuedCalendar[]> {
  return acrossCalendars(async () => {
    const queued = await scoped(db)
      .selectFrom('imports')
      .select((eb) => ['calendar_id', eb.fn.min('id').as('id')])
      .where('status', '=', 'queued')
      .where('calendar_id', 'not in', suspendedCalendars(db))
      .groupBy('calendar_id')
      .execute();
    if (queued.length === 0) return [];
    const turns = await scoped(db)
      .selectFrom('imports')
      .select((eb) => ['calendar_id', eb.fn.max('heartbeat_gmt').as('turn')])
      .where(
        'calendar_id',
        'in',
        queued.map((q) => Number(q.calendar_id)),
      )
      .groupBy('calendar_id')
      .execute();
    const turnOf = new Map(turns.map((t) => [Number(t.calendar_id), t.turn ?? '']));
    return queued
      .map((q) => ({ calendar_id: Number(q.calendar_id), id: Number(q.id), turn: turnOf.get(Number(q.calendar_id)) ?? '' }))
      .sort((a, b) => (a.turn < b.turn ? -1 : a.turn > b.turn ? 1 : lastTurn(a.calendar_id) - lastTurn(b.calendar_id) || a.id - b.id));
  });
}

/**
 * Claim the next import (compare-and-set on its status): the oldest queued import of the calendar
 * whose turn it is (`queuedCalendars`: round robin by calendar, so one calendar's many or long
 * imports do not hold back another's), with its upload and its calendar (`calendar_id`, where it
 * then runs), now running; undefined when none. `started_gmt` stays the first start of the import
 * (a slice or a resumption continues it); its progress stays until the run reports its own.
 */
export async function claimNextImport(db: Executor, now: string, lastTurn?: (calendar: number) => number): Promise<ClaimedImport | undefined> {
  return acrossCalendars(async () => {
    for (;;) {
      const [next] = await queuedCalendars(db, lastTurn);
      if (!next) return undefined;
      const r = await scoped(db)
        .updateTable('imports')
        .set((eb) => ({ status: 'running', started_gmt: eb.fn.coalesce('started_gmt', eb.val(now)), heartbeat_gmt: now, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', next.id)
        .where('calendar_id', '=', next.calendar_id)
        .where('status', '=', 'queued')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) {
        const row = await scoped(db).selectFrom('imports').selectAll().where('id', '=', next.id).where('calendar_id', '=', next.calendar_id).executeTakeFirst();
        return row && { ...row, calendar_id: Number(row.calendar_id) };
      }
    }
  });
}

/** Whether an import of another calendar than `calendar` is queued (a running import then ends its slice). */
export async function otherCalendarWaits(db: Executor, calendar: number): Promise<boolean> {
  return acrossCalendars(async () => {
    const row = await scoped(db)
      .selectFrom('imports')
      .select('id')
      .where('status', '=', 'queued')
      .where('calendar_id', '<>', calendar)
      .where('calendar_id', 'not in', suspendedCalendars(db))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  });
}

/** Progress of a running import (and its heartbeat). */
export async function noteProgress(db: Executor, id: number, p: { phase: string; done: number; total: number; heartbeat_gmt: string }): Promise<void> {
  await tables(db).updateTable('imports').set(p).where('id', '=', id).where('status', '=', 'running').execute();
}

/**
 * The end of a run: done, failed, or queued again (interrupted by a stop, or at the end of a slice:
 * `slice` gives back the attempt its claim counted, since a slice continues the same attempt); the
 * upload is dropped once it ended. The heartbeat is renewed: it is when the calendar last had its turn.
 */
export async function finishImport(
  db: Executor,
  id: number,
  end: { status: 'done' | 'failed' | 'queued'; options?: string; counts?: string; messages?: string; error?: string | null; finished_gmt?: string | null; heartbeat_gmt?: string; slice?: boolean },
): Promise<void> {
  const { slice, ...set } = end;
  await tables(db)
    .updateTable('imports')
    .set((eb) => ({ ...set, ...(end.status !== 'queued' ? { upload: null } : {}), ...(slice ? { attempts: eb('attempts', '-', 1) } : {}) }))
    .where('id', '=', id)
    .execute();
}

/** Replace an ended import's counts (its review list changed: a venue was created from it). */
export async function setImportCounts(db: Executor, id: number, counts: string): Promise<void> {
  await tables(db).updateTable('imports').set({ counts }).where('id', '=', id).execute();
}
