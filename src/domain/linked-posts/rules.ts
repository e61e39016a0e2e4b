/**
 * The rules of venue and organizer writes and lists that need no store: the write fields of each
 * kind, e-mail and coordinate checks, the derived `stateprovince`, the list search's fragments,
 * and the entries of an event write's `venue`/`organizer` value.
 *
 * @example
 *   isOrganizerEmail('info@example.com') // true
 *   deriveStateProvince({ state: 'CA', country: 'US' }) // 'CA'
 */
import type { LinkedKind } from '../../store/linked-posts.js';
import { invalidParams } from '../errors.js';
import { POST_STATUSES } from '../statuses.js';
import { isEmptyValue, isNumeric } from '../values.js';
import type { LinkedFieldNames } from './types.js';

/** WordPress' publication date of a never-published draft. */
export const ZERO_DATE = '0000-00-00 00:00:00';

/** Suffix the original gives the slug of a trashed post. */
export const TRASHED_SUFFIX = '__trashed';

/**
 * Event statuses that make a venue/organizer "have events" (behavior.md §10.2): every status but
 * draft and pending (and auto-draft); trashed, private and future events count.
 */
export const HAS_EVENTS_STATUSES: readonly string[] = POST_STATUSES.filter((s) => s !== 'draft' && s !== 'pending' && s !== 'auto-draft');

/**
 * Split a list `search` like the original's find_like: fragments separated by anything other
 * than letters, digits and `-`.
 *
 * @example searchFragments('france, ile de') // ['france', 'ile', 'de']
 */
export function searchFragments(search: string): string[] {
  return search.split(/[^\p{L}\p{N}-]+/u).filter((f) => f !== '');
}

/** How a list echoes `has_events` (PHP's add_query_arg: true → 1, false → 0). */
export function queryValue(value: unknown): string {
  if (value === true) return '1';
  if (value === false) return '0';
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

/**
 * Whether an organizer's e-mail is an address: WordPress's `is_email` rules (6 to 254 characters; a
 * local part of letters, digits and ``!#$%&'*+/=?^_`{|}~.-``; a domain of two or more dot-separated
 * labels of letters, digits and inner hyphens), so one a feed can write as `mailto:` without
 * escaping. The REST API stores any string, as the original does (`is_string_or_empty`); the
 * iCalendar writer writes `ORGANIZER` only for an address, the importer reads one only when it is.
 *
 * @example isOrganizerEmail('info@example.com') // true
 * @example isOrganizerEmail('not an address')   // false
 */
export function isOrganizerEmail(value: unknown): boolean {
  if (typeof value !== 'string' || value.length < 6 || value.length > 254) return false;
  const at = value.indexOf('@');
  if (at < 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(l));
}

/** The write fields of each kind beyond the shared post fields. */
export const LINKED_FIELDS: Record<LinkedKind, LinkedFieldNames> = {
  venue: {
    nameField: 'venue',
    textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'],
    urlFields: ['website'],
    flagFields: ['show_map', 'show_map_link'],
  },
  organizer: {
    nameField: 'organizer',
    textFields: ['phone', 'email'],
    urlFields: ['website'],
    flagFields: [],
  },
};

/**
 * A venue coordinate as written: absent, `""`/`null` (clears), or a number within ±limit (0 is one).
 *
 * @example isCoordinate('-33.86', 90) // true
 */
export function isCoordinate(value: unknown, limit: number): boolean {
  if (value === undefined || value === null || value === '') return true;
  return isNumeric(value) && Math.abs(Number(value)) <= limit;
}

/**
 * `stateprovince` when none is given (behavior.md §7.2): the state for US venues (or no country),
 * else the province, else ''.
 */
export function deriveStateProvince(fields: { state?: string; province?: string; country?: string }): string {
  const country = (fields.country ?? '').trim();
  if (fields.state && (country === '' || country === 'US' || country === 'United States')) return fields.state;
  return fields.province ?? '';
}

/** The entries of an event write's `venue`/`organizer` value, empty ones left out. */
export function refEntries(value: unknown): unknown[] {
  if (isEmptyValue(value)) return [];
  if (typeof value === 'string' || typeof value === 'number')
    return String(value)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(value)) return value.filter((v) => !isEmptyValue(v));
  return [value];
}

/** Whether an entry is a new record's fields (an object without an id), not a reference. */
export function isNewEntry(entry: unknown): entry is Record<string, unknown> {
  return entry !== null && typeof entry === 'object' && !Array.isArray(entry) && isEmptyValue((entry as Record<string, unknown>).id);
}

/**
 * Venue coordinates: `geo_lat`/`geo_lng` numbers (0 included) set them; `""` or
 * `null` in either clears both. Only one of them sent changes that one (the other must exist).
 */
export function coordinatesFrom(input: Record<string, unknown>, current?: { geo_lat: number | null; geo_lng: number | null }): Record<string, unknown> {
  const sent = (f: string) => f in input && input[f] !== undefined;
  if (!sent('geo_lat') && !sent('geo_lng')) return {};
  const clears = (f: string) => sent(f) && (input[f] === null || input[f] === '');
  if (clears('geo_lat') || clears('geo_lng')) return { geo_lat: null, geo_lng: null };
  const lat = sent('geo_lat') ? Number(input.geo_lat) : (current?.geo_lat ?? null);
  const lng = sent('geo_lng') ? Number(input.geo_lng) : (current?.geo_lng ?? null);
  if (lat === null || lng === null) {
    const missing = lat === null ? 'geo_lat' : 'geo_lng';
    throw invalidParams({ [missing]: `${missing} must be given together with ${missing === 'geo_lat' ? 'geo_lng' : 'geo_lat'}.` });
  }
  return { geo_lat: lat, geo_lng: lng };
}
