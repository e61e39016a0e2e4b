/**
 * Term (category and tag) queries, including the published-event counts kept on each term.
 *
 * @example
 *   const id = await insertTerm(db, { taxonomy: 'post_tag', name: 'jazz', slug: 'jazz', description: '', parent_id: 0, count: 0 });
 *   await recountTerms(db, [id]);
 */
import { byChunks, inList } from './lists.js';
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor, Taxonomy, TermRow, TermsTable } from './schema.js';
import { revisionExpression, revisionMemo, revisionOfHandle } from './revision.js';
import type { ChangeFeed } from './change-feed.js';
import { partsOf, slot, slotKey, slotsOf, type StoreParts } from './handle.js';
import { keptCountersOf, registerKept } from '../metrics.js';
import { addTermCounts, noteChange, noteChanges, noteTermRecount } from './change-notes.js';
import { afterExplicitId, takeWantedId } from './import-context.js';
import { storedIds } from './ranges.js';
import { directOf } from './sqlite-direct.js';
import { calendarCondition } from './calendar-scope.js';

/**
 * Term rows kept by id across requests, per store: an event write's validation and its
 * answer, and every representation that embeds terms, read them without a query. The change feed
 * keeps them current: a term that changed is dropped (read again when next asked for), and a
 * term whose published-event count alone moved (every event published, trashed or relinked moves
 * one) is adjusted by the move the log states (`RecordChangeDetail.count`), as list totals are.
 * `null`: no term has that id (dropped when one is created with it).
 *
 * A row is kept only when it was read in the same snapshot as the log's number the feed is at
 * (the statement reads both), so an adjustment is never applied to a row that already has it.
 */
const KEPT_TERM_ROWS = slotKey<Map<number, TermRow | null>>('term rows');
const KEPT_TERMS = 20_000;

function keptTermsOf(db: Executor, parts: StoreParts): Map<number, TermRow | null> {
  return slot(parts, KEPT_TERM_ROWS, () => makeKeptTerms(db, parts.feed));
}

function makeKeptTerms(db: Executor, feed: ChangeFeed): Map<number, TermRow | null> {
  const rows = new Map<number, TermRow | null>();
  registerKept(db, 'term_rows', { entries: () => rows.size, maxEntries: KEPT_TERMS });
  feed.subscribe((batch) => {
    if (batch.reset) return rows.clear();
    for (const id of batch.terms) rows.delete(id);
    for (const [id, delta] of batch.termCounts) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, count: Number(row.count) + delta });
      else rows.delete(id);
    }
  });
  return rows;
}

/**
 * The rows of these term ids (null: no such term) from what is kept, reading the rest in one
 * statement; undefined on a transaction (which must see its own writes) or a handle without a feed.
 */
async function keptTermRows(db: Executor, ids: number[], current = true): Promise<Map<number, TermRow | null> | undefined> {
  const parts = partsOf(db);
  if (!parts) return undefined;
  const feed = parts.feed;
  if (current) await feed.sync();
  const kept = keptTermsOf(db, parts);
  const out = new Map<number, TermRow | null>();
  const missing: number[] = [];
  for (const id of ids) {
    const row = kept.get(id);
    if (row === undefined) missing.push(id);
    else out.set(id, row);
  }
  const counters = keptCountersOf(db).terms;
  counters.hits += ids.length - missing.length;
  counters.misses += missing.length;
  if (missing.length === 0) return out;
  const rows = await byChunks(missing, (chunk) => db.selectFrom('terms').selectAll().select(revisionExpression('sqlite').as('__seq')).where('id', 'in', chunk).execute());
  // Kept only when read at the feed's number (another write may have moved it meanwhile).
  const keep = rows.length > 0 && rows.every((r) => Number(r.__seq) === feed.seq());
  if (keep && kept.size + missing.length > KEPT_TERMS) kept.clear();
  for (const { __seq, ...row } of rows) {
    void __seq;
    out.set(Number(row.id), row);
    if (keep) kept.set(Number(row.id), row);
  }
  for (const id of missing) {
    if (out.has(id)) continue;
    out.set(id, null);
    if (keep) kept.set(id, null);
  }
  return out;
}

/**
 * The count of a term as kept for the store's handle (current as of its change feed's number), or
 * undefined when that term's row is not kept. Synchronous: for values patched when read.
 */
