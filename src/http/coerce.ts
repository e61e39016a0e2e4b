/**
 * WordPress' JSON-schema type handling of request args (rest_parse_request_arg): check the
 * declared type and coerce query/form strings to it.
 *
 * @example
 *   coerceType('featured', 'true', 'boolean') // { ok: true, value: true }
 *   coerceType('featured', 'yes', 'boolean')  // { ok: false, failure: { message: 'featured is not of type boolean.', … } }
 *   listLengthFailure('tags', '1,2,3', { items: { type: 'integer' }, maxItems: 2 }) // { message: 'tags must contain at most 2 items.', … }
 */
import type { ParamFailure } from '../domain/errors.js';
import { maxItemsOf, type ArgSpec, type JsonType } from './route.js';
import { fitsInteger, INTEGER_MAX, INTEGER_MIN, isNumeric } from '../domain/values.js';

export type Coerced = { ok: true; value: unknown } | { ok: false; failure: ParamFailure };

function typeFailure(name: string, type: string): Coerced {
  const message = `${name} is not of type ${type}.`;
  return { ok: false, failure: { message, detail: { code: 'rest_invalid_type', message, data: { param: name } } } };
}

/** WordPress' `rest_out_of_bounds` (an integer beyond the schema's minimum/maximum). */
function outOfBounds(name: string, min: number, max: number): Coerced {
  const message = `${name} must be between ${min} (inclusive) and ${max} (inclusive)`;
  return { ok: false, failure: { message, detail: { code: 'rest_out_of_bounds', message, data: { param: name } } } };
}

/**
 * Check `value` against `type` and return it coerced. Integers must fit an `integer` column
 * (−2³¹ … 2³¹ − 1) unless `unbounded`; numbers must be finite (`1e400` is not).
 */
export function coerceType(name: string, value: unknown, type: JsonType, unbounded = false): Coerced {
  switch (type) {
    case 'integer': {
      if (typeof value === 'boolean' || !isNumeric(value)) return typeFailure(name, 'integer');
      const n = Number(value);
      if (!Number.isInteger(n)) return typeFailure(name, 'integer');
      if (!unbounded && !fitsInteger(n)) return outOfBounds(name, INTEGER_MIN, INTEGER_MAX);
      return { ok: true, value: n };
    }
    case 'number': {
      if (typeof value === 'boolean' || !isNumeric(value) || !Number.isFinite(Number(value))) return typeFailure(name, 'number');
      return { ok: true, value: Number(value) };
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { ok: true, value };
      if (value === 0 || value === 1) return { ok: true, value: value === 1 };
      if (typeof value === 'string') {
        const v = value.toLowerCase();
        if (v === 'true' || v === '1') return { ok: true, value: true };
        if (v === 'false' || v === '0') return { ok: true, value: false };
      }
      return typeFailure(name, 'boolean');
    }
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : typeFailure(name, 'string');
    case 'array': {
      if (Array.isArray(value)) return { ok: true, value };
      if (typeof value === 'string') return { ok: true, value: value.split(/[\s,]+/).filter((s) => s !== '') };
      return typeFailure(name, 'array');
    }
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ok: true, value } : typeFailure(name, 'object');
  }
}

/** How a string value of a list arg splits into items. */
type Separator = 'comma' | 'comma-or-space' | 'line';

/** The length of the separator at `i` (0 when there is none). */
function separatorAt(text: string, i: number, separator: Separator): number {
  const c = text.charCodeAt(i);
  if (separator === 'line') return c === 0x0a ? 1 : 0;
  if (c === 0x2c) return 1;
  // `%2C`: the original's list_to_array decodes the string before splitting it.
  if (c === 0x25 && text.charCodeAt(i + 1) === 0x32 && (text.charCodeAt(i + 2) | 0x20) === 0x63) return 3;
  return separator === 'comma-or-space' && isSpace(c) ? 1 : 0;
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * The number of items of a list value, counted no further than `limit + 1` (so that a huge value
 * costs no more than a small one): an array's elements, an object's keys (a query string's
 * `a[500]=x` beyond qs' array limit), a string's non-empty parts; a scalar is one item.
 */
export function countListItems(value: unknown, separator: Separator, limit: number): number {
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') {
    let n = 0;
    for (const key in value) if (Object.hasOwn(value, key) && ++n > limit) break;
    return n;
  }
  if (typeof value !== 'string') return 1;
  let n = 0;
  let inItem = false;
  for (let i = 0; i < value.length;) {
    const skip = separatorAt(value, i, separator);
    if (skip > 0) {
      inItem = false;
      i += skip;
      continue;
    }
    // An item is a part with something besides white space (list_to_array trims and drops empty ones).
    if (!inItem && !isSpace(value.charCodeAt(i))) {
      inItem = true;
      if (++n > limit) break;
    }
    i++;
  }
  return n;
}

/**
 * The failure of a list arg holding more items than it takes (WordPress' `rest_too_many_items`
 * of `maxItems`), or undefined. Checked before the arg's validator, which may look every item up.
 */
export function listLengthFailure(name: string, value: unknown, spec: ArgSpec): ParamFailure | undefined {
  const max = maxItemsOf(spec);
  if (max === undefined) return undefined;
  const separator: Separator = spec.itemSeparator === 'line' ? 'line' : spec.type === 'array' ? 'comma-or-space' : 'comma';
  if (countListItems(value, separator, max) <= max) return undefined;
  const message = `${name} must contain at most ${max} ${max === 1 ? 'item' : 'items'}.`;
  return { message, detail: { code: 'rest_too_many_items', message, data: { param: name } } };
}
