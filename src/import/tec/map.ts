/**
 * `import tec`, from the source's JSON to this service's records (the importer in fetch,
 * map and apply): the fields of events, venues and organizers as the domain services take them,
 * costs, excerpts, fingerprints, and whether an occurrence differs from its series. Pure functions:
 * the references (venue, organizers, terms, author) are resolved by the caller.
 *
 * @example
 *   const input = eventFields(tecEvent, { author: 1, venue: 0, organizer: [], categories: [], tags: [] });
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import type { EventInput } from '../../domain/events/index.js';
import { ImportError } from '../source.js';

export type Json = Record<string, any>;
/** `series`: a TEC Pro recurring event (its parent's id) imported here as a series. */
export type Kind = 'category' | 'tag' | 'venue' | 'organizer' | 'event' | 'user' | 'series';

export const ZERO_DATE = '0000-00-00 00:00:00';
/** The list window: all dates (the default window ends 24 months ahead). */
export const ALL_DATES = { start_date: '1900-01-01 00:00:00', end_date: '2200-12-31 23:59:59' };

/** This service's administration namespace, where it offers its event index. */
export const ADMIN_NAMESPACE = 'calendar/admin/v1';

export const fingerprint = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
export const reason = (err: unknown) =>
  err instanceof ApiError ? `${err.code}: ${err.message}${(err.data as Json).params ? ' ' + JSON.stringify((err.data as Json).params) : ''}` : (err as Error).message;

/** A record-level failure (the record is reported failed, the import goes on). */
export const recordFailure = (message: string) => Object.assign(new ImportError(message), { recordLevel: true });

export const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

/** The stored form of an excerpt from its wire form (wpautop's `<p>…</p>` wrapping removed when it is the whole text). */
export function stripAutop(value: string): string {
  const m = /^<p>([\s\S]*)<\/p>\s*$/.exec(value);
  return m && !m[1]!.includes('<p>') ? m[1]!.replace(/<br \/>\n/g, '\n') : value;
}

/** Categories sorted parents first (then by id). */
export function parentsFirst(categories: Json[]): Json[] {
  const byId = new Map(categories.map((c) => [Number(c.id), c]));
  const depth = (c: Json, seen = new Set<number>()): number => {
    const parent = byId.get(Number(c.parent));
    if (!parent || seen.has(Number(c.id))) return 0;
    seen.add(Number(c.id));
    return 1 + depth(parent, seen);
  };
  return categories.sort((a, b) => depth(a) - depth(b) || Number(a.id) - Number(b.id));
}

/** The fields of a venue or organizer, its author resolved. */
export function linkedFields(kind: 'venue' | 'organizer', v: Json, author: number): Record<string, unknown> {
  const out: Record<string, unknown> = { [kind]: String(v[kind] ?? ''), description: String(v.description ?? ''), status: String(v.status ?? 'publish') };
  const fields = kind === 'venue' ? ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'] : ['phone', 'website', 'email'];
  for (const f of fields) out[f] = String(v[f] ?? '');
  if (kind === 'venue') {
    out.show_map = Boolean(v.show_map);
    out.show_map_link = Boolean(v.show_map_link);
  }
  out.image = v.image && typeof v.image === 'object' && v.image.url ? String(v.image.url) : '';
  out.author = author;
  return out;
}

/** What the services do not write of a venue or organizer: its excerpt. */
export const linkedExtra = (v: Json) => ({ excerpt: stripAutop(String(v.excerpt ?? '')) });
/** A venue's coordinates as at the source. */
export const linkedDetails = (kind: 'venue' | 'organizer', v: Json) => (kind === 'venue' ? { geo_lat: v.geo_lat ?? null, geo_lng: v.geo_lng ?? null } : {});

export function costInput(e: Json): unknown {
  const d = e.cost_details as Json | undefined;
  const values: string[] = Array.isArray(d?.values) ? d!.values.map(String) : [];
  // Labels come slugged in `values` ("Free" → "free"): then the displayed cost is the input.
  if (values.length === 0 || values.some((v) => !/^-?\d+(\.\d+)?$/.test(v))) {
    return String(e.cost ?? '')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#0?39;/g, "'");
  }
  const symbol = String(d?.currency_symbol ?? '');
  return values.map((v) => (d?.currency_position === 'postfix' ? `${v}${symbol}` : `${symbol}${v}`));
}

/** An event's references, resolved to local ids. */
export interface EventRefs {
  author: number;
  venue: number;
  organizer: number[];
  categories: number[];
  tags: number[];
}

/** The event write of a TEC event, its references resolved. */
export function eventFields(e: Json, refs: EventRefs): EventInput {
  const input: EventInput = {
    author: refs.author,
    title: String(e.title ?? ''),
    description: String(e.description ?? ''),
    excerpt: String(e.excerpt ?? ''),
    slug: String(e.slug ?? '').replace(/__trashed$/, ''),
    status: String(e.status ?? 'publish'),
    timezone: String(e.timezone ?? ''),
    all_day: Boolean(e.all_day),
    start_date: String(e.start_date),
    end_date: String(e.end_date),
    image: e.image && typeof e.image === 'object' && e.image.url ? String(e.image.url) : '',
    cost: costInput(e),
    show_map: Boolean(e.show_map),
    show_map_link: Boolean(e.show_map_link),
    hide_from_listings: Boolean(e.hide_from_listings),
    sticky: Boolean(e.sticky),
    featured: Boolean(e.featured),
    venue: refs.venue,
    organizer: refs.organizer,
    categories: refs.categories,
    tags: refs.tags,
  };
  // A website equal to the permalink is the original's fallback for "none".
  if (typeof e.website === 'string' && e.website !== e.url) input.website = e.website;
  if (typeof e.date_utc === 'string' && e.date_utc !== ZERO_DATE) input.date_utc = e.date_utc;
  return input;
}

/** Whether an occurrence differs from its series (edited alone), for sources without the index. */
export function differsFromSeries(o: Json, s: Json): boolean {
  if (o.start_date !== o.original_start_date) return true;
  const span = (e: Json) => Date.parse(String(e.utc_end_date).replace(' ', 'T') + 'Z') - Date.parse(String(e.utc_start_date).replace(' ', 'T') + 'Z');
  if (span(o) !== span(s)) return true;
  const ids = (v: unknown) => (Array.isArray(v) ? v.map((x: Json) => Number(x.id)).sort((a, b) => a - b) : v && typeof v === 'object' ? [Number((v as Json).id)] : []);
  const same = (k: string) => JSON.stringify(o[k]) === JSON.stringify(s[k]);
  const fields = ['title', 'description', 'excerpt', 'status', 'all_day', 'timezone', 'cost', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'author'];
  if (!fields.every(same)) return true;
  if ((o.image?.url ?? '') !== (s.image?.url ?? '')) return true;
  return ['venue', 'organizer', 'categories', 'tags'].some((k) => JSON.stringify(ids(o[k])) !== JSON.stringify(ids(s[k])));
}
