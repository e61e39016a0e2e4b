/**
 * `{REST_ROOT}/calendar/embed/v1`: what embeds read, declared like every other route (so
 * they appear in this namespace's index and `/doc`):
 *
 * - `GET /fullcalendar?start=…&end=…[&timeZone=…]`: a FullCalendar event source (its JSON feed
 *   protocol): the events overlapping [start, end) as FullCalendar event objects (`id`, `title`,
 *   `start`, `end`, `allDay`, `url`, `extendedProps`), recurring occurrences included (they are
 *   ordinary events of the lists), with the list's filters (categories, tags, venue, organizer,
 *   featured, search, status) and `limit` (the first N, as the `<events-calendar>` component asks).
 *   Anonymous callers see published events only; authenticated ones what the REST list shows them.
 *   The range is at most MAX_RANGE_DAYS; answers carry the list's ETag and answer 304.
 *
 * Dates: `start`/`end` are ISO 8601 (a date, or a date and time with or without an offset); without
 * an offset they are read in `timeZone` (`UTC` or an IANA name), or, for `local` (FullCalendar's
 * default, which sends no `timeZone`), in the site's zone. Answers write timed events' dates in
 * `timeZone`: `…Z` for UTC, the zone's wall time without offset for an IANA name (what FullCalendar
 * expects of a named zone without a time-zone plugin), and the event's own wall time with its
 * offset for `local`. All-day events are dates, the end exclusive (the day after the last).
 *
 * @example GET /api/calendar/embed/v1/fullcalendar?start=2027-06-01T00:00:00&end=2027-07-13T00:00:00&timeZone=Europe/Paris
 */
import { DateTime } from 'luxon';
import { EMBED_NAMESPACE } from '../../config.js';
import { apiError } from '../../domain/errors.js';
import { plusDays, toWallTime, utcMsAsWall, wallAsUtcMs } from '../../domain/dates/wall.js';
import { zoneOf } from '../../domain/dates/zones.js';
import { isKnownIanaZone } from '../../domain/dates/zones.js';
import { costShown } from '../../domain/representations/event.js';
import { imageDetails } from '../../domain/representations/image.js';
import { decodeEntities } from '../../domain/plain-text.js';
import type { EventListArgs } from '../../domain/events/index.js';
import { eventListArgs } from './events.js';
import type { Services } from '../../domain/services.js';
import { isPositiveInt } from '../../domain/values.js';
import { anyone, endpoint, route, type Args, type RouteDecl } from '../route.js';
import { docRoutes } from './doc.js';
import { registerKept } from '../../metrics.js';
import { namespaceRoutes } from './namespace.js';

export { EMBED_NAMESPACE };

/** The longest range one request may ask for (a year view and some margin). */
export const MAX_RANGE_DAYS = 400;
/** The most events one answer holds (the first in start order). */
export const MAX_EVENTS = 1000;
/** Events turned into event objects between two turns of the event loop. */
const BUILD_CHUNK = 200;
/** Wait for the next turn of the event loop. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Wall times of any zone lie within these many hours of UTC (UTC-12 to UTC+14), and a margin. */
const ZONE_SPREAD_HOURS = 15;

