/**
 * Event routes: the list, create, and the item routes by id and by slug. Each is declared once;
 * the declarations drive validation, the index and the docs.
 *
 * Choices where the original is silent or superseded (see docs/api.md "Compatibility choices"):
 * unknown ids answer 404 `rest-event-not-found` (COMPAT 6); a trashed event answers 403
 * `event-not-accessible` to callers who may not read it and `event-no-longer-available` to those
 * who may; by-slug writes check the same per-record permissions as id routes (COMPAT 3); naming
 * another user as `author` needs `edit_others_tribe_events` (403 `rest_forbidden` otherwise);
 * inline venues and organizers pass their own create route's validators and permission, and
 * `post_parent`, `venue`, `organizer` and the write references naming a record the caller may
 * not read answer as unknown ids (docs/security.md "Who may do what").
 */
import type { Services } from '../../domain/services.js';
import { apiError, invalidParams } from '../../domain/errors.js';
import { canReadEvent, eventValidators, namesReadableEvent, type EventInput, type EventListArgs } from '../../domain/events/index.js';
import type { EventRecord } from '../../store/events.js';
import { canAssignAuthor, canCreatePost, canDeletePost, canEditPost, typeCan, type Viewer } from '../../domain/permissions.js';
import { isPostStatus, listStatusFilter } from '../../domain/statuses.js';
import { isEmptyValue, isNumeric, isPositiveInt, isTruthy, listToArray } from '../../domain/values.js';
import { isHttpUrl } from '../../domain/images.js';
import { anyone, endpoint, optionalArgs, route, type Args, type EndpointContext, type EndpointDocs, type RouteDecl } from '../route.js';
import { listUrls, listHeaders } from '../paging.js';
import { checkGeolocArgs, geolocCoordinateArg, geolocRadiusArgs, idArg, isNonEmptyString, isStringValue, pageArg, perPageArg, postPasswordArg, slugArg } from './common.js';
import { syncAnswer, syncTokenArg, syncTokenNow } from '../sync.js';
import { isClearingRecurrence, parseRecurrence } from '../../domain/recurrence.js';
import { ApiError, type ParamFailure } from '../../domain/errors.js';
import { invalidDateFailure, invalidTimezoneFailure } from '../../domain/dates/hints.js';
import { isNonBlankTitle } from '../../domain/text/php.js';
import type { RecurrenceScope } from '../../domain/events/index.js';
import { inlineLinkedChecks } from './linked-posts.js';
import { canAccessPasswordContent, eventAnswer, eventShownToRequest } from '../post-passwords.js';

/** Ours: the rules of a recurring event; the failure names the bad line and its problem. */
const recurrenceArg = {
  items: { type: 'string' as const },
  docType: 'array' as const,
  itemSeparator: 'line' as const,
  description: 'Recurrence rules of a recurring event: RFC 5545 RRULE, RDATE and EXDATE lines (no DTSTART). An empty list or string makes the event single again',
  validate: (v: unknown): boolean | ParamFailure => {
    if (isClearingRecurrence(v)) return true;
    try {
      parseRecurrence(v);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const data = err.data as { params: Record<string, string>; details: Record<string, ParamFailure['detail']> | [] };
      const detail = Array.isArray(data.details) ? undefined : data.details.recurrence;
      return detail ? { message: data.params.recurrence!, detail } : { message: data.params.recurrence! };
    }
  },
};

/** The single event's `password` (the original's READ_args): a protected event answers 403 without it. */
const readPasswordArg = { type: 'string' as const, description: 'The event password', validate: isStringValue };

const SCOPES: readonly RecurrenceScope[] = ['this', 'following', 'all'];
/** Ours: which occurrences an update or delete of an occurrence applies to. */
const recurrenceScopeArg = {
  type: 'string' as const,
  enum: SCOPES,
  description: 'On an occurrence of a recurring event: this occurrence only (default), this and the following ones (splits the series), or all of them',
  validate: (v: unknown) => typeof v === 'string' && (SCOPES as readonly string[]).includes(v),
};

/**
 * Whether the viewer may create every inline venue and organizer of an event write: the
 * permission of `POST /venues` and `/organizers` for each, part of the write's permission.
 */
function inlineLinkedPermitted(services: Services): (viewer: Viewer, args: Record<string, unknown>) => boolean {
  const venue = inlineLinkedChecks(services, 'venue');
  const organizer = inlineLinkedChecks(services, 'organizer');
  return (viewer, args) => venue.permitted(viewer, args.venue) && organizer.permitted(viewer, args.organizer);
}

