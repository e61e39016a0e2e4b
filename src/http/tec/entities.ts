/**
 * The `tec/v1` shapes of events, venues and organizers: WordPress core's post object (`id`, `date`,
 * `guid`, `title.rendered`, `content.rendered`, ...) with The Events Calendar's model properties
 * (`start_date`, `dates`, `schedule_details`, `venues`, ...), in the original's key order. Built
 * from the same representations the legacy namespace answers with (the domain's one reading of a
 * record), so both namespaces say the same of one record.
 *
 * @example
 *   const [legacy] = await services.events.represent([record], viewer, 'single', links);
 *   tecEvent(legacy, { siteTimezone: 'UTC', now: '2025-06-13 17:25:00', ... }) // { id, date: '2025-06-13T17:25:00', ... }
 */
import { formatWall } from '../../domain/php-date.js';
import { utcToWall, wallAsUtcMs } from '../../domain/dates/wall.js';

type Json = Record<string, any>;

/** How a record's password stands for this request: none, or its content withheld (locked) or given (unlocked). */
export type Protection = 'none' | 'locked' | 'unlocked';

/** The post types of the three entities. */
export type EntityType = 'tribe_events' | 'tribe_venue' | 'tribe_organizer';

/** What a shape needs besides the record: the site's zone and formats, and the time now (UTC). */
export interface EntityEnv {
  /** SITE_URL, without a trailing slash */
  siteUrl: string;
  siteTimezone: string;
  dateFormat: string;
  timeFormat: string;
  /** now, UTC wall time ('Y-m-d H:i:s') */
  nowUtc: string;
  /** Whether the record has a password, and whether this request may see its content (default: none). */
  protection?: (legacy: Json, type: EntityType) => Protection;
}

/** What a password-protected record shows in place of its content, as the original does. */
export const PASSWORD_PROTECTED = 'Password protected';

/**
 * WordPress' title filters (wptexturize, convert_chars) on a plain title: ampersands as `&#038;`,
 * apostrophes and quotes curled, dashes and ellipses as their entities.
 */
