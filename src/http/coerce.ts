/**
 * WordPress' JSON-schema type handling of request args (rest_parse_request_arg): check the
 * declared type and coerce query/form strings to it.
 *
 * @example
 *   coerceType('featured', 'true', 'boolean') // { ok: true, value: true }
 *   coerceType('featured', 'yes', 'boolean')  // { ok: false, failure: { message: 'featured is not of type boolean.', … } }
 */
import type { ParamFailure } from '../domain/errors.js';
import type { JsonType } from './route.js';
import { isNumeric } from '../domain/values.js';
import { fitsInteger, INTEGER_MAX, INTEGER_MIN } from '../store/ranges.js';

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
