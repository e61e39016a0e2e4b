/**
 * References to terms (ids, slugs or names, COMPAT decision 4): list filters' validation (kept
 * per data revision) and ids (categories with their descendants), event writes' validation and
 * ids (creating missing names, within the limits per write), and the `post`/`event` filter.
 *
 * @example
 *   await refs.filterIds('jazz,2')                        // [3, 2, …children]
 *   await refs.idsForWrite(trx, ['Concerts'], viewer, 'categories') // creates "Concerts" when the viewer may
 */
import * as postsStore from '../../store/posts.js';
import * as termsStore from '../../store/terms.js';
import { lockForWrite } from '../../store/locks.js';
import { dialectOfHandle, revisionOfHandle } from '../../store/revision.js';
import { isRepeatedWrite } from '../../store/changes.js';
import { inImportContext } from '../../store/import-context.js';
import { invalidParams } from '../errors.js';
import { createRevisionCache } from '../kept.js';
import { canManageTerms } from '../permissions.js';
import { termText } from '../text/kses.js';
import { isPositiveInt, listToArray } from '../values.js';
import type { TermReadModel } from './read-model.js';
import { MAX_NEW_TERMS_PER_WRITE, MAX_TERMS_PER_WRITE, TERM_NAME_MAX, termEntries, tooManyTerms } from './rules.js';
import type { TermService, TermServiceDeps } from './types.js';
import type { TermWrites } from './writes.js';

/** What the service answers about references. */
export type TermRefs = Pick<TermService, 'validateRefs' | 'filterIds' | 'validateWriteRefs' | 'idsForWrite' | 'refIds' | 'isEventRef'>;

export function createRefs(deps: TermServiceDeps, readModel: TermReadModel, writes: TermWrites): TermRefs {
  const { db, taxonomy } = deps;
  /** Answers of `validateRefs`, per data revision (kept state, `kept.ts`). */
  const knownRefs = createRevisionCache<boolean>(1000, { owner: db, kind: 'term_refs' });
  return {
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
        if (!(await readModel.find(ref))) {
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
        const term = await readModel.find(ref);
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
        const existing = await readModel.find(entry, trx);
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
            const again = await readModel.find(entry, trx);
            id = again ? Number(again.id) : await writes.create(trx, { name: entry }, argName);
            created.set(entry, id);
          }
          out.push(id);
        }
      }
      return [...new Set(out)];
    },

    async refIds(value) {
      const ids: number[] = [];
      for (const ref of listToArray(value)) {
        const term = await readModel.find(ref);
        if (term) ids.push(Number(term.id));
      }
      return [...new Set(ids)];
    },

    async isEventRef(value) {
      return isPositiveInt(value) && (await postsStore.postTypeOf(db, Number(value))) === 'tribe_events';
    },
  };
}
