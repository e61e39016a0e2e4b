/**
 * Representations of password-protected records (WordPress' post_password): the mark a
 * representation carries of its record's password (a symbol-keyed property, which JSON never
 * serializes and object spreads copy, so kept representations and their copies keep it), and the
 * original's removal of the protected content from a representation (TEC's
 * `remove_password_protected_content`: the listed fields emptied, recursively).
 *
 * @example
 *   const json = toEventJson(record, …);          // marked when record.password is set
 *   representedPassword(json)                      // 'secret'
 *   withholdProtected(json)                        // a copy: description '', venue [], cost '' …
 */
import { isProtected, type PasswordHolder } from '../post-passwords.js';

const PASSWORD = Symbol('post password');

type Marked = Record<string | symbol, unknown>;

/** Mark a representation with its record's password (nothing for a record without one). */
export function markProtected<T extends Record<string, unknown>>(json: T, record: PasswordHolder): T {
  if (isProtected(record)) (json as Marked)[PASSWORD] = record.password;
  return json;
}

/** The password of the record a representation was built from, '' when it has none. */
export function representedPassword(json: object): string {
  const value = (json as Marked)[PASSWORD];
  return typeof value === 'string' ? value : '';
}

/**
 * The fields the original empties in the representation of a protected record, with what it puts
 * instead (`null` stands for PHP's 'null'): events', venues' and organizers' fields in one list,
 * as the original has them.
 */
const PROTECTED_FIELDS: Readonly<Record<string, unknown>> = {
  description: '',
  excerpt: '',
  image: false,
  all_day: null,
  cost: '',
  cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
  website: '',
  show_map: null,
  show_map_link: null,
  hide_from_listings: null,
  sticky: null,
  featured: null,
  categories: [],
  tags: [],
  venue: [],
  organizer: [],
  ticketed: null,
  is_virtual: null,
  virtual_url: '',
  virtual_video_source: '',
  attendance: { total_attendees: null, checked_in: null, not_checked_in: null },
  custom_fields: [],
  email: '',
  phone: '',
  geo_lat: 0,
  geo_lng: 0,
  stateprovince: '',
  zip: '',
  province: '',
  country: '',
  city: '',
  address: '',
};

/** What of a withheld record's `json_ld` stays: what says what and when it is, nothing of its content. */
const KEPT_JSON_LD = new Set(['@context', '@type', 'name', 'url', 'eventAttendanceMode', 'startDate', 'endDate']);

/**
 * The representation without the protected content (a copy; the mark stays): each listed field
 * present is replaced, every other object or list is walked the same way, as the original does.
 * Unlike the original, `json_ld` keeps only its type, name, address (URL) and dates (the original walks
 * it like the rest, which leaves the telephone, the coordinates and the web site in it).
 */
export function withholdProtected(json: Record<string, unknown>): Record<string, unknown> {
  const out = walk(json) as Record<string, unknown>;
  if (out.json_ld && typeof out.json_ld === 'object') out.json_ld = withheldJsonLd(json.json_ld as Record<string, unknown>);
  const password = (json as Marked)[PASSWORD];
  if (password !== undefined) (out as Marked)[PASSWORD] = password;
  return out;
}

/** A schema.org object of a protected record (a venue's Place, an organizer's Person) as it may be shown. */
export function withheldJsonLd(jsonLd: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(jsonLd).filter(([k]) => KEPT_JSON_LD.has(k)));
}

/**
 * An event's representation with its protected venue and organizers (marked ones) without their
 * content, as the original embeds them whoever reads the event (its venue and organizer data
 * filters know no request password); the same object when none is protected.
 */
export function withEmbeddedWithheld(json: Record<string, unknown>): Record<string, unknown> {
  const venue = json.venue as Record<string, unknown> | [];
  const organizers = (json.organizer as Array<Record<string, unknown>> | undefined) ?? [];
  const venueProtected = !Array.isArray(venue) && representedPassword(venue) !== '';
  const organizersProtected = organizers.some((o) => representedPassword(o) !== '');
  if (!venueProtected && !organizersProtected) return json;
  const out: Record<string, unknown> = { ...json };
  if (venueProtected) out.venue = withholdProtected(venue as Record<string, unknown>);
  if (organizersProtected) out.organizer = organizers.map((o) => (representedPassword(o) !== '' ? withholdProtected(o) : o));
  return out;
}

function walk(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(walk);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (Object.hasOwn(PROTECTED_FIELDS, key)) out[key] = structuredClone(PROTECTED_FIELDS[key]);
    else out[key] = walk(v);
  }
  return out;
}
