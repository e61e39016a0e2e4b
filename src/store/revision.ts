/**
 * A revision of the calendar's data: the sequence number of the change log (migration 005,
 * `changes.ts`), which every write to events, venues, organizers, their links, terms or images
 * advances in its own transaction, by this process or any other. Caches keyed by it are never
 * served stale; the change feed (`change-feed.ts`) tells finer-grained caches what changed.
 *
 * Read the revision *before* computing what is cached under it: a write committed in between
 * changes the revision, so the result is only ever cached under an older one and never reused.
 *
 * @example const rev = await dataRevision(db, 'sqlite') // '1043'
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { partsOf, slot, slotKey, type DialectName } from './handle.js';
import { createRevisionCache, type RevisionCache, type RevisionView } from './kept-entries.js';

const REVISION = sql<string>`(select cast("value" as text) from "change_counter" where "id" = 1)`;

/** The revision as an SQL expression (text), to read it in the same statement as data. */
export function revisionExpression(_dialect: DialectName) {
  return REVISION;
}

/** The dialect of a store's handle (undefined for a transaction or a handle not opened by `openStore`). */
export function dialectOfHandle(db: object): DialectName | undefined {
  return partsOf(db)?.dialect;
}

/**
 * The revision of a store's handle, for code that gets only the handle: undefined for a
 * transaction (or anything not opened by `openStore`), which then caches nothing.
 */
export async function revisionOfHandle(db: Executor): Promise<string | undefined> {
  const dialect = partsOf(db)?.dialect;
  return dialect === undefined ? undefined : dataRevision(db, dialect);
}

async function queryRevision(db: Executor): Promise<string> {
  const r = await sql<{ revision: string | null }>`select ${REVISION} as "revision"`.execute(db);
  return String(r.rows[0]?.revision ?? '');
}

/**
 * The current revision. On a store's handle this brings its change feed up to date first (so the
 * finer-grained caches have applied every committed change); on a transaction it is read there.
 */
export async function dataRevision(db: Executor, _dialect: DialectName): Promise<string> {
  const feed = partsOf(db)?.feed;
  if (feed) {
    await feed.sync();
    return feed.revision();
  }
  return queryRevision(db);
}

/**
 * The revision of what venue and organizer lists that do not depend on events are made of
 * (`ChangeFeed.linkedRevision`: it moves with every change but those of events and terms). Brings
 * the feed up to date first, as `dataRevision`; on a transaction, the data revision read there.
 */
export async function linkedDataRevision(db: Executor): Promise<string> {
  const feed = partsOf(db)?.feed;
  if (feed) {
    await feed.sync();
    return feed.linkedRevision();
  }
  return queryRevision(db);
}

/** Rows read in the same statement as a revision, with that revision. */
const stamps = new WeakMap<object, string>();

export function stampRevision(row: object, revision: string): void {
  stamps.set(row, revision);
}

/** The revision a row was read at, when it was read together with one. */
export function revisionOf(row: object): string | undefined {
  return stamps.get(row);
}

/** What a revision memo answers when there is no store handle to keep for (a transaction). */
const NOTHING_KEPT: RevisionView<never> = { get: () => undefined, set: () => {} };

/**
 * Values kept per store for one data revision (all dropped when the revision changes), e.g. list
 * totals: a revision cache (kept-entries.ts, the oldest go first past `maxEntries`) in the store
 * handle's slots, reported in `/metrics` as `kind`. On a handle `openStore` did not make (a
 * transaction) nothing is kept. Read the revision before computing a value you store here.
 *
 * @example
 *   const totals = revisionMemo<number>(1000, 'linked_totals'); // once, at module level
 *   const kept = totals.at(db, await dataRevision(db, dialect));
 *   const n = kept.get(key) ?? (await count());
 */
export function revisionMemo<V>(maxEntries = 1000, kind = 'revision_memo'): { at(db: object, revision: string): RevisionView<V> } {
  const key = slotKey<RevisionCache<V>>(kind);
  return {
    at(db, revision) {
      const parts = partsOf(db);
      if (!parts) return NOTHING_KEPT;
      return slot(parts, key, () => createRevisionCache<V>(maxEntries, { owner: db, kind })).at(revision);
    },
  };
}
