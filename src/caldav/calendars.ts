/**
 * What the CalDAV face serves, read through the domain services with the caller's visibility
 * (anonymous: published events only; an editor: drafts, pending, private and scheduled too, as the
 * REST list shows them): the calendars (the whole site, and one per category by slug), the events
 * of a calendar (every event its list shows, past and future, recurring occurrences as resources of
 * their own), each event's ETag and iCalendar text (the feeds' VEVENT, `domain/ical.ts`), and the
 * changes since a sync token (RFC 6578), read from the change log through `store.changes`. A
 * listing of ETags (`listing`, `sync` without events) reads ids and versions only, never the events.
 *
 * ETags are the REST API's item tags with the variant `ics`: `"<database id>.e<id>.<version>.ics"`,
 * the version being the event's (`services.versions.of`: its last change, or its venue's, an
 * organizer's or a term's) named by its `versionTag` (domain/sync.ts), so a tag read here is accepted by the REST API's `If-Match` and the other
 * way round (both name the same database, record and version).
 *
 * @example
 *   const cals = createCalendars(services);
 *   const cal = await cals.resolve('category-concerts'); // undefined: no such category
 *   const members = await cals.members(ANONYMOUS, cal!);
 */
import { DateTime } from 'luxon';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import { ApiError } from '../domain/errors.js';
import { icalendar } from '../domain/ical.js';
import type { Viewer } from '../domain/permissions.js';
import type { PublicEvent } from '../domain/public-records.js';
import type { Services } from '../domain/services.js';
import { DeltaTooLarge, decodeSyncToken, encodeSyncToken, versionTag, type SyncDelta } from '../domain/sync.js';
import type { EventListArgs } from '../domain/events/index.js';

/** A calendar collection: the whole site (`events`) or a category (`category-{slug}`). */
export interface CalendarRef {
  /** the path segment under the calendar home */
  key: string;
  /** the category's slug, for a category calendar */
  slug?: string;
  name: string;
  description: string;
  /** place among the calendars (Apple's calendar-order) */
  order: number;
}

/** A calendar object resource as a listing names it: one event's id, its ETag and its version's time. */
export interface Listed {
  id: number;
  etag: string;
  /** UTC `YYYY-MM-DD HH:MM:SS` of the event's version */
  lastModified: string | undefined;
}

/** A calendar object resource with its event (for its iCalendar text). */
export interface Member extends Listed {
  event: PublicEvent;
}

/** A sync token that cannot be used (RFC 6578 `valid-sync-token`: the client syncs from scratch). */
export class InvalidSyncToken extends Error {}

/** What a sync-collection report answers. */
export interface SyncResult {
  /** events shown now (changed since the token, or all of them on an initial sync); without their events when not asked for */
  changed: Array<Member | Listed>;
  /** ids of events the caller saw since the token and no longer sees */
  removed: number[];
  /** the next token (a URI) */
  token: string;
  /** more changes remain: the answer stopped early (507 on the collection, RFC 6578 §3.6) */
  truncated: boolean;
}

/**
 * Events read per page when listing a calendar (the list's `range` mode is not capped), and
 * versions read between two turns of the event loop: a large calendar is listed in steps that let
 * other requests run (SQLite answers synchronously, so a long chain of reads would hold the loop).
 * A page's representations are built in one step when not kept: 100 of them held the loop about
 * 20 ms of CPU in a cold calendar-query of 1,000 events with calendar-data, 200 about 60 ms.
 */
const PAGE = 100;
const VERSION_CHUNK = 500;
/** Ids read per statement when listing a calendar without its events. */
const ID_PAGE = 2000;

/** Wait for the next turn of the event loop. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The URI prefix of sync tokens (RFC 6578 requires a URI; the rest is the REST API's signed token). */
export const SYNC_TOKEN_PREFIX = 'urn:events-calendar:sync:';

/** The calendar home's segment for the whole site. */
export const SITE_CALENDAR = 'events';
const CATEGORY_PREFIX = 'category-';

