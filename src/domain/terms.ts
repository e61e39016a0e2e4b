/**
 * Categories and tags as events use them: resolving references (ids, slugs or names) for list
 * filters and for writes (COMPAT decision 4), and keeping `count` right. One service per taxonomy,
 * the differences as data.
 *
 * The `/categories` and `/tags` routes use the same service for their list, create, update and
 * delete; what differs between the taxonomies is in {@link TAXONOMY_TRAITS}.
 *
 * Choices (see the route module for the wire-level ones): updates are partial and `""` clears the
 * description (COMPAT decision 1); a slug sent on update that another term of the taxonomy has is
 * 400 `duplicate_term_slug` (WordPress answered 500); a category cannot be moved under itself or
 * one of its descendants (400 `rest_invalid_param`, WordPress silently made it top-level); a name
 * that is empty once stored (e.g. only tags) is 400 `empty_term_name` (WordPress: 500).
 *
 * @example
 *   const categories = createTermService(db, 'tribe_events_cat');
 *   await categories.filterIds('jazz,2')           // [3, 2, …children]
 *   await categories.idsForWrite(trx, ['Concerts'], viewer) // creates "Concerts" when the viewer may
 *   await categories.list({ page: 1, perPage: 10, hideEmpty: true }) // { terms, total, totalPages }
 *   await categories.update(term, { description: '' })            // clears the description
 */
import type { Executor, Taxonomy, TermRow } from '../store/schema.js';
import type { TermPatch } from '../store/term-writes.js';
import * as postsStore from '../store/posts.js';
import * as termsStore from '../store/terms.js';
import { lockForWrite } from '../store/locks.js';
import { dialectOfHandle, revisionOfHandle } from '../store/revision.js';
import { createRevisionCache } from './kept.js';
import type { TermOrderBy } from '../store/terms.js';
import { apiError, invalidParams } from './errors.js';
import { canManageTerms, type Viewer } from './permissions.js';
import { sanitizeSlug, uniqueSlug } from './slugs.js';
import { termText } from './text.js';
import { isEmptyValue, isNumeric, isPositiveInt, listToArray } from './values.js';
import { isRepeatedWrite, writeTransaction } from '../store/changes.js';
import { inImportContext } from '../store/import-context.js';

/** What differs between categories and tags. */
export interface TaxonomyTraits {
  /** categories nest (`parent`), tags do not */
  hierarchical: boolean;
  /** the catalogue entry of a duplicate name (same wire code, different message) */
  existsCode: 'term_exists' | 'term_exists_tag';
}

export const TAXONOMY_TRAITS: Record<Taxonomy, TaxonomyTraits> = {
  tribe_events_cat: { hierarchical: true, existsCode: 'term_exists' },
  post_tag: { hierarchical: false, existsCode: 'term_exists_tag' },
};

/**
 * The accepted `orderby` values (lower-cased) and what they sort by: WordPress' term query keys
 * after the REST mappings (`id` → term_id, `include_slugs` → slug__in). `include_slugs` needs a
 * list of slugs, and the `slug` filter here is one string, so WordPress falls back to the name,
 * as it does for `include` without an `include` list.
 */
export const TERM_ORDERBY: Readonly<Record<string, TermOrderBy>> = {
  id: 'id',
  term_id: 'id',
  name: 'name',
  slug: 'slug',
  term_group: 'term_group',
  count: 'count',
  description: 'description',
  parent: 'parent',
  include: 'include',
  include_slugs: 'name',
  none: 'none',
};

/** The sort key of an `orderby` value (any case), or undefined when it is not one we accept. */
export function termOrderBy(value: unknown): TermOrderBy | undefined {
  return typeof value === 'string' ? TERM_ORDERBY[value.toLowerCase()] : undefined;
}

/** `order`: `asc` or `desc`, any case. */
export function isTermOrder(value: unknown): boolean {
  return typeof value === 'string' && /^(asc|desc)$/i.test(value);
}

/** The list query, as validated by the route. */
export interface TermListArgs {
  page: number;
  /** already capped at the configured maximum */
  perPage: number;
  search?: string;
  include?: number[];
  exclude?: number[];
  order?: string;
  orderby?: string;
  hideEmpty: boolean;
  /** categories only; 0 lists top-level terms */
  parent?: number;
  /** event id */
  post?: number;
  slug?: string;
}

export interface TermPage {
  terms: TermRow[];
  total: number;
  totalPages: number;
}

/** Fields of a term write; absent fields keep their value on update. */
export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  /** 0 is top level */
  parent?: number;
}

