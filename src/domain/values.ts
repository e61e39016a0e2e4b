/**
 * Loose value helpers with PHP/WordPress semantics, shared by validators and domain rules.
 *
 * @example
 *   listToArray('jazz, 2') // ['jazz', 2]
 *   isTruthy('yes')        // true
 */

import { INTEGER_MAX } from '../store/ranges.js';

/** The integers a stored id or count can be (the store's `integer` columns), for the faces' argument checks. */
export { fitsInteger, INTEGER_MAX, INTEGER_MIN } from '../store/ranges.js';

/** PHP is_numeric for the values a request can carry. */
export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'string') return false;
  return /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value);
}

/** PHP empty(): '', '0', 0, false, null, undefined, [] (and {}). */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || value === '0') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value as object).length === 0;
  return false;
}

/** The Events Calendar's tribe_is_truthy. */
export function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['1', 'enable', 'enabled', 'on', 'y', 'yes', 'true'].includes(v)) return true;
    const n = parseInt(v, 10);
    return Number.isFinite(n) && n !== 0;
  }
  if (typeof value === 'number') return value !== 0;
  return Boolean(value) && !isEmptyValue(value);
}

/**
 * The Events Calendar's list_to_array: a CSV string (URL-decoded, split on commas, trimmed) or an
 * array, empty items dropped, numeric items as numbers.
 */
export function listToArray(value: unknown): Array<string | number> {
  if (isEmptyValue(value)) return [];
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') {
    let decoded = value;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      /* keep raw */
    }
    items = decoded.split(',');
  } else items = [value];
  const out: Array<string | number> = [];
  for (const item of items) {
    if (item === null || item === undefined || typeof item === 'object') continue;
    const s = typeof item === 'string' ? item.trim() : item;
    if (s === '' || s === false) continue;
    out.push(isNumeric(s) ? Number(s) : String(s));
  }
  return out;
}

/**
 * is_positive_int: numeric, integral and > 0; and at most the largest id a column holds (2³¹ − 1):
 * a larger number can be no record's id or page (`1e20`, `99999999999`) and must not reach SQL,
 * where PostgreSQL refuses it. (One argument only: it is passed to `Array.every`.)
 */
export function isPositiveInt(value: unknown): boolean {
  return isPositiveIntegral(value) && Number(value) <= INTEGER_MAX;
}

/** Numeric, integral and > 0, of any size (`per_page`, which lists cap themselves). */
export function isPositiveIntegral(value: unknown): boolean {
  if (!isNumeric(value)) return false;
  const n = Number(value);
  return Number.isInteger(n) && n > 0;
}