/** A day: tokens issued on one day are the same text while the data does not move. */
const DAY_MS = 86_400_000;

export interface Calendars {
  /** Every calendar (the site first, then the categories by name). */
  list(): Promise<CalendarRef[]>;
  /** The calendar of a path segment, or undefined. */
  resolve(key: string): Promise<CalendarRef | undefined>;
  /** Every event of the calendar the viewer may read, in start order. */
  members(viewer: Viewer, cal: CalendarRef): Promise<Member[]>;
  /**
   * The same resources as `members`, with their ETags and times only: their ids and versions are
   * read, never their events (a listing of ETags costs ids and versions, not representations).
   */
  listing(viewer: Viewer, cal: CalendarRef): Promise<Listed[]>;
  /** The events overlapping [start, end) (UTC ISO instants; either open). */
  inRange(viewer: Viewer, cal: CalendarRef, start?: DateTime, end?: DateTime): Promise<Member[]>;
  /** These events of the calendar the viewer may read (others are absent from the answer). */
  byIds(viewer: Viewer, cal: CalendarRef, ids: number[]): Promise<Map<number, Member>>;
  /**
   * The iCalendar text of one event resource (the feeds' VEVENT, no METHOD, stable DTSTAMP); with
   * `expand` (RFC 4791 §9.6.5), the instance in UTC if it overlaps the range, else no VEVENT.
   */
  objectText(member: Member, expand?: { start: DateTime; end: DateTime }): string;
  /** The whole calendar as one iCalendar text (GET on the collection). */
  calendarText(cal: CalendarRef, members: Member[]): string;
  /** The collection's CTag and ETag (the data revision: any write moves it), and the time of the last change. */
  state(): Promise<{ ctag: string; lastModified: string | undefined; seq: number }>;
  /** The current sync token (a URI). */
  syncToken(): Promise<string>;
  /**
   * RFC 6578: the changes since `token` ('' = everything), at most `limit` members when given;
   * `withEvents` false: the changed resources as listed (ids, ETags, times), their events not read.
   */
  sync(viewer: Viewer, cal: CalendarRef, token: string, limit?: number, withEvents?: boolean): Promise<SyncResult>;
  /** The site zone's VTIMEZONE in a VCALENDAR (calendar-timezone), or undefined. */
  timezoneText(): string | undefined;
}

