/**
 * Argument declarations shared by several routes (paging, ids), written once.
 *
 * @example args: { page: pageArg(), per_page: perPageArg(services, 'events') }
 */
import type { ArgSpec, Args } from '../route.js';
import { isNumeric, isPositiveInt, isPositiveIntegral } from '../../domain/values.js';
import { invalidParams } from '../../domain/errors.js';
import { passwordFailure } from '../../domain/post-passwords.js';

/**
 * `holder`: an editor page's (or a stream's) token for its own post lock: letters, digits, `-` and
 * `_`, 1 to 64.
 */
export function holderArg(description = "The editor page's token (letters, digits, '-' and '_'; 1 to 64): its lock is its own, released by its own DELETE or stream end only"): ArgSpec {
  return { type: 'string', description, validate: (v) => typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v) };
}

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

/**
 * Ours, on the write routes of events, venues and organizers: WordPress' post password, which
 * withholds the record's content from readers until they give it ('' removes it; at most 255
 * characters, stored as given).
 */
export function postPasswordArg(noun: string): ArgSpec {
  return {
    type: 'string',
    description: `A password that withholds the ${noun} content from readers until it is given ('' removes it)`,
    validate: (v) => passwordFailure(v) ?? true,
  };
}

/** The path `id` of item routes. */
export function idArg(description: string): ArgSpec {
  return { type: 'integer', description, required: true, in: 'path' };
}

/** The path `slug` of by-slug routes. */
export function slugArg(description: string): ArgSpec {
  return { type: 'string', description, required: true, in: 'path' };
}

/**
 * `geoloc_radius` and `geoloc_unit` (beyond the original): the circle around
 * `geoloc_lat`/`geoloc_lng`, default GEOLOC_RADIUS in GEOLOC_UNIT.
 */
export function geolocRadiusArgs(defaults: { radius: number; unit: 'mi' | 'km' }): Args {
  return {
    geoloc_radius: {
      format: 'double',
      docType: 'number',
      description: `The radius around geoloc_lat and geoloc_lng, in geoloc_unit (default ${defaults.radius} ${defaults.unit}); needs geoloc_lat and geoloc_lng`,
      validate: (v) => (isNumeric(v) && Number(v) > 0 && Number(v) <= 40075) || 'geoloc_radius must be a positive number (at most 40075).',
      sanitize: (v) => Number(v),
    },
    geoloc_unit: {
      type: 'string',
      enum: ['mi', 'km'],
      description: `The unit of geoloc_radius: mi (miles) or km (kilometres); default ${defaults.unit}`,
      validate: (v) => (typeof v === 'string' && ['mi', 'km'].includes(v.toLowerCase())) || 'geoloc_unit must be mi or km.',
      sanitize: (v) => String(v).toLowerCase(),
    },
  };
}

/** A latitude (-90..90) or longitude (-180..180) argument of a list's geolocation filter. */
export function geolocCoordinateArg(axis: 'lat' | 'lng', description: string): ArgSpec {
  const limit = axis === 'lat' ? 90 : 180;
  return {
    format: 'double',
    docType: 'number',
    description,
    validate: (v) => isNumeric(v) && Math.abs(Number(v)) <= limit,
    sanitize: (v) => Number(v),
  };
}

/** 400 when only one of geoloc_lat/geoloc_lng is given, or a radius without the point. */
export function checkGeolocArgs(a: { geoloc_lat?: number; geoloc_lng?: number; geoloc_radius?: number }): void {
  if ((a.geoloc_lat === undefined) !== (a.geoloc_lng === undefined)) {
    const missing = a.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng';
    throw invalidParams({ [missing]: `${missing} must be given together with ${missing === 'geoloc_lat' ? 'geoloc_lng' : 'geoloc_lat'}.` });
  }
  if (a.geoloc_radius !== undefined && a.geoloc_lat === undefined) {
    throw invalidParams({ geoloc_radius: 'geoloc_radius needs geoloc_lat and geoloc_lng.' });
  }
}