/** The create args of an event, in the original's order. */
export function eventWriteArgs(services: Services): Args {
  // Read per request: administrators change the site's time zone while the server runs.
  // Inline venues and organizers pass the validators of their own create route.
  const inlineVenue = inlineLinkedChecks(services, 'venue');
  const inlineOrganizer = inlineLinkedChecks(services, 'organizer');
  // A refused date or zone names the accepted forms in `details`; `params` stays the original's.
  const siteZone = () => `the site time zone (${services.config.timezone})`;
  const time = (name: string, zoneNote: string | (() => string)) => (v: unknown) =>
    eventValidators.isTime(v, services.config.timezone) || invalidDateFailure(name, typeof zoneNote === 'function' ? zoneNote() : zoneNote);
  const eventTime = (name: string) => time(name, () => `the event's time zone (its timezone, else the site's: ${services.config.timezone})`);
  return {
    author: { type: 'integer', description: 'The event author ID', validate: async (v) => isNumeric(v) && (await services.users.exists(Number(v))) },
    date: { type: 'string', description: 'The event publication date', validate: time('date', siteZone) },
    date_utc: { type: 'string', description: 'The event publication date (UTC time zone)', validate: (v) => eventValidators.isTime(v, 'UTC') || invalidDateFailure('date_utc', 'UTC') },
    // Whitespace-only is refused like empty.
    title: { type: 'string', description: 'The event title', required: true, validate: isNonBlankTitle },
    description: { type: 'string', description: 'The event description', validate: isStringValue },
    slug: { type: 'string', description: 'The event slug', validate: isStringValue },
    excerpt: { type: 'string', description: 'The event excerpt', validate: isStringValue },
    status: { type: 'string', description: 'The event post status', validate: isPostStatus },
    timezone: { type: 'string', description: 'The event time zone', validate: (v) => eventValidators.isTimezoneOrEmpty(v) || invalidTimezoneFailure('timezone') },
    all_day: { default: false, type: 'boolean', description: 'Whether the event lasts the whole day or not' },
    start_date: { type: 'string', description: 'The event start date and time', required: true, validate: eventTime('start_date') },
    end_date: { type: 'string', description: 'The event end date and time', required: true, validate: eventTime('end_date') },
    image: { type: 'string', description: 'The event featured image ID or URL', validate: (v, ctx) => services.images.validateRef(v, ctx.viewer, true) },
    cost: {
      description: 'The event cost',
      validate: (v) => ['string', 'number'].includes(typeof v) || (Array.isArray(v) && v.every((x) => ['string', 'number'].includes(typeof x))),
    },
    website: { default: null, description: 'The event website URL', validate: (v) => isEmptyValue(v) || isHttpUrl(v) },
    show_map: { type: 'boolean', description: 'Whether the event should show a map or not' },
    show_map_link: { type: 'boolean', description: 'Whether the event should show a map link or not' },
    hide_from_listings: { type: 'boolean', description: 'Whether events should be hidden in the calendar view or not' },
    sticky: { type: 'boolean', description: 'Whether the event should be sticky in the calendar view or not' },
    featured: { type: 'boolean', description: 'Whether the event should be featured on the site or not' },
    // Key order is the original's (default, items, description): the namespace index shows it.
    categories: { default: null, items: { type: 'integer' }, description: 'The event category ID or name', validate: (v) => services.categories.validateWriteRefs(v) },
    tags: { default: null, items: { type: 'integer' }, description: 'The event tag ID or name', validate: (v) => services.tags.validateWriteRefs(v) },
    venue: {
      default: null,
      items: { type: 'integer' },
      description: 'The event venue ID or data',
      validate: (v, ctx) => services.venues.validateEventRef(v, ctx.viewer, inlineVenue.check(ctx)),
    },
    organizer: {
      default: null,
      items: { type: 'integer' },
      description: 'The event organizer IDs or data',
      validate: (v, ctx) => services.organizers.validateEventRef(v, ctx.viewer, inlineOrganizer.check(ctx)),
    },
    recurrence: recurrenceArg,
    password: postPasswordArg("event's"),
  };
}

