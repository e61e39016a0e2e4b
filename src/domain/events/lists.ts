/**
 * The event list's semantics (behavior.md §10.1): its filters (date window, search, terms, venue,
 * organizer, geolocation, status scope), its page of public representations (kept ones served as
 * kept), and the sync tokens' filter. The effective query it answers with (`EventPage.query`, in
 * the original's `rest_url` order) is what the REST face turns into paging links and headers.
 *
 * @example
 *   const lists = createLists(deps, readModel);
 *   const page = await lists.list(ANONYMOUS, { page: 1, per_page: 10 }, links);
 */
import { DateTime } from 'luxon';
import * as eventsStore from '../../store/events.js';
import * as eventPages from '../../store/event-pages.js';
import { matchesFilter, type EventListFilter } from '../../store/event-list-results.js';
import { postTextLength } from '../../store/sizes.js';
import { endOfDay, startOfDay, toWallTime } from '../dates/wall.js';
import { apiError } from '../errors.js';
import { isAuthenticated, searchesAsVisitor } from '../permissions.js';
import { listScope } from '../statuses.js';
import type { TermService } from '../terms/index.js';
import { createKeptMap } from '../kept.js';
import { listToArray } from '../values.js';
import { DEFAULT_GEOLOC, geoFilterOf } from '../geo.js';
import type { ReadModel } from './read-model.js';
import { parseIn } from './validators.js';
import { searchWords, type EventService, type EventServiceDeps } from './types.js';

/** What an event's answer holds besides its text (dates, venue, organizers, terms, URLs), roughly. */
const ANSWER_BYTES_PER_EVENT = 4096;

