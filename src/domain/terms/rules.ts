/**
 * The rules of terms that need no store: each taxonomy's traits, the accepted `orderby` and
 * `order`, the limits of an event write's terms and of a name, and a write value's entries.
 *
 * @example
 *   termEntries('Jazz, 4') // ['Jazz', 4]
 *   termOrderBy('ID')      // 'id'
 */
import type { Taxonomy } from '../../store/schema.js';
import type { TermOrderBy } from '../../store/terms.js';
import { isEmptyValue, isNumeric } from '../values.js';
import type { TaxonomyTraits } from './types.js';

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

/**
 * At most this many entries (ids, slugs or names) in one event write's `categories`, and
 * as many in its `tags` (400 `rest_invalid_param` beyond, before anything is looked up).
 */
export const MAX_TERMS_PER_WRITE = 100;
/**
 * At most this many terms that do not exist yet may one event write create, categories
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