/** The list args, in the original's order (the embed namespace's event source takes its filters from here). */
export function eventListArgs(services: Services): Args {
  const tz = () => services.config.timezone;
  // Records the caller may not read answer as unknown ones (docs/security.md "Who may do what").
  const linkedIds = (service: Services['venues']) => async (v: unknown, ctx: { viewer: Viewer }) => {
    const ids = listToArray(v);
    if (ids.length === 0 || !ids.every(isPositiveInt)) return false;
    const known = await service.load(ids.map(Number));
    return ids.every((id) => {
      const record = known.get(Number(id));
      return record !== undefined && service.readableBy(record, ctx.viewer);
    });
  };
  return {
    page: pageArg(),
    per_page: perPageArg(services.config.defaultPerPage, 'events'),
    start_date: {
      default: () => services.events.defaultWindow().start,
      description: 'Events should start after the specified date',
      validate: (v) => eventValidators.isTime(v, tz()) || invalidDateFailure('start_date', `the site time zone (${tz()})`),
    },
    end_date: {
      default: () => services.events.defaultWindow().end,
      description: 'Events should start before the specified date',
      validate: (v) => eventValidators.isTime(v, tz()) || invalidDateFailure('end_date', `the site time zone (${tz()})`),
    },
    search: { description: 'Events should contain the specified string in the title or description', type: 'string', validate: isNonEmptyString },
    categories: {
      description: 'Events should be assigned one of the specified categories slugs or IDs',
      items: { type: 'integer' },
      docType: 'array',
      validate: (v) => services.categories.validateRefs(v),
    },
    tags: {
      description: 'Events should be assigned one of the specified tags slugs or IDs',
      items: { type: 'integer' },
      docType: 'array',
      validate: (v) => services.tags.validateRefs(v),
    },
    venue: { description: 'Events should be assigned one of the specified venue IDs', items: { type: 'integer' }, docType: 'array', validate: linkedIds(services.venues) },
    organizer: {
      description: 'Events should be assigned one of the specified organizer IDs',
      items: { type: 'integer' },
      docType: 'array',
      validate: linkedIds(services.organizers),
    },
    featured: { type: 'boolean', description: 'Events should be filtered by their featured status' },
    status: {
      format: 'string',
      description: 'The event post status',
      docType: 'string',
      validate: (v, ctx) => listStatusFilter(ctx.viewer, 'tribe_events', v) !== null,
      sanitize: (v, ctx) => listStatusFilter(ctx.viewer, 'tribe_events', v),
    },
    geoloc: { type: 'boolean', description: 'Requires Events Calendar Pro. Events should be filtered by whether their venue has geolocation data' },
    geoloc_lat: geolocCoordinateArg('lat', 'Requires Events Calendar Pro. Events should be filtered by their venue latitude location, must also provide geoloc_lng'),
    geoloc_lng: geolocCoordinateArg('lng', 'Requires Events Calendar Pro. Events should be filtered by their venue longitude location, must also provide geoloc_lat'),
    ...geolocRadiusArgs({ radius: services.config.geolocRadius, unit: services.config.geolocUnit }),
    include: {
      description: 'Include events with one of the post IDs specified in the array of CSV list, date filters will be ignored.',
      items: { type: 'integer' },
      docType: 'array',
      validate: (v) => {
        const ids = listToArray(v);
        return ids.length > 0 && ids.every(isPositiveInt);
      },
      sanitize: (v) => listToArray(v).map(Number),
    },
    post_parent: {
      type: 'integer',
      description: 'Events should be filtered by their post_parent being the specified one.',
      validate: async (v, ctx) => isPositiveInt(v) && (await services.events.isEventId(Number(v))) && (await namesReadableEvent(services.events, ctx.viewer, v)),
    },
    // Beyond the spec, in the recorded index (TEC 5.16.4+): filtering by tickets needs a ticketing
    // plugin we do not have, so a truthy value is the original's 400 without Event Tickets.
    ticketed: {
      type: 'boolean',
      description: 'Filter events with or without tickets.',
      validate: (v) =>
        !isTruthy(v) || {
          message: 'Event Tickets plugin is not activated.',
          detail: { code: 'event-tickets-not-active', message: 'Event Tickets plugin is not activated.', data: { status: 400 } },
        },
    },
    // Ours: incremental sync.
    sync_token: syncTokenArg(),
  };
}

/** The list's venue/organizer/featured echo (appended to rest_url only when sent). */
function appendedQuery(ctx: EndpointContext): Array<[string, string]> | null {
  const { args, sent } = ctx;
  if (!sent.has('venue') && !sent.has('organizer') && !sent.has('featured')) return null;
  const out: Array<[string, string]> = [];
  if (sent.has('venue')) out.push(['venue', listToArray(args.venue).join(',')]);
  if (sent.has('organizer')) out.push(['organizer', listToArray(args.organizer).join(',')]);
  if (sent.has('featured') && args.featured) out.push(['featured', '1']);
  return out;
}