export function createLists(deps: EventServiceDeps, readModel: ReadModel): Pick<EventService, 'defaultWindow' | 'syncFilter' | 'list'> {
  const { store } = deps;
  const db = store.db;
  const { feed, current } = readModel;
  let windowMemo: { second: number; start: string; end: string } | undefined;
  /** Ids of list term filters (categories / tags references): until any term changes. */
  const termFilters = createKeptMap<number[]>(feed, 1000, { owner: db, kind: 'event_term_filters' });

  const lists: Pick<EventService, 'defaultWindow' | 'syncFilter' | 'list'> = {
    defaultWindow() {
      // Both ends have a precision of one second: computed once per second (a list asks three times).
      const second = Math.floor(Date.now() / 1000);
      if (windowMemo?.second !== second) {
        const nowUtc = DateTime.fromMillis(second * 1000, { zone: 'utc' });
        // "yesterday 23:59" in UTC, seen in the site zone; end: now + 24 months (UTC clock).
        const start = nowUtc.minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 }).setZone(deps.siteTimezone);
        const end = nowUtc.plus({ months: 24 });
        windowMemo = { second, start: toWallTime(start), end: toWallTime(end) };
      }
      return { start: windowMemo.start, end: windowMemo.end };
    },

    async syncFilter(viewer, args, sent) {
      const scope = listScope(viewer, 'tribe_events', args.status);
      const filter: EventListFilter = { statuses: scope.statuses, order: 'date' };
      if (scope.onlyPublishedOrAuthor !== undefined) filter.onlyPublishedOrAuthor = scope.onlyPublishedOrAuthor;
      if (sent.has('start_date') && args.start_date !== undefined) filter.startFrom = startOfDay(toWallTime(parseIn('start_date', args.start_date, deps.siteTimezone)));
      if (sent.has('end_date') && args.end_date !== undefined) filter.endUntil = endOfDay(toWallTime(parseIn('end_date', args.end_date, deps.siteTimezone)));
      if (args.search !== undefined) {
        filter.searchWords = searchWords(args.search);
        // WordPress' rule: a visitor who is not signed in (here: or has no role in the calendar) finds no password-protected event by search.
        if (searchesAsVisitor(viewer)) filter.searchPublicOnly = true;
      }
      if (args.categories !== undefined) filter.categoryIds = await deps.categories.filterIds(args.categories);
      if (args.tags !== undefined) filter.tagIds = await deps.tags.filterIds(args.tags);
      if (args.venue !== undefined) filter.venueIds = listToArray(args.venue).map(Number);
      if (args.organizer !== undefined) filter.organizerIds = listToArray(args.organizer).map(Number);
      if (args.featured !== undefined) filter.featured = args.featured;
      if (args.post_parent !== undefined) filter.postParent = args.post_parent;
      if (args.include) filter.include = args.include;
      return {
        async matching(ids) {
          const wanted = args.include ? ids.filter((id) => args.include!.includes(id)) : ids;
          const out = new Set<number>();
          for (let i = 0; i < wanted.length; i += 500) {
            const chunk = wanted.slice(i, i + 500);
            const found = await eventPages.findEventPageIds(db, store.dialect, { ...filter, include: chunk }, { limit: chunk.length, offset: 0 });
            for (const id of found.ids) out.add(Number(id));
          }
          return out;
        },
        listed: (state) => matchesFilter(filter, state, undefined, store.dialect),
        async page(page) {
          const rows = await eventPages.findEventIdsAfter(db, store.dialect, filter, page.after, page.limit);
          const last = rows[rows.length - 1];
          return { ids: rows.map((r) => r.id), ...(last ? { last: { start: last.start, id: last.id } } : {}) };
        },
      };
    },

    async list(viewer, args, links, reserve) {
      const perPage = args.range ? args.per_page : Math.min(args.per_page, deps.maxPerPage);
      const page = args.page;
      const scope = listScope(viewer, 'tribe_events', args.status);
      const statusLabel = scope.label;
      const filter: EventListFilter = { statuses: scope.statuses, order: 'start' };
      if (scope.onlyPublishedOrAuthor !== undefined) filter.onlyPublishedOrAuthor = scope.onlyPublishedOrAuthor;

      const window = lists.defaultWindow();
      let startLabel: string;
      let endLabel: string;
      if (args.include) {
        filter.include = args.include;
        filter.order = 'date';
        startLabel = window.start;
        endLabel = window.end;
      } else if (args.range) {
        const r = args.range;
        if (r.startsFrom !== undefined) filter.startFrom = r.startsFrom;
        if (r.startsUntil !== undefined) filter.startUntil = r.startsUntil;
        if (r.endsFrom !== undefined) filter.endFrom = r.endsFrom;
        if (r.endsUntil !== undefined) filter.endUntil = r.endsUntil;
        if (r.overlaps) filter.overlaps = { ...(r.overlaps.from !== undefined ? { from: r.overlaps.from } : {}), ...(r.overlaps.until !== undefined ? { until: r.overlaps.until } : {}) };
        if (r.descending) filter.order = 'start_desc';
        if (args.firstOfSeries) filter.firstOfSeries = true;
        startLabel = r.startsFrom ?? r.endsFrom ?? r.overlaps?.from ?? '';
        endLabel = r.endsUntil ?? r.startsUntil ?? r.overlaps?.until ?? '';
      } else {
        const startWall = args.start_date !== undefined ? toWallTime(parseIn('start_date', args.start_date, deps.siteTimezone)) : window.start;
        const endWall = args.end_date !== undefined ? toWallTime(parseIn('end_date', args.end_date, deps.siteTimezone)) : window.end;
        filter.startFrom = startOfDay(startWall);
        filter.endUntil = endOfDay(endWall);
        startLabel = filter.startFrom;
        endLabel = filter.endUntil;
      }
      if (args.search !== undefined) {
        filter.searchWords = searchWords(args.search);
        // WordPress' rule: a visitor who is not signed in (here: or has no role in the calendar) finds no password-protected event by search.
        if (searchesAsVisitor(viewer)) filter.searchPublicOnly = true;
      }
      // Term references resolve to the same ids until the data changes: kept per revision.
      const seq = await current();
      const revision = feed.revision();
      const resolve = async (terms: TermService, value: unknown) => {
        const key = `${terms.taxonomy}:${JSON.stringify(value)}`;
        let ids = termFilters.get(key);
        if (ids === undefined) termFilters.set(key, (ids = await terms.filterIds(value)), seq, ['term:*']);
        return [...ids];
      };
      if (args.categories !== undefined) filter.categoryIds = await resolve(deps.categories, args.categories);
      if (args.tags !== undefined) filter.tagIds = await resolve(deps.tags, args.tags);
      if (args.venue !== undefined) filter.venueIds = listToArray(args.venue).map(Number);
      if (args.organizer !== undefined) filter.organizerIds = listToArray(args.organizer).map(Number);
      if (args.featured !== undefined) filter.featured = args.featured;
      if (args.post_parent !== undefined) filter.postParent = args.post_parent;
      const geo = geoFilterOf(args, deps.geoloc ?? DEFAULT_GEOLOC);
      if (geo) filter.geo = geo;

      // Uncounted (pages and embeds): one row more than the page says whether another follows.
      const counted = !(args.range && args.countTotal === false);
      const found = await eventPages.findEventPageIds(db, store.dialect, filter, { limit: counted ? perPage : perPage + 1, offset: (page - 1) * perPage, count: counted }, revision);
      const ids = counted ? found.ids : found.ids.slice(0, perPage);
      // Uncounted, the store's total is the rows up to the one more: this page's, plus one when more follow.
      const total = found.total;
      if (ids.length === 0 && page > 1) throw apiError('event-archive-page-not-found');
      // The records, their representations and the JSON text each hold about the page's text.
      if (reserve && ids.length)
        await reserve((isAuthenticated(viewer) ? undefined : readModel.keptBytes(ids, 'list', links)) ?? 3 * (await postTextLength(db, ids)) + ANSWER_BYTES_PER_EVENT * ids.length);
      const query: Array<[string, string]> = [
        ['page', String(page)],
        ['per_page', String(perPage)],
        ['start_date', startLabel],
        ['end_date', endLabel],
      ];
      if (args.search !== undefined) query.push(['search', args.search]);
      if (args.geoloc !== undefined) query.push(['geoloc', args.geoloc ? '1' : '']);
      if (args.geoloc_lat !== undefined) query.push(['geoloc_lat', String(args.geoloc_lat)]);
      if (args.geoloc_lng !== undefined) query.push(['geoloc_lng', String(args.geoloc_lng)]);
      if (args.geoloc_radius !== undefined) query.push(['geoloc_radius', String(args.geoloc_radius)]);
      if (args.geoloc_unit !== undefined) query.push(['geoloc_unit', args.geoloc_unit]);
      query.push(['status', statusLabel]);
      if (args.post_parent !== undefined) query.push(['post_parent', String(args.post_parent)]);
      if (args.include) query.push(['include', args.include.join(',')]);
      return {
        events: isAuthenticated(viewer) ? await readModel.represent(await eventsStore.findEventsInOrder(db, ids), viewer, 'list', links) : await readModel.publicById(ids, 'list', links, [], seq),
        total,
        totalPages: Math.ceil(total / perPage),
        query,
      };
    },
  };
  return lists;
}