export function renderedTitle(title: unknown): string {
  // The legacy shape leaves out a title that filtering emptied.
  return String(title ?? '')
    .replace(/&(?!#?\w+;)/g, '&#038;')
    .replace(/\.\.\./g, '&#8230;')
    .replace(/ -- /g, ' &#8212; ')
    .replace(/ - /g, ' &#8211; ')
    .replace(/(^|[\s([{])'/g, '$1&#8216;')
    .replace(/'/g, '&#8217;')
    .replace(/(^|[\s([{])"/g, '$1&#8220;')
    .replace(/"/g, '&#8221;');
}

const iso = (wall: unknown): string => (typeof wall === 'string' ? wall.replace(' ', 'T') : '');

/** WordPress' generated excerpt: the content's text, 55 words, in a paragraph. */
function excerptOf(excerptHtml: string, contentHtml: string): string {
  if (excerptHtml.trim() !== '') return excerptHtml;
  const text = contentHtml
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return '';
  const words = text.split(' ');
  const kept = words.length > 55 ? `${words.slice(0, 55).join(' ')} [&hellip;]` : text;
  return `<p>${kept}</p>\n`;
}

/** WordPress' post classes: the post, its type and status, then its terms. */
function classList(legacy: Json, type: string, protection: Protection): string[] {
  const out = [`post-${legacy.id}`, type, `type-${type}`, `status-${legacy.status}`];
  if (protection === 'locked') out.push('post-password-required');
  else if (protection === 'unlocked') out.push('post-password-protected');
  if (legacy.image && typeof legacy.image === 'object') out.push('has-post-thumbnail');
  out.push('hentry');
  for (const t of (legacy.tags ?? []) as Json[]) out.push(`tag-${t.slug}`);
  for (const c of (legacy.categories ?? []) as Json[]) out.push(`tribe_events_cat-${c.slug}`);
  return out;
}

/** WordPress' wptexturize on HTML: the text between tags, not the tags, nor what code, pre, script and style hold. */
export function texturizeHtml(html: string): string {
  let skip = 0;
  return html
    .split(/(<[^>]*>)/)
    .map((part) => {
      if (part.startsWith('<')) {
        const m = /^<(\/?)(pre|code|kbd|style|script|tt)\b/i.exec(part);
        if (m) skip += m[1] === '/' ? -1 : 1;
        return part;
      }
      return skip > 0 ? part : renderedTitle(part);
    })
    .join('');
}

const UNPUBLISHED = new Set(['draft', 'pending', 'auto-draft']);

/** The WordPress core part of a post entity (WP_REST_Posts_Controller's fields). */
function postPart(legacy: Json, type: string, title: string, protection: Protection, siteUrl: string): Json {
  const raw = texturizeHtml(typeof legacy.description === 'string' ? legacy.description : '');
  // WordPress' the_content ends its paragraphs with a newline.
  const content = raw !== '' && !raw.endsWith('\n') ? `${raw}\n` : raw;
  const rawExcerpt = texturizeHtml(typeof legacy.excerpt === 'string' ? legacy.excerpt : '');
  const excerpt = rawExcerpt !== '' && !rawExcerpt.endsWith('\n') ? `${rawExcerpt}\n` : rawExcerpt;
  const locked = protection === 'locked';
  const shown = protection === 'unlocked';
  // WordPress names a post not yet published by its id, and gives it its slug when published.
  const unpublished = UNPUBLISHED.has(legacy.status);
  const link = unpublished ? `${siteUrl}/?post_type=${type}&p=${legacy.id}` : legacy.url;
  return {
    id: Number(legacy.id),
    date: iso(legacy.date),
    date_gmt: iso(legacy.date_utc),
    guid: { rendered: link },
    modified: iso(legacy.modified),
    modified_gmt: iso(legacy.modified_utc),
    slug: unpublished ? '' : legacy.slug,
    status: legacy.status,
    type,
    link,
    title: { rendered: renderedTitle(title) },
    content: locked ? { rendered: PASSWORD_PROTECTED, protected: null } : { rendered: content, protected: shown },
    excerpt: locked ? { rendered: PASSWORD_PROTECTED, protected: null } : { rendered: excerptOf(excerpt, content), protected: shown },
    author: Number(legacy.author),
    featured_media: legacy.image && typeof legacy.image === 'object' ? Number(legacy.image.id) : 0,
    template: locked ? PASSWORD_PROTECTED : '',
  };
}

/** A venue as `tec/v1` answers it. */
export function tecVenue(legacy: Json, env: EntityEnv): Json {
  const protection = env.protection?.(legacy, 'tribe_venue') ?? 'none';
  const protectedPost = protection === 'locked';
  const base = postPart(legacy, 'tribe_venue', legacy.venue, protection, env.siteUrl);
  const field = (v: unknown) => (protectedPost ? PASSWORD_PROTECTED : typeof v === 'string' ? v : '');
  const address = [legacy.address, legacy.city, legacy.stateprovince || legacy.state || legacy.province, legacy.zip, legacy.country].filter((x) => typeof x === 'string' && x !== '').join(' ');
  return {
    ...base,
    address: field(legacy.address),
    country: field(legacy.country),
    city: field(legacy.city),
    state_province: field(legacy.stateprovince),
    state: field(legacy.state),
    province: field(legacy.province),
    zip: field(legacy.zip),
    phone: field(legacy.phone),
    directions_link: protectedPost
      ? PASSWORD_PROTECTED
      : address === ''
        ? ''
        : `https://maps.google.com/maps?f=q&#038;source=s_q&#038;hl=en&#038;geocode=&#038;q=${encodeURIComponent(address).replace(/%20/g, '+')}`,
    website: field(legacy.website),
  };
}

/** An organizer as `tec/v1` answers it. */
export function tecOrganizer(legacy: Json, env: EntityEnv): Json {
  const protection = env.protection?.(legacy, 'tribe_organizer') ?? 'none';
  const protectedPost = protection === 'locked';
  const base = postPart(legacy, 'tribe_organizer', legacy.organizer, protection, env.siteUrl);
  const field = (v: unknown) => (protectedPost ? PASSWORD_PROTECTED : typeof v === 'string' ? v : '');
  return { ...base, phone: field(legacy.phone), website: field(legacy.website), email: field(legacy.email) };
}

/** PHP's DateTime as JSON: `{ date: 'Y-m-d H:i:s.000000', timezone_type: 3, timezone }`. */
const phpDate = (wall: string, timezone: string) => ({ date: `${wall}.000000`, timezone_type: 3, timezone });
const PROTECTED_DATE = { date: '1970-01-01 00:00:00.000000', timezone_type: 0, timezone: PASSWORD_PROTECTED };

/** Calendar days from one wall date to another. */
function daysBetween(from: string, to: string): number {
  return Math.round((wallAsUtcMs(`${to.slice(0, 10)} 00:00:00`) - wallAsUtcMs(`${from.slice(0, 10)} 00:00:00`)) / 86_400_000);
}

/** The original's schedule details (tribe_events_event_schedule_details), long and short. */
function scheduleDetails(start: string, end: string, allDay: boolean, multiday: boolean, env: EntityEnv): { long: string; short: string } {
  const thisYear = env.nowUtc.slice(0, 4);
  const day = (wall: string) => formatWall(wall, wall.slice(0, 4) === thisYear ? 'F j' : env.dateFormat);
  const time = (wall: string) => formatWall(wall, env.timeFormat);
  const span = (cls: string, text: string) => `<span class="tribe-event-${cls}">${text}</span>`;
  if (allDay) {
    const long = multiday ? `${span('date-start', day(start))} - ${span('date-end', day(end))}` : span('date-start', day(start));
    return { long, short: multiday ? long : span('date-start', day(start)) };
  }
  if (multiday) {
    const long = `${span('date-start', `${day(start)} @ ${time(start)}`)} - ${span('date-end', `${day(end)} @ ${time(end)}`)}`;
    return { long, short: long };
  }
  if (start === end) return { long: span('date-start', `${day(start)} @ ${time(start)}`), short: span('date-start', time(start)) };
  return {
    long: `${span('date-start', `${day(start)} @ ${time(start)}`)} - ${span('time', time(end))}`,
    short: `${span('date-start', time(start))} - ${span('time', time(end))}`,
  };
}

/** An event as `tec/v1` answers it, its venues and organizers embedded in their own `tec/v1` shapes. */
export function tecEvent(legacy: Json, env: EntityEnv): Json {
  const protection = env.protection?.(legacy, 'tribe_events') ?? 'none';
  const protectedPost = protection === 'locked';
  const base = postPart(legacy, 'tribe_events', legacy.title, protection, env.siteUrl);
  const categories = ((legacy.categories ?? []) as Json[]).map((t) => Number(t.id));
  const tags = ((legacy.tags ?? []) as Json[]).map((t) => Number(t.id));
  const venues = Array.isArray(legacy.venue) ? (legacy.venue as Json[]) : legacy.venue && typeof legacy.venue === 'object' ? [legacy.venue as Json] : [];
  const organizers = (legacy.organizer ?? []) as Json[];
  const head = { ...base, tags, tribe_events_cat: categories, class_list: classList(legacy, 'tribe_events', protection) };
  const nullWeek = { starts_this_week: null, ends_this_week: null, this_week_duration: null, happens_this_week: null, displays_on: [] };
  if (protectedPost) {
    const dates = Object.fromEntries(['start', 'start_utc', 'start_site', 'start_display', 'end', 'end_utc', 'end_site', 'end_display'].map((k) => [k, PROTECTED_DATE]));
    return {
      ...head,
      start_date: PASSWORD_PROTECTED,
      start_date_utc: PASSWORD_PROTECTED,
      end_date: PASSWORD_PROTECTED,
      end_date_utc: PASSWORD_PROTECTED,
      dates,
      timezone: PASSWORD_PROTECTED,
      duration: PASSWORD_PROTECTED,
      multiday: null,
      is_past: null,
      is_now: null,
      all_day: null,
      ...nullWeek,
      featured: null,
      sticky: null,
      cost: PASSWORD_PROTECTED,
      organizer_names: organizers.map(() => PASSWORD_PROTECTED),
      organizers: [],
      venues: [],
      schedule_details: PASSWORD_PROTECTED,
      short_schedule_details: PASSWORD_PROTECTED,
    };
  }
  const tz = typeof legacy.timezone === 'string' && legacy.timezone !== '' ? legacy.timezone : env.siteTimezone;
  const start: string = legacy.start_date;
  const end: string = legacy.end_date;
  const startUtc: string = legacy.utc_start_date;
  const endUtc: string = legacy.utc_end_date;
  const allDay = Boolean(legacy.all_day);
  const durationSeconds = Math.max(0, Math.round((wallAsUtcMs(endUtc) - wallAsUtcMs(startUtc)) / 1000));
  const span = daysBetween(start, end) + 1;
  const multiday = span > 1 ? span : false;
  const schedule = scheduleDetails(start, end, allDay, multiday !== false, env);
  return {
    ...head,
    start_date: start,
    start_date_utc: startUtc,
    end_date: end,
    end_date_utc: endUtc,
    dates: {
      start: phpDate(start, tz),
      start_utc: phpDate(startUtc, 'UTC'),
      start_site: phpDate(utcToWall(startUtc, env.siteTimezone), env.siteTimezone),
      start_display: phpDate(start, tz),
      end: phpDate(end, tz),
      end_utc: phpDate(endUtc, 'UTC'),
      end_site: phpDate(utcToWall(endUtc, env.siteTimezone), env.siteTimezone),
      end_display: phpDate(end, tz),
    },
    timezone: tz,
    duration: String(durationSeconds),
    multiday,
    is_past: endUtc < env.nowUtc,
    is_now: startUtc <= env.nowUtc && env.nowUtc <= endUtc,
    all_day: allDay,
    ...nullWeek,
    featured: Boolean(legacy.featured),
    sticky: Boolean(legacy.sticky),
    cost: typeof legacy.cost === 'string' ? legacy.cost : '',
    // The organizers' titles as WordPress prints them: a protected one's with its prefix.
    organizer_names: organizers.map((o) => ((env.protection?.(o, 'tribe_organizer') ?? 'none') === 'none' ? String(o.organizer ?? '') : `Protected: ${String(o.organizer ?? '')}`)),
    organizers: organizers.map((o) => tecOrganizer(o, env)),
    venues: venues.map((v) => tecVenue(v, env)),
    // The original leaves them empty when the password opened the record.
    schedule_details: protection === 'unlocked' ? '' : schedule.long,
    short_schedule_details: protection === 'unlocked' ? '' : schedule.short,
  };
}