export function createCalendars(services: Services): Calendars {
  const { config, versions } = services;
  // Read per call: `config` answers with the request's calendar's (its name, zone and host, which its UIDs carry).
  const feedOptions = () => ({ name: config.siteName, timezone: config.timezone, siteUrl: config.siteUrl, resource: true }) as const;

  const calendars: Calendars = {
    async list() {
      const out: CalendarRef[] = [siteCalendar()];
      for (let page = 1; ; page++) {
        const r = await services.categories.list({ page, perPage: 100, hideEmpty: false, orderby: 'name', order: 'asc' });
        for (const t of r.terms) out.push(categoryCalendar(t.slug, t.name, t.description, out.length));
        if (page >= r.totalPages || r.terms.length === 0) break;
      }
      return out;
    },

    async resolve(key) {
      if (key === SITE_CALENDAR) return siteCalendar();
      if (!key.startsWith(CATEGORY_PREFIX)) return undefined;
      const slug = key.slice(CATEGORY_PREFIX.length);
      if (slug === '' || slug.length > 200) return undefined;
      const row = await services.categories.find(slug);
      if (!row || row.slug !== slug) return undefined;
      return categoryCalendar(row.slug, row.name, row.description, 1);
    },

    async members(viewer, cal) {
      return withEtags(services, await listAll(services, viewer, cal, {}));
    },

    async listing(viewer, cal) {
      return withVersions(services, await listedIds(services, viewer, cal));
    },

    async inRange(viewer, cal, start, end) {
      // Wall times in the events' own zones are within a day of UTC: ask for the events overlapping
      // a range a day wider (read at the cost of a start-date window), then compare the UTC instants exactly.
      const wider: { from?: string; until?: string } = {};
      if (end) wider.until = end.plus({ days: 1 }).toFormat('yyyy-MM-dd HH:mm:ss');
      if (start) wider.from = start.minus({ days: 1 }).toFormat('yyyy-MM-dd HH:mm:ss');
      const range: NonNullable<EventListArgs['range']> = { overlaps: wider };
      const listed = await listAll(services, viewer, cal, range);
      const found: PublicEvent[] = [];
      for (let i = 0; i < listed.length; i += VERSION_CHUNK) {
        // Comparing instants costs about 20 µs an event: thousands are compared in steps too.
        if (i > 0) await nextTurn();
        for (const e of listed.slice(i, i + VERSION_CHUNK)) if (overlaps(e, config.timezone, start, end)) found.push(e);
      }
      return withEtags(services, found);
    },

    async byIds(viewer, cal, ids) {
      const unique = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0);
      const out = new Map<number, Member>();
      for (let i = 0; i < unique.length; i += PAGE) {
        // A multiget of thousands of hrefs is read page by page, other requests running in between.
        if (i > 0) await nextTurn();
        const list = await listAll(services, viewer, cal, {}, unique.slice(i, i + PAGE));
        for (const m of await withEtags(services, list)) out.set(m.id, m);
      }
      return out;
    },

    objectText(member, expand) {
      if (!expand) return icalendar([member.event], feedOptions());
      const inRange = overlaps(member.event, config.timezone, expand.start, expand.end);
      return icalendar(inRange ? [member.event] : [], { ...feedOptions(), expand: true });
    },

    calendarText(cal, members) {
      return icalendar(
        members.map((m) => m.event),
        { ...feedOptions(), resource: false, name: cal.name },
      );
    },

    async state() {
      const [dbId, position] = await Promise.all([versions.databaseId(), versions.position()]);
      return { ctag: `${dbId}.${position.tag}`, lastModified: position.gmt, seq: position.seq };
    },

    async syncToken() {
      const [key, position] = await Promise.all([versions.syncKey(), versions.position()]);
      return tokenUri(encodeSyncToken(key, position.seq, Math.floor(Date.now() / DAY_MS) * DAY_MS));
    },

    async sync(viewer, cal, token, limit, withEvents = true) {
      return syncCalendar(services, calendars, viewer, cal, token, limit, withEvents);
    },

    timezoneText() {
      const vtz = getVtimezoneComponent(config.timezone);
      if (!vtz) return undefined;
      return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//${new URL(config.siteUrl).hostname}//events-calendar//EN\r\n${vtz.replace(/\r?\n/g, '\r\n').replace(/(\r\n)?$/, '\r\n')}END:VCALENDAR\r\n`;
    },
  };

  function siteCalendar(): CalendarRef {
    return { key: SITE_CALENDAR, name: config.siteName, description: `Every event of ${config.siteName}`, order: 0 };
  }
  function categoryCalendar(slug: string, name: string, description: string, order: number): CalendarRef {
    return { key: `${CATEGORY_PREFIX}${slug}`, slug, name: `${config.siteName}: ${name}`, description: description || name, order };
  }
  return calendars;
}

const argsOf = (cal: CalendarRef): Partial<EventListArgs> => (cal.slug === undefined ? {} : { categories: [cal.slug] });

async function withEtags(services: Services, list: PublicEvent[]): Promise<Member[]> {
  const listed = await withVersions(
    services,
    list.map((e) => e.id),
  );
  return list.map((e, i) => ({ ...listed[i]!, event: e }));
}