export function keptTermCount(db: Executor, id: number): number | undefined {
  const parts = partsOf(db);
  const row = parts ? (slotsOf(parts).get(KEPT_TERM_ROWS) as Map<number, TermRow | null> | undefined)?.get(id) : undefined;
  return row ? Number(row.count) : undefined;
}

/**
 * The terms with these ids (any taxonomy), in no particular order. On the store's handle from what
 * is kept; `current: false` answers without bringing the change feed up to date first (see
 * `KeptRecords` in domain/kept.ts).
 */
export async function findTermsByIds(db: Executor, ids: number[], { current = true }: { current?: boolean } = {}): Promise<TermRow[]> {
  ids = storedIds(ids);
  if (ids.length === 0) return [];
  const kept = await keptTermRows(db, [...new Set(ids)], current);
  if (kept) return [...kept.values()].filter((r): r is TermRow => r !== null);
  return byChunks(ids, (chunk) => db.selectFrom('terms').selectAll().where('id', 'in', chunk).execute());
}

export async function findTerm(db: Executor, taxonomy: Taxonomy, id: number): Promise<TermRow | undefined> {
  if (storedIds([id]).length === 0) return undefined;
  const kept = await keptTermRows(db, [id]);
  if (kept) {
    const row = kept.get(id);
    return row && row.taxonomy === taxonomy ? row : undefined;
  }
  return db.selectFrom('terms').selectAll().where('id', '=', id).where('taxonomy', '=', taxonomy).executeTakeFirst();
}

/** A term of any taxonomy, read from the table (never from kept rows). */
export async function findTermById(db: Executor, id: number): Promise<TermRow | undefined> {
  return db.selectFrom('terms').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The taxonomy of each of these ids that is a stored term. */
export async function taxonomiesOf(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  const wanted = storedIds([...ids]);
  const rows = await byChunks(wanted, (chunk) => db.selectFrom('terms').select(['id', 'taxonomy']).where('id', 'in', chunk).execute());
  return new Map(rows.map((r) => [Number(r.id), r.taxonomy]));
}

/**
 * Which of these ids are terms of the taxonomy, read on `db` (a write transaction: what it would
 * link to now). SQLite reads on the transaction's connection directly.
 */
export async function existingTermIds(db: Executor, taxonomy: Taxonomy, ids: readonly number[]): Promise<Set<number>> {
  const wanted = storedIds([...ids]);
  if (wanted.length === 0) return new Set();
  const direct = directOf(db);
  const rows = direct
    ? direct.all<{ id: number }>(`select "id" from "terms" where "taxonomy" = ? and "id" in (${wanted.map(() => '?').join(', ')})${calendarCondition('terms').text}`, [
        taxonomy,
        ...wanted,
        ...calendarCondition('terms').params,
      ])
    : await db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy).where('id', 'in', wanted).execute();
  return new Set(rows.map((r) => Number(r.id)));
}

export async function findTermBySlug(db: Executor, taxonomy: Taxonomy, slug: string): Promise<TermRow | undefined> {
  return db.selectFrom('terms').selectAll().where('taxonomy', '=', taxonomy).where('slug', '=', slug).executeTakeFirst();
}

/** Terms of the taxonomy whose stored name equals `name` (exact), optionally under a parent. */
export async function findTermsByName(db: Executor, taxonomy: Taxonomy, name: string, parentId?: number): Promise<TermRow[]> {
  let q = db.selectFrom('terms').selectAll().where('taxonomy', '=', taxonomy).where('name', '=', name);
  if (parentId !== undefined) q = q.where('parent_id', '=', parentId);
  return q.orderBy('id').execute();
}

export async function isTermSlugTaken(db: Executor, taxonomy: Taxonomy, slug: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy).where('slug', '=', slug);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

export async function insertTerm(db: Executor, term: Insertable<TermsTable>): Promise<number> {
  const wanted = await takeWantedId(db, 'term');
  const row = await db
    .insertInto('terms')
    .values(wanted === undefined ? term : { ...term, id: wanted })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (wanted !== undefined) await afterExplicitId(db, 'term');
  await noteChange(db, 'term', Number(row.id), 'create');
  return Number(row.id);
}