export interface TermService {
  taxonomy: Taxonomy;
  /** Find a term by id, slug or name (in that order for numbers; slug then name for text). */
  find(db: Executor, ref: string | number): Promise<TermRow | undefined>;
  /** Whether every entry of a list filter names an existing term (is_event_category / is_post_tag). */
  validateRefs(value: unknown): Promise<boolean>;
  /** Ids for an event list filter; categories include their descendants. */
  filterIds(value: unknown): Promise<number[]>;
  /**
   * For event writes: at most MAX_TERMS_PER_WRITE entries (else the message), numeric ids must
   * exist; other entries are found by slug/name or created.
   */
  validateWriteRefs(value: unknown, argName?: string): Promise<boolean | string>;
  /**
   * Resolve a write value to ids, creating missing names (if the viewer may manage terms): at most
   * MAX_TERMS_PER_WRITE entries, and at most `newTerms.left` created (the count is shared by the
   * taxonomies of one write and taken from; default MAX_NEW_TERMS_PER_WRITE). 400 beyond either,
   * before anything is created.
   */
  idsForWrite(db: Executor, value: unknown, viewer: Viewer, argName: string, newTerms?: { left: number }): Promise<number[]>;
  /** Create a term (name is stored WordPress-style); throws ApiError term_exists on a duplicate sibling. */
  create(db: Executor, input: { name: string; slug?: string; description?: string; parent?: number }, param?: string): Promise<number>;
  load(db: Executor, ids: number[]): Promise<TermRow[]>;
  /** The term of this taxonomy with this id. */
  get(id: number): Promise<TermRow | undefined>;
  /** Ids of the terms a list value names (ids, slugs or names); unknown entries are left out. */
  refIds(value: unknown): Promise<number[]>;
  /** Whether the value is the id of an event (any status), as the `post`/`event` filters need. */
  isEventRef(value: unknown): Promise<boolean>;
  /** A page of terms; `count` 0 terms are hidden with `hideEmpty` (categories keep used descendants' ancestors). */
  list(args: TermListArgs): Promise<TermPage>;
  /** Create a term in a transaction of its own and return it. */
  add(input: TermInput & { name: string }): Promise<TermRow>;
  /** Change the fields given; returns the updated term. */
  update(term: TermRow, input: TermInput): Promise<TermRow>;
  /** Delete for good (children move to the term's parent, event links go); returns the term as it was. */
  remove(term: TermRow): Promise<TermRow>;
}

/**
 * Issue 24: at most this many entries (ids, slugs or names) in one event write's `categories`, and
 * as many in its `tags` (400 `rest_invalid_param` beyond, before anything is looked up).
 */
export const MAX_TERMS_PER_WRITE = 100;
/**
 * Issue 24: at most this many terms that do not exist yet may one event write create, categories
 * and tags together (400 `rest_invalid_param` beyond; nothing is written).
 */
export const MAX_NEW_TERMS_PER_WRITE = 20;

/** The message of a write naming more than MAX_TERMS_PER_WRITE terms. */
export function tooManyTerms(param: string): string {
  return `${param} may name at most ${MAX_TERMS_PER_WRITE} terms.`;
}

/** The longest term name or slug stored (the columns' size, as WordPress' `varchar(200)`). */
export const TERM_NAME_MAX = 200;

/** The message of a term name over {@link TERM_NAME_MAX} characters. */
export function termNameTooLong(param: string): string {
  return `${param} must be at most ${TERM_NAME_MAX} characters long.`;
}

/** Split a write value (CSV string or array) into entries; '' and [] give no entries. */
export function termEntries(value: unknown): Array<string | number> {
  if (isEmptyValue(value)) return [];
  const items = Array.isArray(value) ? value : String(value).split(',');
  const out: Array<string | number> = [];
  for (const item of items) {
    if (item === null || item === undefined || typeof item === 'object') continue;
    const s = String(item).trim();
    if (s === '') continue;
    out.push(isNumeric(s) ? Number(s) : s);
  }
  return out;
}