/** 404 for an unknown id, 400 when the id is another kind of record. */
async function missingEvent(services: Services, id: number): Promise<never> {
  if (await services.events.isOtherPostType(id)) throw apiError('rest-invalid-event-id');
  throw apiError('rest-event-not-found', { args: [id] });
}

function writeInput(args: Record<string, unknown>, sent: ReadonlySet<string>): EventInput {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (sent.has(k) || (v !== null && v !== undefined && k === 'all_day')) input[k] = v;
  return input as EventInput;
}

const SINGLE_DOCS: Record<'get' | 'post' | 'delete', EndpointDocs> = {
  get: {
    responses: {
      '200': { description: 'Returns the data of the event with the specified post ID', schema: 'Event' },
      '400': { description: 'The event post ID is missing.' },
      '403': { description: 'The event with the specified ID is not accessible.' },
      '404': { description: 'An event with the specified ID does not exist.' },
    },
  },
  post: {
    responses: {
      '200': { description: 'Returns the data of the updated event', schema: 'Event' },
      '201': { description: 'Returns the data of the created event', schema: 'Event' },
      '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
      '403': { description: 'The user is not authorized to create events' },
    },
  },
  delete: {
    responses: {
      '200': { description: 'Deletes an event and returns its data', schema: 'Event' },
      '400': { description: 'The event post ID is missing or does not exist.' },
      '403': { description: 'The current user cannot delete the event with the specified ID.' },
      '410': { description: 'The event with the specified ID has been deleted already.' },
      '500': { description: 'The event with the specified ID could not be deleted.' },
    },
  },
};

/** GET / update / DELETE handlers shared by the id and slug routes. */
function itemEndpoints(services: Services, addressing: { read: Args; write: Args; notFound: (ctx: EndpointContext) => Promise<never> }) {
  const { events } = services;
  const inlinePermitted = inlineLinkedPermitted(services);
  const mustHave = async (ctx: EndpointContext<EventRecord>): Promise<EventRecord> => ctx.record ?? (await addressing.notFound(ctx));
  return {
    get: endpoint<EventRecord>({
      methods: ['GET'],
      args: { ...addressing.read, password: readPasswordArg },
      permission: anyone,
      docs: SINGLE_DOCS.get,
      versioning: { kind: 'item', type: 'event', readable: (ctx) => ctx.record !== null && canReadEvent(ctx.viewer, ctx.record) && ctx.record.status !== 'trash' },
      handler: async (ctx) => {
        const record = await mustHave(ctx);
        if (!canReadEvent(ctx.viewer, record)) throw apiError('event-not-accessible');
        if (record.status === 'trash') throw apiError('event-no-longer-available');
        if (!canAccessPasswordContent(ctx, record, 'tribe_events')) throw apiError('event-password-protected');
        const [json] = await events.represent([record], ctx.viewer, 'single', ctx.links);
        return { body: eventAnswer(json!) };
      },
    }),
    remove: endpoint<EventRecord>({
      methods: ['DELETE'],
      args: { ...addressing.read, recurrence_scope: recurrenceScopeArg },
      permission: (ctx) => (ctx.record ? canDeletePost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'delete', 'tribe_events')),
      docs: SINGLE_DOCS.delete,
      precondition: { type: 'event' },
      handler: async (ctx) => {
        const record = await mustHave(ctx);
        if (record.status === 'trash') throw apiError('event-is-in-trash');
        const trashed = await events.trash(record, ctx.args.recurrence_scope as RecurrenceScope | undefined, ctx.viewer);
        const [json] = await events.represent([trashed], ctx.viewer, 'list', ctx.links);
        return { body: eventAnswer(json!) };
      },
    }),
    update: endpoint<EventRecord>({
      methods: ['POST', 'PUT', 'PATCH'],
      args: addressing.write,
      permission: (ctx) =>
        (ctx.record ? canEditPost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'edit', 'tribe_events')) &&
        canAssignAuthor(ctx.viewer, 'tribe_events', ctx.args.author) &&
        inlinePermitted(ctx.viewer, ctx.args),
      docs: SINGLE_DOCS.post,
      precondition: { type: 'event' },
      handler: async (ctx) => {
        const record = await mustHave(ctx);
        const updated = await events.update(ctx.viewer, record, writeInput(ctx.args, ctx.sent));
        const [json] = await events.represent([updated], ctx.viewer, 'list', ctx.links);
        return { body: eventAnswer(json!) };
      },
    }),
  };
}