/** These events' ETags and times (the ETag GET answers), read VERSION_CHUNK at a time. */
async function withVersions(services: Services, ids: number[]): Promise<Listed[]> {
  const { versions } = services;
  const key = await versions.syncKey();
  const out: Listed[] = [];
  for (let i = 0; i < ids.length; i += VERSION_CHUNK) {
    // Let other requests run between chunks (SQLite answers synchronously).
    if (i > 0) await nextTurn();
    const chunk = ids.slice(i, i + VERSION_CHUNK);
    const vs = await versions.ofEvents(chunk);
    for (const id of chunk) {
      const v = vs.get(id)!;
      out.push({ id, etag: `"${key.databaseId}.e${id}.${versionTag(key, v.seq)}.ics"`, lastModified: v.gmt });
    }
  }
  return out;
}

/**
 * The ids of every event of a calendar the viewer may read (the list's filter without its date
 * window, as `listAll` reads it), ID_PAGE per statement; over CALDAV_MAX_EVENTS, TooManyMatches
 * (after reading at most that many).
 */
async function listedIds(services: Services, viewer: Viewer, cal: CalendarRef): Promise<number[]> {
  const filter = await services.events.syncFilter(viewer, { page: 1, per_page: 1, ...argsOf(cal) } as EventListArgs, new Set());
  const out: number[] = [];
  let after: { start: string; id: number } | undefined;
  for (;;) {
    if (after) await nextTurn();
    // Keyset pages: the last page of a large calendar costs what the first does.
    const r = await filter.page({ limit: ID_PAGE, ...(after ? { after } : {}) });
    if (out.length + r.ids.length > services.config.caldavMaxEvents) throw new TooManyMatches();
    out.push(...r.ids);
    if (r.ids.length < ID_PAGE || !r.last) break;
    after = r.last;
  }
  return out;
}

/**
 * The events of a calendar (in `range`, or these ids), page by page. More than
 * `CALDAV_MAX_EVENTS` (the first page's total says so) throw `TooManyMatches` (507) before the
 * rest is read: one request must not build a calendar of a million events in memory.
 */
async function listAll(services: Services, viewer: Viewer, cal: CalendarRef, range: NonNullable<EventListArgs['range']>, include?: number[]): Promise<PublicEvent[]> {
  const { config } = services;
  const out: PublicEvent[] = [];
  for (let page = 1; ; page++) {
    if (page > 1) await nextTurn();
    let r;
    try {
      r = await services.reader.list(viewer, { page, per_page: PAGE, range, ...argsOf(cal), ...(include ? { include } : {}) }, services.links);
    } catch (e) {
      // A page past the end (the count moved between pages): the list is complete.
      if (e instanceof ApiError && e.code === 'event-archive-page-not-found') break;
      throw e;
    }
    if (r.total > config.caldavMaxEvents || out.length + r.events.length > config.caldavMaxEvents) throw new TooManyMatches();
    out.push(...r.events);
    if (page >= r.totalPages || r.events.length < PAGE) break;
  }
  return out;
}

/**
 * RFC 6578 for `Calendars.sync`: the changes since `token` read from the change log, the changed
 * events read through `calendars.byIds`.
 */