/** ISO 8601 as FullCalendar sends it: a date, or a date and time, with or without an offset. */
const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** What `timeZone` asks for: `local` (FullCalendar's default), `UTC`, or an IANA zone name. */
type RequestZone = { kind: 'local' } | { kind: 'utc' } | { kind: 'named'; name: string };

function requestZoneOf(value: unknown): RequestZone {
  if (value === undefined || value === null || value === '' || value === 'local') return { kind: 'local' };
  if (typeof value === 'string' && /^(utc|z|etc\/utc)$/i.test(value)) return { kind: 'utc' };
  return { kind: 'named', name: String(value) };
}

const isZoneValue = (v: unknown) => typeof v === 'string' && (v === 'local' || /^(utc|z|etc\/utc)$/i.test(v) || (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(v) && isKnownIanaZone(v)));

/** An ISO 8601 string read in `zone` when it has no offset; invalid for anything else. */
function parseInstant(value: string, zone: string): DateTime {
  if (!ISO_RE.test(value)) return DateTime.invalid('not ISO 8601');
  return DateTime.fromISO(value, { zone: zoneOf(zone), setZone: false });
}

const isoDate = (v: unknown) => typeof v === 'string' && parseInstant(v, 'UTC').isValid;

/** The filters of the list: the REST list's own arguments (validation, references, visibility). */
function filterArgs(services: Services): Args {
  const { categories, tags, venue, organizer, featured, search, status } = eventListArgs(services);
  return {
    categories: categories!,
    tags: tags!,
    venue: venue!,
    organizer: organizer!,
    featured: featured!,
    search: search!,
    status: { ...status!, description: 'The event post status (authenticated callers who may edit events; anonymous callers see published events only)' },
  };
}

/** The representation fields the source reads. */
interface ListedEvent {
  id: number;
  title: string;
  url: string;
  status?: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  timezone_abbr: string;
  cost: string;
  featured: boolean;
  excerpt?: string;
  image: false | { url: string; alt?: string; width?: number | false; height?: number | false; sizes?: Record<string, { url: string; width: number; height: number }> };
  venue: { id: number; venue: string; url: string; address?: string; city?: string; country?: string; stateprovince?: string; zip?: string } | [];
  organizer: Array<{ id: number; organizer: string; url: string }>;
  categories: Array<{ id: number; name: string; slug: string }>;
  tags: Array<{ id: number; name: string; slug: string }>;
}

/*
 * Dates per event by plain arithmetic on the representation's wall times, and zone offsets looked
 * up once per zone and hour: parsing and converting each date with Luxon cost about 0.1 ms an
 * event, and an answer holds up to a thousand.
 */
const HOUR_MS = 3_600_000;

/**
 * Zone offsets (minutes) by zone and UTC hour, when the same over the whole hour (no zone changes
 * its offset twice within an hour); NaN for an hour with a change, computed exactly each time.
 * Bounded: zone names come from requests.
 */
const hourOffsets = new Map<string, number>();
registerKept(undefined, 'zone_hour_offsets', { entries: () => hourOffsets.size, maxEntries: 20_000 });
const offsetOf = (zone: string, ms: number) => DateTime.fromMillis(ms, { zone }).offset;
function zoneOffsetAt(zone: string, ms: number): number {
  const hour = Math.floor(ms / HOUR_MS);
  const key = `${zone}|${hour}`;
  let offset = hourOffsets.get(key);
  if (offset === undefined) {
    const first = offsetOf(zone, hour * HOUR_MS);
    offset = first === offsetOf(zone, hour * HOUR_MS + HOUR_MS - 1) ? first : NaN;
    if (hourOffsets.size >= 20_000) hourOffsets.clear();
    hourOffsets.set(key, offset);
  }
  return Number.isNaN(offset) ? offsetOf(zone, ms) : offset;
}

/** A UTC wall time as the wall time of an IANA zone, `YYYY-MM-DDTHH:MM:SS`. */
function zoneIsoWall(utcWall: string, zone: string): string {
  const ms = wallAsUtcMs(utcWall);
  // As Luxon computes a wall time (minutes to milliseconds in this order: offsets before 1900 have seconds).
  return isoWall(utcMsAsWall(ms + zoneOffsetAt(zone, ms) * 60 * 1000));
}

const isoWall = (wall: string) => wall.replace(' ', 'T');

/** The day after `day` (`YYYY-MM-DD`). */
const nextDay = (day: string) => plusDays(day, 1);

/** One event as a FullCalendar event object, its dates written for the request's zone. */
export function fullCalendarEvent(e: ListedEvent, zone: RequestZone): Record<string, unknown> {
  let start: string;
  let end: string;
  if (e.all_day) {
    start = e.start_date.slice(0, 10);
    end = nextDay(e.end_date.slice(0, 10));
  } else if (zone.kind === 'utc') {
    start = `${isoWall(e.utc_start_date)}Z`;
    end = `${isoWall(e.utc_end_date)}Z`;
  } else if (zone.kind === 'named') {
    start = zoneIsoWall(e.utc_start_date, zone.name);
    end = zoneIsoWall(e.utc_end_date, zone.name);
  } else {
    const own = (wall: string, utcWall: string) => {
      const minutes = Math.round((wallAsUtcMs(wall) - wallAsUtcMs(utcWall)) / 60_000);
      const sign = minutes < 0 ? '-' : '+';
      const abs = Math.abs(minutes);
      return `${isoWall(wall)}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    };
    start = own(e.start_date, e.utc_start_date);
    end = own(e.end_date, e.utc_end_date);
  }
  const venue = Array.isArray(e.venue) ? null : e.venue;
  return {
    id: String(e.id),
    title: decodeEntities(e.title),
    start,
    end,
    allDay: e.all_day,
    url: e.url,
    extendedProps: {
      venue: venue
        ? {
            id: venue.id,
            name: decodeEntities(venue.venue),
            url: venue.url,
            address: venue.address ?? '',
            city: venue.city ?? '',
            stateprovince: venue.stateprovince ?? '',
            zip: venue.zip ?? '',
            country: venue.country ?? '',
          }
        : null,
      organizers: e.organizer.map((o) => ({ id: o.id, name: decodeEntities(o.organizer), url: o.url })),
      categories: e.categories.map((c) => ({ id: c.id, name: decodeEntities(c.name), slug: c.slug })),
      tags: e.tags.map((c) => ({ id: c.id, name: decodeEntities(c.name), slug: c.slug })),
      cost: costShown(e),
      featured: e.featured,
      image: e.image ? e.image.url : null,
      ...(e.image ? imageProps(e.image) : {}),
      timezone: e.timezone,
      timezoneAbbr: e.timezone_abbr,
      localStart: isoWall(e.start_date),
      localEnd: isoWall(e.end_date),
      ...(e.status !== undefined && e.status !== 'publish' ? { status: e.status } : {}),
    },
  };
}

/**
 * The featured image beside its URL (`image`): its alt text (the media library's; '' when none),
 * dimensions, and a `srcset` of its resized variants (the cropped thumbnail left out), so that a
 * calendar can show it without layout shift at the size it needs.
 */
function imageProps(image: Exclude<ListedEvent['image'], false>): Record<string, unknown> {
  const variants = Object.entries(image.sizes ?? {}).filter(([name]) => name !== 'thumbnail');
  const srcset = variants.map(([, s]) => `${s.url} ${s.width}w`);
  if (srcset.length && typeof image.width === 'number') srcset.push(`${image.url} ${image.width}w`);
  return {
    imageAlt: image.alt || imageDetails(image)?.alt || '',
    imageWidth: typeof image.width === 'number' ? image.width : null,
    imageHeight: typeof image.height === 'number' ? image.height : null,
    imageSrcset: srcset.join(', '),
  };
}

export function embedRoutes(services: Services): RouteDecl[] {
  const routes: RouteDecl[] = [];
  routes.push(...namespaceRoutes(services, () => routes));
  routes.push(...docRoutes(services, () => routes));
  routes.push(
    route('/fullcalendar', [
      endpoint({
        methods: ['GET'],
        args: {
          start: { type: 'string', required: true, description: 'The start of the range (ISO 8601; without an offset, read in timeZone)', validate: isoDate },
          end: { type: 'string', required: true, description: 'The end of the range, exclusive (ISO 8601; without an offset, read in timeZone)', validate: isoDate },
          timeZone: {
            type: 'string',
            default: 'local',
            description: "The zone of start and end without an offset and of the answer's dates: local (the site's zone for the range), UTC or an IANA name",
            validate: isZoneValue,
          },
          ...filterArgs(services),
          limit: { type: 'integer', description: `At most this many events, the first in start order (at most ${MAX_EVENTS})`, validate: (v) => isPositiveInt(v) && Number(v) <= MAX_EVENTS },
        },
        permission: anyone,
        versioning: { kind: 'list' },
        docs: {
          summary: 'FullCalendar event source',
          responses: { '200': { description: 'FullCalendar event objects overlapping the range' }, '400': { description: 'A bad date, zone or filter, or a range too wide' } },
        },
        handler: async (ctx) => {
          const zone = requestZoneOf(ctx.args.timeZone);
          const readZone = zone.kind === 'named' ? zone.name : zone.kind === 'utc' ? 'UTC' : services.config.timezone;
          const from = parseInstant(ctx.args.start, readZone).toUTC();
          const to = parseInstant(ctx.args.end, readZone).toUTC();
          if (to <= from) throw apiError('rest_embed_range_empty');
          if (to.diff(from, 'days').days > MAX_RANGE_DAYS) throw apiError('rest_embed_range_too_wide', { args: [MAX_RANGE_DAYS] });
          const limit = ctx.args.limit !== undefined ? Number(ctx.args.limit) : MAX_EVENTS;
          // Wall times of the events' own zones lie within ZONE_SPREAD_HOURS of UTC: ask for the events
          // overlapping that wider range (however long before it they began), then keep what overlaps
          // the range exactly.
          const args: EventListArgs = {
            page: 1,
            per_page: Math.min(MAX_EVENTS, limit + 50),
            range: { overlaps: { from: toWallTime(from.minus({ hours: ZONE_SPREAD_HOURS })), until: toWallTime(to.plus({ hours: ZONE_SPREAD_HOURS })) } },
            // Pages are read until the limit or the last: no total is counted.
            countTotal: false,
          };
          for (const name of ['categories', 'tags', 'venue', 'organizer', 'featured', 'search', 'status'] as const) {
            if (ctx.args[name] !== undefined && ctx.args[name] !== null) (args as unknown as Record<string, unknown>)[name] = ctx.args[name];
          }
          const fromMs = from.toMillis();
          const toMs = to.toMillis();
          // All-day events are days read in the request's zone (the site's for local), the end exclusive.
          const dayZone = zoneOf(zone.kind === 'named' ? zone.name : zone.kind === 'utc' ? 'UTC' : services.config.timezone);
          const dayStarts = new Map<string, number>();
          const dayStart = (day: string) => {
            let ms = dayStarts.get(day);
            if (ms === undefined) dayStarts.set(day, (ms = DateTime.fromISO(day, { zone: dayZone }).toMillis()));
            return ms;
          };
          const overlaps = (e: ListedEvent) => {
            if (e.all_day) return dayStart(e.start_date.slice(0, 10)) < toMs && dayStart(nextDay(e.end_date.slice(0, 10))) > fromMs;
            const s = wallAsUtcMs(e.utc_start_date);
            const x = wallAsUtcMs(e.utc_end_date);
            return s < toMs && (x > fromMs || (x === s && s >= fromMs));
          };
          const out: Record<string, unknown>[] = [];
          let done = 0;
          for (;;) {
            const page = await services.reader.list(ctx.viewer, args, ctx.links, ctx.reserve);
            for (const e of page.events) {
              if (out.length >= limit) break;
              // Up to a thousand events: built in steps, other requests running in between.
              if (++done % BUILD_CHUNK === 0) await nextTurn();
              if (overlaps(e)) out.push(fullCalendarEvent(e, zone));
            }
            if (out.length >= limit || args.page >= page.totalPages || args.page * args.per_page >= MAX_EVENTS + 50) break;
            args.page += 1;
          }
          return { body: out };
        },
      }),
    ]),
  );
  return routes;
}