export function eventRoutes(services: Services): RouteDecl[] {
  const { events } = services;
  const inlinePermitted = inlineLinkedPermitted(services);
  const writeArgs = eventWriteArgs(services);
  const { slug: slugWriteArg, ...writeArgsWithoutSlug } = optionalArgs(writeArgs);

  const list = route('/events', [
    endpoint({
      methods: ['GET'],
      args: eventListArgs(services),
      permission: anyone,
      docs: {
        responses: {
          '200': { description: 'Returns all the upcoming events matching the search criteria', schema: 'Event', listTitle: 'events' },
          '400': { description: 'One or more of the specified query variables has a bad format' },
          '404': { description: 'The requested page was not found.' },
        },
      },
      versioning: { kind: 'list' },
      handler: async (ctx) => {
        const a = ctx.args as EventListArgs;
        checkGeolocArgs(a);
        if (ctx.args.sync_token !== undefined) {
          const filter = await events.syncFilter(ctx.viewer, a, ctx.sent);
          return syncAnswer(ctx, {
            type: 'event',
            matching: filter.matching,
            listed: filter.listed,
            unknownShown: false,
            tombstones: (ids) => services.sync.postTombstones(ids),
            represent: async (ids) => {
              const records = (await Promise.all(ids.map((id) => events.findById(id)))).filter((r): r is EventRecord => r !== undefined);
              const json = await events.represent(records, ctx.viewer, 'list', ctx.links);
              return new Map(records.map((r, i) => [Number(r.id), eventShownToRequest(ctx, json[i]!)]));
            },
            body: (items, urls, total, totalPages) => ({ events: items, ...urls, total, total_pages: totalPages }),
            restUrl: ctx.links.rest('events/'),
            pageNotFound: 'event-archive-page-not-found',
          });
        }
        const { token, renew } = await syncTokenNow(services);
        const page = await events.list(ctx.viewer, a, ctx.links, ctx.reserve);
        const urls = listUrls(ctx.links.rest('events/'), page.query, appendedQuery(ctx), a.page, page.totalPages);
        return {
          body: { events: page.events.map((json) => eventShownToRequest(ctx, json)), ...urls, total: page.total, total_pages: page.totalPages },
          headers: { ...listHeaders(page.total, page.totalPages, urls), 'X-Sync-Token': token },
          renew: { 'x-sync-token': renew },
        };
      },
    }),
    endpoint({
      methods: ['POST'],
      args: writeArgs,
      // Naming another user as `author` needs edit_others (our choice, docs/api.md "Compatibility choices");
      // inline venues and organizers need what their own create route needs.
      permission: (ctx) => canCreatePost(ctx.viewer, 'tribe_events', ctx.args.author) && inlinePermitted(ctx.viewer, ctx.args),
      docs: SINGLE_DOCS.post,
      handler: async (ctx) => {
        const created = await events.create(ctx.viewer, writeInput(ctx.args, ctx.sent));
        const [json] = await events.represent([created], ctx.viewer, 'list', ctx.links);
        return { status: 201, body: eventAnswer(json!) };
      },
    }),
  ]);

  const byId = itemEndpoints(services, {
    read: { id: idArg('the event post ID') },
    write: { id: idArg('the event post ID'), ...optionalArgs(writeArgs), recurrence_scope: recurrenceScopeArg },
    notFound: (ctx) => missingEvent(services, Number(ctx.path.id)),
  });
  const loadById = async (ctx: Omit<EndpointContext, 'record'>) => (await events.findById(Number(ctx.path.id))) ?? null;
  for (const e of Object.values(byId)) e.load = loadById;

  const bySlug = itemEndpoints(services, {
    read: { slug: slugArg('the event post name') },
    write: { slug: slugWriteArg, ...writeArgsWithoutSlug, recurrence_scope: recurrenceScopeArg },
    notFound: async () => {
      throw apiError('rest-event-not-found', { args: [0] });
    },
  });
  const loadBySlug = async (ctx: Omit<EndpointContext, 'record'>) => {
    const id = await events.findIdBySlug(ctx.path.slug);
    return id === undefined ? null : ((await events.findById(id)) ?? null);
  };
  for (const e of Object.values(bySlug)) e.load = loadBySlug;
  // Unknown slugs on GET/DELETE are a parameter error, as in the original (is_event_slug).
  for (const e of [bySlug.get, bySlug.remove]) {
    e.load = async (ctx) => {
      const record = await loadBySlug(ctx);
      if (!record) throw invalidParams({ slug: 'Invalid parameter.' });
      return record;
    };
  }

  return [list, route('/events/{id}', [byId.get, byId.remove, byId.update]), route('/events/by-slug/{slug}', [bySlug.get, bySlug.remove, bySlug.update])];
}
