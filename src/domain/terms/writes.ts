/**
 * Term writes: create (a duplicate sibling is refused), partial update (a category is not moved
 * under itself; a slug another term has is refused), delete, the last three in write transactions
 * of their own (the routes).
 *
 * @example
 *   const writes = createWrites(deps);
 *   await writes.update(term, { description: '' }) // clears the description
 */
import type { Executor } from '../../store/schema.js';
import type { TermPatch } from '../../store/term-writes.js';
import * as termsStore from '../../store/terms.js';
import { lockForWrite } from '../../store/locks.js';
import { writeTransaction } from '../../store/changes.js';
import { apiError, invalidParams } from '../errors.js';
import { sanitizeSlug, uniqueSlug } from '../slugs.js';
import { termText } from '../text/kses.js';
import { TERM_NAME_MAX, termNameTooLong } from './rules.js';
import type { TermService, TermServiceDeps } from './types.js';

/** The write side of the service. */
export type TermWrites = Pick<TermService, 'create' | 'add' | 'update' | 'remove'>;

export function createWrites(deps: TermServiceDeps): TermWrites {
  const { db, taxonomy, traits } = deps;

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

  const writes: TermWrites = {
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

    async add(input) {
      return writeTransaction(db, async (trx) => {
        const id = await writes.create(trx, input);
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
  return writes;
}