export async function updateTerm(db: Executor, id: number, patch: Updateable<TermsTable>): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await noteChange(db, 'term', id, 'update');
  await db.updateTable('terms').set(patch).where('id', '=', id).execute();
}

/** Delete a term for good: its children move to its parent, its event links go (cascade). */
export async function deleteTerm(db: Executor, term: TermRow): Promise<void> {
  // Its children change parent: noted, so that servers drop the rows they keep of them.
  const children = await db.selectFrom('terms').select('id').where('parent_id', '=', term.id).where('taxonomy', '=', term.taxonomy).execute();
  await noteChanges(
    db,
    'term',
    children.map((c) => Number(c.id)),
    'update',
  );
  await db.updateTable('terms').set({ parent_id: term.parent_id }).where('parent_id', '=', term.id).where('taxonomy', '=', term.taxonomy).execute();
  await db.deleteFrom('event_terms').where('term_id', '=', term.id).execute();
  await db.deleteFrom('terms').where('id', '=', term.id).execute();
  // Its events lost a link (any number of them): event lists are recomputed.
  await noteChange(db, 'term', Number(term.id), 'delete', { taxonomy: term.taxonomy });
  await noteChange(db, 'lists', 0, 'reset');
}

/** Ids of all descendants of the given categories (children, grandchildren, …). */
export async function descendantTermIds(db: Executor, taxonomy: Taxonomy, ids: number[]): Promise<number[]> {
  const out = new Set<number>();
  let frontier = ids;
  while (frontier.length) {
    const rows = await byChunks(frontier, (chunk) => db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy).where('parent_id', 'in', chunk).execute());
    frontier = rows.map((r) => Number(r.id)).filter((id) => !out.has(id) && !ids.includes(id));
    for (const id of frontier) out.add(id);
  }
  return [...out];
}

/**
 * Add `delta` to the count of these terms: a new published event linked to them (counting every
 * published link of a popular term again is proportional to its size).
 */
export async function adjustTermCounts(db: Executor, termIds: number[], delta: number): Promise<void> {
  await addTermCounts(db, termIds, delta);
}

/**
 * Set `count` of the terms to the number of published events linked to each. On PostgreSQL inside
 * a transaction this is done at its end, under the terms' row locks (`noteTermRecount`), so that
 * concurrent writers never leave a count wrong.
 */