async function syncCalendar(services: Services, calendars: Calendars, viewer: Viewer, cal: CalendarRef, token: string, limit: number | undefined, withEvents: boolean): Promise<SyncResult> {
  const { config, events, versions } = services;
  const [key, position] = await Promise.all([versions.syncKey(), versions.position()]);
  const now = Date.now();
  const issue = (seq: number) => tokenUri(encodeSyncToken(key, seq, Math.floor(now / DAY_MS) * DAY_MS));
  if (token === '') {
    // The position is read before the events: a change in between is reported again, never lost.
    if (!withEvents) {
      const ids = await listedIds(services, viewer, cal);
      if (limit !== undefined && ids.length > limit) throw new TooManyMatches();
      return { changed: await withVersions(services, ids), removed: [], token: issue(position.seq), truncated: false };
    }
    const all = await listAll(services, viewer, cal, {});
    if (limit !== undefined && all.length > limit) throw new TooManyMatches();
    return { changed: await withEtags(services, all), removed: [], token: issue(position.seq), truncated: false };
  }
  if (!token.startsWith(SYNC_TOKEN_PREFIX)) throw new InvalidSyncToken();
  const historyDays = await services.sync.historyDays();
  let from: number;
  try {
    // A token past the calendar's last change has seen everything of it (see http/sync.ts).
    from = Math.min(decodeSyncToken(token.slice(SYNC_TOKEN_PREFIX.length), { key, seq: position.logSeq, historyDays, now }), position.seq);
  } catch {
    throw new InvalidSyncToken();
  }
  // Nothing committed since the token: the same token, no look at the log (as cheap as a 304).
  if (from === position.seq) return { changed: [], removed: [], token: issue(from), truncated: false };
  // The calendar's filter is built only when events changed (the delta asks `matching` first, then `listed`).
  let filter: Awaited<ReturnType<typeof events.syncFilter>> | undefined;
  const view = {
    type: 'event' as const,
    unknownShown: false,
    matching: async (ids: number[]) => (filter ??= await events.syncFilter(viewer, { page: 1, per_page: 1, ...argsOf(cal) } as EventListArgs, new Set())).matching(ids),
    listed: (before: Parameters<NonNullable<typeof filter>['listed']>[0]) => filter!.listed(before),
  };
  let delta: SyncDelta;
  try {
    delta = await services.sync.delta(view, { from, to: position.seq, rows: config.syncMaxChanges, historyDays, now, maxRecords: limit });
  } catch (e) {
    if (e instanceof DeltaTooLarge) throw new TooManyMatches();
    if (e instanceof ApiError && e.code === 'rest_sync_token_expired') throw new InvalidSyncToken();
    throw e;
  }
  const upTo = delta.through;
  const changedIds = delta.records.filter((r) => delta.shownNow.has(r.id)).map((r) => r.id);
  const removed = delta.records.filter((r) => !delta.shownNow.has(r.id)).map((r) => r.id);
  if (changedIds.length === 0 && removed.length === 0) return { changed: [], removed: [], token: issue(upTo), truncated: upTo < position.seq };
  if (!withEvents) return { changed: await withVersions(services, changedIds), removed, token: issue(upTo), truncated: upTo < position.seq };
  const found = changedIds.length ? await calendars.byIds(viewer, cal, changedIds) : new Map<number, Member>();
  const changed = changedIds.map((id) => found.get(id)).filter((m): m is Member => m !== undefined);
  // Shown by the filter but not readable as a member (e.g. deleted in between): reported removed.
  for (const id of changedIds) if (!found.has(id)) removed.push(id);
  return { changed, removed, token: issue(upTo), truncated: upTo < position.seq };
}

/**
 * More members than the request's `limit` or `CALDAV_MAX_EVENTS` allows, and no way to stop early
 * (507 `number-of-matches-within-limits`).
 */
export class TooManyMatches extends Error {}

function tokenUri(token: string): string {
  return `${SYNC_TOKEN_PREFIX}${token}`;
}

/**
 * Whether an event overlaps [start, end) (RFC 4791 §9.9: start < event end and end > event start).
 * An all-day event is its dates (`DTSTART;VALUE=DATE`, the exclusive `DTEND` the day after its last
 * day) as floating times read in the calendar's zone `zone`, as §9.9 says of DATE values: not its
 * instants in its own zone ending a second before midnight.
 */
export function overlaps(e: PublicEvent, zone: string, start?: DateTime, end?: DateTime): boolean {
  const s = e.all_day ? DateTime.fromISO(e.start_date.slice(0, 10), { zone }) : DateTime.fromSQL(e.utc_start_date, { zone: 'utc' });
  let en = e.all_day ? DateTime.fromISO(e.end_date.slice(0, 10), { zone }).plus({ days: 1 }) : DateTime.fromSQL(e.utc_end_date, { zone: 'utc' });
  if (!s.isValid || !en.isValid) return false;
  if (en <= s) en = s.plus({ seconds: 1 });
  if (start && en <= start) return false;
  if (end && s >= end) return false;
  return true;
}
