/**
 * Argument declarations shared by several routes (paging, ids), written once.
 *
 * @example args: { page: pageArg(), per_page: perPageArg(services, 'events') }
 */
import type { ArgSpec } from '../route.js';
import { isPositiveInt, isPositiveIntegral } from '../../domain/values.js';

/** `page`: default 1, a positive integer. */
export function pageArg(): ArgSpec {
  return { default: 1, description: 'The archive page to return', type: 'integer', validate: (v) => isPositiveInt(v) };
}

/** `per_page`: default the site's page size (as a string, like the original), a positive integer. */
export function perPageArg(defaultPerPage: number, what: string): ArgSpec {
  return {
    default: String(defaultPerPage),
    description: `The number of ${what} to return on each page`,
    type: 'integer',
    // Any size: the list caps it at MAX_PER_PAGE (as the original), so it never reaches SQL as sent.
    validate: (v) => isPositiveIntegral(v),
    unbounded: true,
  };
}

/** A non-empty string (the original's is_string). */
export function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value !== '0';
}

/** A string, possibly empty (empty clears the field on update, COMPAT decision 1). */
export function isStringValue(value: unknown): boolean {
  return typeof value === 'string';
}

/** The path `id` of item routes. */
export function idArg(description: string): ArgSpec {
  return { type: 'integer', description, required: true, in: 'path' };
}

/** The path `slug` of by-slug routes. */
export function slugArg(description: string): ArgSpec {
  return { type: 'string', description, required: true, in: 'path' };
}
