/**
 * Background imports (migration 014; domain/imports.ts runs them): queued by the admin API,
 * claimed one at a time with a compare-and-set on the status, their progress and heartbeat
 * written while they run, their outcome at the end. Not logged in the change log (the records an
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
 * database: the import job runs one import at a time, whichever calendar queued it.
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

/**
 * Claim the oldest queued import of any calendar (compare-and-set on its status): the row with its
 * upload and its calendar (`calendar_id`, where it then runs), now running; undefined when none.
 */
export async function claimNextImport(db: Executor, now: string): Promise<ClaimedImport | undefined> {
  return acrossCalendars(async () => {
    for (;;) {
      const next = await scoped(db).selectFrom('imports').select(['id', 'calendar_id']).where('status', '=', 'queued').orderBy('id').limit(1).executeTakeFirst();
      if (!next) return undefined;
      const r = await scoped(db)
        .updateTable('imports')
        .set((eb) => ({ status: 'running', started_gmt: now, heartbeat_gmt: now, attempts: eb('attempts', '+', 1), phase: '', done: 0, total: 0 }))
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

/** Progress of a running import (and its heartbeat). */
export async function noteProgress(db: Executor, id: number, p: { phase: string; done: number; total: number; heartbeat_gmt: string }): Promise<void> {
  await tables(db).updateTable('imports').set(p).where('id', '=', id).where('status', '=', 'running').execute();
}

/** The end of a run: done, failed, or queued again (interrupted by a stop); the upload is dropped once it ended. */
export async function finishImport(
  db: Executor,
  id: number,
  end: { status: 'done' | 'failed' | 'queued'; options?: string; counts?: string; messages?: string; error?: string | null; finished_gmt?: string | null },
): Promise<void> {
  await tables(db)
    .updateTable('imports')
    .set({ ...end, ...(end.status !== 'queued' ? { upload: null } : {}) })
    .where('id', '=', id)
    .execute();
}

/** Replace an ended import's counts (its review list changed: a venue was created from it). */
export async function setImportCounts(db: Executor, id: number, counts: string): Promise<void> {
  await tables(db).updateTable('imports').set({ counts }).where('id', '=', id).execute();
}
