/**
 * The venue and organizer list (behavior.md §10.2): search, event, has_events, only_with_upcoming,
 * venues' distance, with COMPAT decision 11's status visibility, and the effective query.
 *
 * @example
 *   const page = await createList(deps).list(viewer, { page: 1, per_page: 10 }, { maxPerPage: 50 });
 */
import * as linkedStore from '../../store/linked-posts.js';
import type { LinkedListFilter } from '../../store/linked-posts.js';
import { apiError } from '../errors.js';
import { geoFilterOf } from '../geo.js';
import { searchesAsVisitor, typeCan } from '../permissions.js';
import { listScope } from '../statuses.js';
import { isTruthy } from '../values.js';
import { HAS_EVENTS_STATUSES, queryValue, searchFragments } from './rules.js';
import type { LinkedPostService, LinkedServiceDeps } from './types.js';

export function createList(deps: LinkedServiceDeps): Pick<LinkedPostService, 'list'> {
  const { db, kind, clock, info, geoDefaults } = deps;
  return {
    async list(viewer, args, env) {
      const perPage = Math.min(args.per_page, env.maxPerPage);
      const page = args.page;
      // COMPAT 11: non-editors see others' published records and their own.
      const scope = listScope(viewer, info.postType, args.status);
      const filter: LinkedListFilter = { statuses: scope.statuses };
      if (scope.onlyPublishedOrAuthor !== undefined) filter.onlyPublishedOrAuthor = scope.onlyPublishedOrAuthor;
      if (args.search !== undefined) {
        const fragments = searchFragments(args.search);
        if (fragments.length) filter.searchFragments = fragments;
        // WordPress' rule: a visitor who is not signed in (here: or has no role in the calendar) finds no password-protected record by search.
        if (fragments.length && searchesAsVisitor(viewer)) filter.searchPublicOnly = true;
      }
      if (args.event !== undefined) filter.eventId = args.event;
      if (args.ids !== undefined) filter.ids = args.ids;
      if (kind === 'venue') {
        const geo = geoFilterOf(args, geoDefaults);
        if (geo) filter.geo = geo;
      }
      if (args.has_events !== undefined && args.has_events !== null) {
        filter.hasEvents = { value: isTruthy(args.has_events), events: { statuses: HAS_EVENTS_STATUSES } };
      }
      if (isTruthy(args.only_with_upcoming)) {
        // The events that count are those of the list's statuses the viewer may see, that have not
        // ended yet (this service's choice; the original looks at the start) and are not hidden.
        const events = listScope(viewer, 'tribe_events', typeCan(viewer, 'edit', 'tribe_events') ? scope.statuses : ['publish']);
        filter.upcoming = {
          fromUtc: clock.nowGmt(),
          events: { statuses: events.statuses, ...(events.onlyPublishedOrAuthor !== undefined ? { onlyPublishedOrAuthor: events.onlyPublishedOrAuthor } : {}) },
        };
      }
      const { rows, total } = await linkedStore.findLinkedPage(db, deps.dialect, kind, filter, { limit: perPage, offset: (page - 1) * perPage });
      if (rows.length === 0 && page > 1) throw apiError(kind === 'venue' ? 'venue-archive-page-not-found' : 'organizer-archive-page-not-found');
      const query: Array<[string, string]> = [
        ['page', String(page)],
        ['per_page', String(perPage)],
      ];
      if (args.event !== undefined) query.push(['event', String(args.event)]);
      if (args.has_events !== undefined && args.has_events !== null) query.push(['has_events', queryValue(args.has_events)]);
      if (args.geoloc !== undefined) query.push(['geoloc', args.geoloc ? '1' : '']);
      for (const k of ['geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit'] as const) if (args[k] !== undefined) query.push([k, String(args[k])]);
      query.push(['status', scope.label]);
      return { records: rows, total, totalPages: Math.ceil(total / perPage), query };
    },
  };
}