export function createTermService(db: Executor, taxonomy: Taxonomy): TermService {
  const traits = TAXONOMY_TRAITS[taxonomy];

  /** The stored form of a name; a name with nothing left (e.g. only markup) or too long is refused. */
  const storedName = (name: string, param = 'name'): string => {
    const stored = termText(name);
    if (stored.trim() === '') throw apiError('empty_term_name');
    if (stored.length > TERM_NAME_MAX) throw invalidParams({ [param]: termNameTooLong(param) });
    return stored;
  };

  /** Parent checks shared by create and update: hierarchy, existence. */
  const checkParent = async (trx: Executor, parent: number | undefined): Promise<number> => {
    if (parent === undefined) return 0;
    if (!traits.hierarchical) throw apiError('rest_taxonomy_not_hierarchical');
    if (parent !== 0 && !(await termsStore.findTerm(trx, taxonomy, parent))) throw apiError('rest_term_invalid');
    return parent;
  };

  /** Answers of `validateRefs`, per data revision (kept state, `kept.ts`). */
  const knownRefs = createRevisionCache<boolean>(1000, { owner: db, kind: 'term_refs' });
  const service: TermService = {
    taxonomy,

    async find(trx, ref) {
      if (typeof ref === 'number' || isNumeric(ref)) {
        const byId = await termsStore.findTerm(trx, taxonomy, Number(ref));
        if (byId) return byId;
      }
      const text = String(ref);
      const bySlug = await termsStore.findTermBySlug(trx, taxonomy, sanitizeSlug(text));
      if (bySlug) return bySlug;
      const byName = await termsStore.findTermsByName(trx, taxonomy, termText(text));
      return byName[0];
    },

    async validateRefs(value) {
      const refs = listToArray(value);
      if (refs.length === 0) return false;
      // The answer only changes with the data: kept per data revision (read first).
      const revision = await revisionOfHandle(db);
      const key = JSON.stringify(refs);
      const kept = revision === undefined ? undefined : knownRefs.at(revision).get(key);
      if (kept !== undefined) return kept;
      let valid = true;
      for (const ref of refs) {
        if (!(await service.find(db, ref))) {
          valid = false;
          break;
        }
      }
      if (revision !== undefined) knownRefs.at(revision).set(key, valid);
      return valid;
    },

    async filterIds(value) {
      const ids: number[] = [];
      for (const ref of listToArray(value)) {
        const term = await service.find(db, ref);
        if (term) ids.push(Number(term.id));
      }
      if (taxonomy === 'tribe_events_cat' && ids.length) ids.push(...(await termsStore.descendantTermIds(db, taxonomy, ids)));
      return [...new Set(ids)];
    },

    async validateWriteRefs(value, argName = taxonomy === 'post_tag' ? 'tags' : 'categories') {
      const entries = termEntries(value);
      if (entries.length > MAX_TERMS_PER_WRITE) return tooManyTerms(argName);
      const numbers = [...new Set(entries.filter((e): e is number => typeof e === 'number'))];
      // A name that would be created must fit the column.
      if (entries.some((e) => typeof e === 'string' && termText(e).length > TERM_NAME_MAX)) return false;
      if (numbers.length === 0) return true;
      const found = new Set((await termsStore.findTermsByIds(db, numbers)).filter((t) => t.taxonomy === taxonomy).map((t) => Number(t.id)));
      return numbers.every((n) => found.has(n));
    },

    async idsForWrite(trx, value, viewer, argName, newTerms = { left: MAX_NEW_TERMS_PER_WRITE }) {
      const entries = termEntries(value);
      // Imports (the CLI, run by the operator) bring what the source has: the limits are the API's.
      const limited = !inImportContext();
      if (limited && entries.length > MAX_TERMS_PER_WRITE) throw invalidParams({ [argName]: tooManyTerms(argName) });
      // A term named by id may have been deleted since the arguments were validated (by a
      // concurrent write): the write answers as validation then would have. SQLite checks in its
      // transaction; on PostgreSQL the link's foreign key refuses it (23503, a race lost: the write
      // runs again, `isLostRace`) and the attempt run again checks.
      const byId = entries.filter((e): e is number => typeof e === 'number');
      if (byId.length && trx.isTransaction && (dialectOfHandle(db) === 'sqlite' || isRepeatedWrite(trx))) {
        const existing = await termsStore.existingTermIds(trx, taxonomy, byId);
        if (byId.some((id) => !existing.has(id))) throw invalidParams({ [argName]: 'Invalid parameter.' });
      }
      const ids: Array<number | string> = [];
      const toCreate = new Set<string>();
      for (const entry of entries) {
        if (typeof entry === 'number') {
          ids.push(entry);
          continue;
        }
        const existing = await service.find(trx, entry);
        if (existing) {
          ids.push(Number(existing.id));
          continue;
        }
        if (!canManageTerms(viewer, taxonomy)) {
          throw invalidParams({ [argName]: `The term "${entry}" does not exist and you are not allowed to create it.` });
        }
        ids.push(entry);
        toCreate.add(entry);
      }
      // Counted before any is created: a write over the limit creates none.
      if (limited && toCreate.size > newTerms.left) {
        throw invalidParams({ [argName]: `One write may create at most ${MAX_NEW_TERMS_PER_WRITE} new terms (categories and tags together); create them first (POST /categories, /tags).` });
      }
      newTerms.left -= toCreate.size;
      // Look again under the taxonomy's lock (store/locks.ts): a concurrent write naming the same
      // new term may have created it since (PostgreSQL); then this write links to it, as it would
      // had it come second on SQLite (one term, every write succeeds).
      if (toCreate.size) await lockForWrite(trx, `term:${taxonomy}`);
      const created = new Map<string, number>();
      const out: number[] = [];
      for (const entry of ids) {
        if (typeof entry === 'number') out.push(entry);
        else {
          // The same new name twice in one value: created once (the second would find it).
          let id = created.get(entry);
          if (id === undefined) {
            const again = await service.find(trx, entry);
            id = again ? Number(again.id) : await service.create(trx, { name: entry }, argName);
            created.set(entry, id);
          }
          out.push(id);
        }
      }
      return [...new Set(out)];
    },

    async create(trx, input, param = 'name') {
      const name = storedName(input.name, param);
      const parent = await checkParent(trx, input.parent);
      // Look-up and insert must not race with another create of the taxonomy (store/locks.ts).
      await lockForWrite(trx, `term:${taxonomy}`);
      const siblings = await termsStore.findTermsByName(trx, taxonomy, name, parent);
      if (siblings.length) {
        const termId = Number(siblings[0].id);
        throw apiError(traits.existsCode, {
          data: { term_id: termId },
          extra: { additional_data: [termId, termId] },
        });
      }
      const base = sanitizeSlug(input.slug ?? '') || sanitizeSlug(name) || sanitizeSlug(String(Date.now()));
      const slug = await uniqueSlug(base, (candidate) => termsStore.isTermSlugTaken(trx, taxonomy, candidate));
      return termsStore.insertTerm(trx, {
        taxonomy,
        name,
        slug,
        description: input.description ? termText(input.description, 'description') : '',
        parent_id: parent,
        count: 0,
      });
    },

    load: (trx, ids) => termsStore.findTermsByIds(trx, ids),

    get: (id) => termsStore.findTerm(db, taxonomy, id),

    async refIds(value) {
      const ids: number[] = [];
      for (const ref of listToArray(value)) {
        const term = await service.find(db, ref);
        if (term) ids.push(Number(term.id));
      }
      return [...new Set(ids)];
    },

    async isEventRef(value) {
      return isPositiveInt(value) && (await postsStore.postTypeOf(db, Number(value))) === 'tribe_events';
    },

    async list(args) {
      const perPage = Math.max(1, args.perPage);
      const { rows, total } = await termsStore.listTerms(db, {
        taxonomy,
        search: args.search,
        include: args.include,
        exclude: args.exclude,
        parentId: traits.hierarchical ? args.parent : undefined,
        eventId: args.post,
        slug: args.slug === undefined ? undefined : sanitizeSlug(args.slug),
        hideEmpty: args.hideEmpty,
        keepAncestors: traits.hierarchical,
        orderBy: (args.orderby !== undefined && termOrderBy(args.orderby)) || 'name',
        order: args.order !== undefined && args.order.toLowerCase() === 'desc' ? 'desc' : 'asc',
        limit: perPage,
        offset: (args.page - 1) * perPage,
      });
      return { terms: rows, total, totalPages: Math.ceil(total / perPage) };
    },

    async add(input) {
      return writeTransaction(db, async (trx) => {
        const id = await service.create(trx, input);
        return (await termsStore.findTerm(trx, taxonomy, id))!;
      });
    },

    async update(term, input) {
      return writeTransaction(db, async (trx) => {
        const id = Number(term.id);
        const patch: TermPatch = {};
        if (input.name !== undefined) patch.name = storedName(input.name);
        if (input.description !== undefined) patch.description = termText(input.description, 'description');
        if (input.parent !== undefined) {
          const parent = await checkParent(trx, input.parent);
          if (parent !== 0 && (parent === id || (await termsStore.descendantTermIds(trx, taxonomy, [id])).includes(parent))) {
            throw invalidParams({ parent: 'A category cannot be moved under itself or one of its descendants.' });
          }
          patch.parent_id = parent;
        }
        if (input.slug !== undefined) {
          const wanted = sanitizeSlug(input.slug).slice(0, TERM_NAME_MAX).replace(/-+$/, '');
          if (wanted === '') {
            // WordPress: an empty slug is made from the name, unique.
            const base = sanitizeSlug(patch.name ?? term.name) || term.slug;
            patch.slug = await uniqueSlug(base, (c) => termsStore.isTermSlugTaken(trx, taxonomy, c, id));
          } else if (await termsStore.isTermSlugTaken(trx, taxonomy, wanted, id)) {
            throw apiError('duplicate_term_slug', { args: [wanted] });
          } else patch.slug = wanted;
        }
        await termsStore.updateTerm(trx, id, patch);
        return (await termsStore.findTerm(trx, taxonomy, id))!;
      });
    },

    async remove(term) {
      await writeTransaction(db, (trx) => termsStore.deleteTerm(trx, term));
      return term;
    },
  };
  return service;
}
