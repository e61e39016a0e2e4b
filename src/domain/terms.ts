/**
 * Categories and tags as events use them: resolving references (ids, slugs or names) for list
 * filters and for writes (COMPAT decision 4), and keeping `count` right. One service per taxonomy,
 * the differences as data.
 *
 * @example
 *   const categories = createTermService(db, 'tribe_events_cat');
 *   await categories.filterIds('jazz,2')           // [3, 2, …children]
 *   await categories.idsForWrite(trx, ['Concerts'], viewer) // creates "Concerts" when the viewer may
 */
import type { Executor, Taxonomy, TermRow } from '../store/schema.js';
import * as termsStore from '../store/terms.js';
import { apiError, invalidParams } from './errors.js';
import { canManageTerms, type Viewer } from './permissions.js';
import { sanitizeSlug, uniqueSlug } from './slugs.js';
import { termText } from './text.js';
import { isEmptyValue, isNumeric, listToArray } from './values.js';

export interface TermService {
  taxonomy: Taxonomy;
  /** Find a term by id, slug or name (in that order for numbers; slug then name for text). */
  find(db: Executor, ref: string | number): Promise<TermRow | undefined>;
  /** Whether every entry of a list filter names an existing term (is_event_category / is_post_tag). */
  validateRefs(value: unknown): Promise<boolean>;
  /** Ids for an event list filter; categories include their descendants. */
  filterIds(value: unknown): Promise<number[]>;
  /** For event writes: numeric ids must exist; other entries are found by slug/name or created. */
  validateWriteRefs(value: unknown): Promise<boolean>;
  /** Resolve a write value to ids, creating missing names (if the viewer may manage terms). */
  idsForWrite(db: Executor, value: unknown, viewer: Viewer, argName: string): Promise<number[]>;
  /** Create a term (name is stored WordPress-style); throws ApiError term_exists on a duplicate sibling. */
  create(db: Executor, input: { name: string; slug?: string; description?: string; parent?: number }): Promise<number>;
  load(db: Executor, ids: number[]): Promise<TermRow[]>;
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
      for (const ref of refs) if (!(await service.find(db, ref))) return false;
      return true;
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

    async validateWriteRefs(value) {
      for (const entry of termEntries(value)) {
        if (typeof entry === 'number' && !(await termsStore.findTerm(db, taxonomy, entry))) return false;
      }
      return true;
    },

    async idsForWrite(trx, value, viewer, argName) {
      const ids: number[] = [];
      for (const entry of termEntries(value)) {
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
        ids.push(await service.create(trx, { name: entry }));
      }
      return [...new Set(ids)];
    },

    async create(trx, input) {
      const name = termText(input.name);
      const parent = taxonomy === 'tribe_events_cat' ? (input.parent ?? 0) : 0;
      const siblings = await termsStore.findTermsByName(trx, taxonomy, name, parent);
      if (siblings.length) {
        const termId = Number(siblings[0].id);
        throw apiError(taxonomy === 'tribe_events_cat' ? 'term_exists' : 'term_exists_tag', {
          data: { term_id: termId },
          extra: { additional_data: [termId, termId] },
        });
      }
      const base = sanitizeSlug(input.slug || name) || sanitizeSlug(String(Date.now()));
      const slug = await uniqueSlug(base, (candidate) => termsStore.isTermSlugTaken(trx, taxonomy, candidate));
      return termsStore.insertTerm(trx, {
        taxonomy,
        name,
        slug,
        description: input.description ? termText(input.description) : '',
        parent_id: parent,
        count: 0,
      });
    },

    load: (trx, ids) => termsStore.findTermsByIds(trx, ids),
  };
  return service;
}
