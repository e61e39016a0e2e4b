/**
 * The shapes of term writes the domain builds (`domain/terms.ts`), so that Kysely's types stay in
 * the store: a term update is a patch of the `terms` row (`updateTerm` in `terms.ts` applies it).
 *
 * @example
 *   const patch: TermPatch = { name: 'Jazz', slug: 'jazz' };
 *   await updateTerm(trx, 3, patch);
 */
import type { Updateable } from 'kysely';
import type { TermsTable } from './schema.js';

/** The columns of a term an update sets (absent: unchanged). */
export type TermPatch = Updateable<TermsTable>;
