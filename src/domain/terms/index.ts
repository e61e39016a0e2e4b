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
 *
 * The service is composed of parts: reads and the list (`read-model.ts`), writes (`writes.ts`) and
 * references (`refs.ts`); the vocabulary is in `types.ts`, the rules that need no store in
 * `rules.ts`.
 */
import type { Executor, Taxonomy } from '../../store/schema.js';
import { createReadModel } from './read-model.js';
import { createRefs } from './refs.js';
import { TAXONOMY_TRAITS } from './rules.js';
import type { TermService } from './types.js';
import { createWrites } from './writes.js';

export * from './types.js';
export * from './rules.js';

export function createTermService(db: Executor, taxonomy: Taxonomy): TermService {
  const deps = { db, taxonomy, traits: TAXONOMY_TRAITS[taxonomy] };
  const readModel = createReadModel(deps);
  const writes = createWrites(deps);
  const refs = createRefs(deps, readModel, writes);
  return {
    taxonomy,
    find: readModel.find,
    validateRefs: refs.validateRefs,
    filterIds: refs.filterIds,
    validateWriteRefs: refs.validateWriteRefs,
    idsForWrite: refs.idsForWrite,
    create: writes.create,
    load: readModel.load,
    get: readModel.get,
    refIds: refs.refIds,
    isEventRef: refs.isEventRef,
    list: readModel.list,
    add: writes.add,
    update: writes.update,
    remove: writes.remove,
  };
}
