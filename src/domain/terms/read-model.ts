/**
 * Terms as read: one by id, slug or name, by ids, and a page of the list.
 *
 * @example
 *   const read = createReadModel(deps);
 *   await read.find(db, 'jazz') // the term with slug (or else name) "jazz"
 */
import * as termsStore from '../../store/terms.js';
import { sanitizeSlug } from '../slugs.js';
import { termText } from '../text/kses.js';
import { isNumeric } from '../values.js';
import { termOrderBy } from './rules.js';
import type { TermService, TermServiceDeps } from './types.js';

/** The read side of the service. */
export type TermReadModel = Pick<TermService, 'find' | 'load' | 'get' | 'list'>;

export function createReadModel(deps: TermServiceDeps): TermReadModel {
  const { db, taxonomy, traits } = deps;
  return {
    async find(ref, trx = db) {
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

    load: (ids, trx = db) => termsStore.findTermsByIds(trx, ids),

    get: (id) => termsStore.findTerm(db, taxonomy, id),

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
  };
}