export async function recountTerms(db: Executor, termIds: number[]): Promise<void> {
  // In id order, as every writer locks terms (change-notes.ts).
  const unique = [...new Set(termIds)].sort((a, b) => a - b);
  if (unique.length === 0) return;
  await noteChanges(db, 'term', unique, 'update');
  if (noteTermRecount(db, unique)) return;
  for (const id of unique) {
    const c = await db
      .selectFrom('event_terms')
      .innerJoin('posts', 'posts.id', 'event_terms.event_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('event_terms.term_id', '=', id)
      .where('posts.status', '=', 'publish')
      // A recurring event's series is not counted: its occurrences are.
      .where('posts.type', '=', 'tribe_events')
      .executeTakeFirstOrThrow();
    await db
      .updateTable('terms')
      .set({ count: Number(c.n) })
      .where('id', '=', id)
      .execute();
  }
}

/** The sort keys of the term list (WordPress' term query `orderby`, after the REST mappings). */
export type TermOrderBy = 'id' | 'name' | 'slug' | 'term_group' | 'count' | 'description' | 'parent' | 'include' | 'none';

/** What the term list can filter on; absent keys do not filter. */
export interface TermListFilter {
  taxonomy: Taxonomy;
  /** substring of the name or the slug, case-insensitive */
  search?: string;
  include?: number[];
  exclude?: number[];
  parentId?: number;
  /** terms linked to this event */
  eventId?: number;
  slug?: string;
  /**
   * Hide terms no published event uses (`count` 0). With `keepAncestors`, an empty term stays
   * when one of its descendants is used (WordPress' hierarchical `hide_empty`).
   */
  hideEmpty: boolean;
  keepAncestors: boolean;
  orderBy: TermOrderBy;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** Ids of the used terms of the taxonomy and of all their ancestors (a recursive query). */
function usedTermsAndAncestors(db: Executor, taxonomy: Taxonomy) {
  return db
    .withRecursive('used(id, parent_id)', (qb) =>
      qb
        .selectFrom('terms')
        .select(['terms.id', 'terms.parent_id'])
        .where('terms.taxonomy', '=', taxonomy)
        .where('terms.count', '>', 0)
        .union(qb.selectFrom('terms as t').innerJoin('used', 'used.parent_id', 't.id').select(['t.id', 't.parent_id']).where('t.taxonomy', '=', taxonomy)),
    )
    .selectFrom('used')
    .select('used.id');
}

/**
 * One page of terms and the number of all matches. Names, slugs and descriptions sort
 * case-insensitively (as MySQL's collation does for WordPress); ties are broken by id, ascending.
 */
export async function listTerms(db: Executor, f: TermListFilter): Promise<{ rows: TermRow[]; total: number }> {
  // Kept for the data revision (read first): the page and total only change with the data.
  const revision = await revisionOfHandle(db);
  const key = JSON.stringify(f);
  const kept = revision === undefined ? undefined : termPages.at(db, revision).get(key);
  if (kept) return { rows: [...kept.rows], total: kept.total };
  const result = await queryTerms(db, f);
  if (revision !== undefined) termPages.at(db, revision).set(key, { rows: [...result.rows], total: result.total });
  return result;
}

const termPages = revisionMemo<{ rows: TermRow[]; total: number }>(1000, 'term_pages');

async function queryTerms(db: Executor, f: TermListFilter): Promise<{ rows: TermRow[]; total: number }> {
  let q = db.selectFrom('terms').where('terms.taxonomy', '=', f.taxonomy);
  if (f.search !== undefined && f.search !== '') {
    const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    q = q.where((eb) => eb.or([eb(eb.fn('lower', ['terms.name']), 'like', sql<string>`${pattern} ESCAPE '\\'`), eb(eb.fn('lower', ['terms.slug']), 'like', sql<string>`${pattern} ESCAPE '\\'`)]));
  }
  // Long lists are bound as one value (lists.ts).
  if (f.include) {
    const ids = f.include;
    q = q.where((eb) => inList(eb, db, 'terms.id', ids.length ? ids : [0]));
  }
  if (f.exclude?.length) {
    const ids = f.exclude;
    q = q.where((eb) => eb.not(inList(eb, db, 'terms.id', ids)));
  }
  if (f.parentId !== undefined) q = q.where('terms.parent_id', '=', f.parentId);
  if (f.slug !== undefined) q = q.where('terms.slug', '=', f.slug);
  if (f.eventId !== undefined) {
    const eventId = f.eventId;
    q = q.where('terms.id', 'in', (eb) => eb.selectFrom('event_terms').select('event_terms.term_id').where('event_terms.event_id', '=', eventId));
  }
  if (f.hideEmpty) {
    q = f.keepAncestors ? q.where('terms.id', 'in', usedTermsAndAncestors(db, f.taxonomy)) : q.where('terms.count', '>', 0);
  }

  const counted = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (total === 0 || f.offset >= total) return { rows: [], total };

  let page = q.selectAll('terms');
  const dir = f.order;
  switch (f.orderBy) {
    case 'id':
    case 'term_group': // every term's group is 0: ties only
      page = page.orderBy('terms.id', f.orderBy === 'id' ? dir : 'asc');
      break;
    case 'name':
    case 'slug':
    case 'description':
      page = page.orderBy(sql`lower(${sql.ref(`terms.${f.orderBy}`)})`, dir);
      break;
    case 'count':
      page = page.orderBy('terms.count', dir);
      break;
    case 'parent':
      page = page.orderBy('terms.parent_id', dir);
      break;
    case 'include': {
      const ids = f.include ?? [];
      if (ids.length)
        page = page.orderBy(
          sql`case ${sql.join(
            ids.map((id, i) => sql`when terms.id = ${sql.lit(id)} then ${sql.lit(i)}`),
            sql` `,
          )} else ${sql.lit(ids.length)} end`,
          dir,
        );
      else page = page.orderBy(sql`lower(terms.name)`, dir);
      break;
    }
    case 'none':
      break;
  }
  page = page.orderBy('terms.id', 'asc');
  const rows = await page.limit(f.limit).offset(f.offset).execute();
  return { rows, total };
}
