/**
 * Venue and organizer routes: the list, create, and the item routes by id and by slug. One factory
 * serves both kinds; their differences (names, write fields, descriptions, error codes) are data.
 *
 * Choices where the original is silent or superseded (see docs/api.md "Compatibility choices"):
 * unknown ids and slugs answer 400 `rest_invalid_param` as the original (validation runs before
 * the permission check, so also for anonymous callers); updates are partial (COMPAT 1); by-slug
 * writes check the same per-record permissions as id routes (COMPAT 3); lists apply COMPAT 11's
 * visibility (non-editors see others' published records and their own), and their `event` filter
 * answers for an event the caller may not read as for an unknown one. The create
 * route's validators and permission also judge the inline entries of event writes
 * ({@link inlineLinkedChecks}).
 *
 * @example
 *   routes.push(...venueRoutes(services), ...organizerRoutes(services));
 */
import type { Services } from '../../domain/services.js';
import { apiError, INVALID_PARAMETER, invalidParams, type ErrorCode, type ParamFailure } from '../../domain/errors.js';
import { eventValidators, namesReadableEvent } from '../../domain/events/index.js';
import { isCoordinate, type InlineEntryCheck, type LinkedListArgs, type LinkedPostService } from '../../domain/linked-posts/index.js';
import { isHttpUrl } from '../../domain/images.js';
import { canAssignAuthor, canCreatePost, canDeletePost, canEditPost, typeCan, type Viewer } from '../../domain/permissions.js';
import { isPostStatus, listScope, listStatusFilter } from '../../domain/statuses.js';
import { syncAnswer, syncTokenArg, syncTokenNow } from '../sync.js';
import { isEmptyValue, isNumeric, isPositiveInt } from '../../domain/values.js';
import type { LinkedKind, LinkedRecord } from '../../store/linked-posts.js';
import type { PostType } from '../../store/schema.js';
import { shownToRequest } from '../post-passwords.js';
import { anyone, endpoint, optionalArgs, route, type ArgContext, type ArgSpec, type Args, type EndpointContext, type EndpointDocs, type RouteDecl } from '../route.js';
import { listUrls, listHeaders } from '../paging.js';
import { checkGeolocArgs, geolocCoordinateArg, geolocRadiusArgs, idArg, isNonEmptyString, isStringValue, pageArg, perPageArg, postPasswordArg, slugArg } from './common.js';
import { invalidDateFailure } from '../../domain/dates/hints.js';
import { isNonBlankTitle } from '../../domain/text/php.js';

/** What differs between venues and organizers. */
interface KindSpec {
  kind: LinkedKind;
  /** path segment and list envelope key */
  plural: 'venues' | 'organizers';
  /** 'Venue' / 'Organizer': the doc schema name */
  schema: string;
  /** 'a venue' / 'an organizer', for docs */
  article: string;
  service: (services: Services) => LinkedPostService;
  /** the create args, in the original's order and key order */
  writeArgs: (services: Services) => Args;
  notAccessible: ErrorCode;
  inTrash: ErrorCode;
}

/** Shared validators of the write args. */
function writeValidators(services: Services) {
  return {
    author: async (v: unknown) => isNumeric(v) && (await services.users.exists(Number(v))),
    // A refused date names the accepted forms in `details`; `params` stays the original's.
    date: (v: unknown) => eventValidators.isTime(v, services.config.timezone) || invalidDateFailure('date', `the site time zone (${services.config.timezone})`),
    dateUtc: (v: unknown) => eventValidators.isTime(v, 'UTC') || invalidDateFailure('date_utc', 'UTC'),
    url: (v: unknown) => isEmptyValue(v) || isHttpUrl(v),
    image: (v: unknown, ctx: { viewer: Viewer }) => services.images.validateRef(v, ctx.viewer, true),
  };
}

/** Venue CREATE_args (behavior.md §4.4; names, types, defaults and descriptions as the index lists them). */
function venueWriteArgs(services: Services): Args {
  const v = writeValidators(services);
  const text = (description: string): ArgSpec => ({ type: 'string', default: null, description, validate: isStringValue });
  return {
    author: { type: 'integer', description: 'The venue author ID', validate: v.author },
    date: { type: 'string', description: 'The venue publication date', validate: v.date },
    date_utc: { type: 'string', description: 'The venue publication date (UTC time zone)', validate: v.dateUtc },
    venue: { type: 'string', description: 'The venue name', required: true, validate: isNonBlankTitle },
    description: text('The venue description'),
    status: { type: 'string', description: 'The venue post status', validate: isPostStatus },
    // Strings, no validator (a JSON boolean is rejected by the type check, as in the original).
    show_map: { type: 'string', default: null, description: 'Whether events linked to the venue should show a map or not' },
    show_map_link: { type: 'string', default: null, description: 'Whether events linked to the venue should show a map link or not' },
    address: text('The venue address'),
    city: text('The venue city'),
    country: text('The venue country'),
    province: text('The venue province'),
    state: text('The venue state'),
    zip: text('The venue ZIP code'),
    phone: text('The venue phone number'),
    stateprovince: text('The venue state and province'),
    website: { type: 'string', default: null, description: 'The venue website URL', validate: v.url },
    // Coordinates (as the original's Pro add-on): "" or null clears both.
    geo_lat: {
      format: 'double',
      docType: 'number',
      description: 'The venue geo latitude (-90 to 90; "" or null clears the coordinates)',
      validate: (x) => isCoordinate(x, 90),
    },
    geo_lng: {
      format: 'double',
      docType: 'number',
      description: 'The venue geo longitude (-180 to 180; "" or null clears the coordinates)',
      validate: (x) => isCoordinate(x, 180),
    },
    // The original's description says "organizer" here too.
    image: { type: 'string', default: null, description: 'The organizer featured image ID or URL', validate: v.image },
    password: postPasswordArg("venue's"),
  };
}

/** Organizer CREATE_args: every arg declares `default: null` in the reference. */
function organizerWriteArgs(services: Services): Args {
  const v = writeValidators(services);
  const text = (description: string): ArgSpec => ({ type: 'string', default: null, description, validate: isStringValue });
  return {
    author: { type: 'integer', default: null, description: 'The organizer author ID', validate: v.author },
    date: { type: 'string', default: null, description: 'The organizer publication date', validate: v.date },
    date_utc: { type: 'string', default: null, description: 'The organizer publication date (UTC time zone)', validate: v.dateUtc },
    organizer: { type: 'string', default: null, description: 'The organizer name', required: true, validate: isNonBlankTitle },
    description: text('The organizer description'),
    status: { type: 'string', default: null, description: 'The organizer post status', validate: isPostStatus },
    phone: text('The organizer phone number'),
    website: { type: 'string', default: null, description: 'The organizer website', validate: v.url },
    // An e-mail address or empty (the original checks no format: docs/api.md, Compatibility choices).
    email: text('The organizer e-mail address'),
    image: { type: 'string', default: null, description: 'The organizer featured image ID or URL', validate: v.image },
    password: postPasswordArg("organizer's"),
  };
}

const KINDS: Record<LinkedKind, KindSpec> = {
  venue: {
    kind: 'venue',
    plural: 'venues',
    schema: 'Venue',
    article: 'a venue',
    service: (s) => s.venues,
    writeArgs: venueWriteArgs,
    notAccessible: 'venue-not-accessible',
    inTrash: 'venue-is-in-trash',
  },
  organizer: {
    kind: 'organizer',
    plural: 'organizers',
    schema: 'Organizer',
    article: 'an organizer',
    service: (s) => s.organizers,
    writeArgs: organizerWriteArgs,
    notAccessible: 'organizer-not-accessible',
    inTrash: 'organizer-is-in-trash',
  },
};

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The list args, in the original's order (`status`'s description says "organizer" for both, as in the original). */
function listArgs(services: Services, spec: KindSpec, postType: PostType): Args {
  const Plural = capitalize(spec.plural);
  return {
    page: pageArg(),
    per_page: perPageArg(services.config.defaultPerPage, spec.plural),
    search: { description: `${Plural} should contain the specified string in the title, description or custom fields`, type: 'string', validate: isNonEmptyString },
    // An event the caller may not read answers as an unknown one (docs/security.md "Who may do what").
    event: {
      description: `${Plural} should be related to this event`,
      type: 'integer',
      validate: async (v, ctx) => isPositiveInt(v) && (await services.events.isEventId(Number(v))) && (await namesReadableEvent(services.events, ctx.viewer, v)),
    },
    // Untyped here (no `type`, so not in the index), boolean in the original's /doc (swagger_type).
    has_events: { description: `${Plural} should have events associated to them`, docType: 'boolean' },
    only_with_upcoming: { description: `${Plural} should have upcoming events associated to them`, default: false, docType: 'boolean' },
    status: {
      format: 'string',
      description: 'The organizer post status',
      docType: 'string',
      validate: (v, ctx) => listStatusFilter(ctx.viewer, postType, v) !== null,
      sanitize: (v, ctx) => listStatusFilter(ctx.viewer, postType, v),
    },
    // The event list's geolocation filters, on the venues themselves.
    ...(spec.kind === 'venue'
      ? {
          geoloc: { type: 'boolean', description: 'Venues should be filtered by whether they have geolocation data' },
          geoloc_lat: geolocCoordinateArg('lat', 'Venues should be filtered by their latitude location, must also provide geoloc_lng'),
          geoloc_lng: geolocCoordinateArg('lng', 'Venues should be filtered by their longitude location, must also provide geoloc_lat'),
          ...geolocRadiusArgs({ radius: services.config.geolocRadius, unit: services.config.geolocUnit }),
        }
      : {}),
    // Ours: incremental sync.
    sync_token: syncTokenArg(),
  } as Args;
}

function docs(spec: KindSpec): Record<'list' | 'create' | 'get' | 'post' | 'delete', EndpointDocs> {
  const { kind, schema, plural, article } = spec;
  const item = {} as Record<'list' | 'create' | 'get' | 'post' | 'delete', EndpointDocs>;
  item.list = {
    responses: {
      '200': { description: `Returns all the ${plural} matching the search criteria`, schema, listTitle: plural },
      '400': { description: 'One or more of the specified query variables has a bad format' },
      '404': { description: 'The requested page was not found.' },
    },
  };
  item.create = {
    responses: {
      '201': { description: `Returns the data of the created ${kind}`, schema },
      '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
      '403': { description: `The user is not authorized to create ${plural}` },
    },
  };
  item.get = {
    responses: {
      '200': { description: `Returns the data of the ${kind} with the specified post ID`, schema },
      '400': { description: `The ${kind} post ID is missing.` },
      '403': { description: `The ${kind} with the specified ID is not accessible.` },
      '404': { description: `${capitalize(article)} with the specified post ID does not exist.` },
    },
  };
  item.post = {
    responses: {
      '200': { description: `Returns the data of the updated ${kind}`, schema },
      '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
      '403': { description: `The user is not authorized to update this ${kind}` },
    },
  };
  item.delete = {
    responses: {
      '200': { description: `Deletes ${article} and returns its data`, schema },
      '400': { description: `The ${kind} post ID is missing or does not exist.` },
      '403': { description: `The current user cannot delete the ${kind} with the specified ID.` },
      '410': { description: `The ${kind} with the specified ID has been deleted already.` },
      '500': { description: `The ${kind} with the specified ID could not be deleted.` },
    },
  };
  return item;
}

/** The write fields the caller sent (partial updates, COMPAT 1); path args left out. */
function writeInput(args: Record<string, unknown>, sent: ReadonlySet<string>, pathArg: string, raw?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (sent.has(k) && k !== pathArg) input[k] = v;
  // A JSON `null` is "not sent" for every other field (WordPress), but clears venue coordinates.
  for (const k of ['geo_lat', 'geo_lng']) if (k in args === false && raw?.[k] === null) input[k] = null;
  return input;
}

/** The routes of one kind: list + create, by id, by slug (the original's registration order). */
function linkedPostRoutes(services: Services, spec: KindSpec): RouteDecl[] {
  const { kind, plural } = spec;
  const service = spec.service(services);
  const postType = service.postType;
  const writeArgs = spec.writeArgs(services);
  const d = docs(spec);

  // A protected record is answered without its content unless the request may see it (the
  // original's venue and organizer data filters; post-passwords.ts), its write answers included.
  const represent = async (ctx: EndpointContext, record: LinkedRecord, context: 'single' | 'list') => shownToRequest(ctx, (await service.represent([record], ctx.links, context))[0]!, postType);
  const reload = async (id: number) => (await service.findById(id))!;

  const list = route(`/${plural}`, [
    endpoint({
      methods: ['GET'],
      args: listArgs(services, spec, postType),
      permission: anyone,
      docs: d.list,
      versioning: { kind: 'list' },
      handler: async (ctx) => {
        const a = ctx.args as LinkedListArgs;
        checkGeolocArgs(a);
        if (ctx.args.sync_token !== undefined) {
          const scope = listScope(ctx.viewer, postType, a.status);
          return syncAnswer(ctx, {
            type: kind,
            matching: async (ids) => {
              if (ids.length === 0) return new Set();
              const now = await service.list(ctx.viewer, { ...a, page: 1, per_page: ids.length, ids }, { maxPerPage: ids.length });
              return new Set(now.records.map((r) => Number(r.id)));
            },
            listed: (before: { status: string; author_id: number }) =>
              scope.statuses.includes(before.status) && (scope.onlyPublishedOrAuthor === undefined || before.status === 'publish' || before.author_id === scope.onlyPublishedOrAuthor),
            unknownShown: false,
            tombstones: (ids) => services.sync.postTombstones(ids),
            represent: async (ids) => {
              const records = (await service.load(ids)) as Map<number, LinkedRecord>;
              const ordered = ids.map((id) => records.get(id)).filter((r): r is LinkedRecord => r !== undefined);
              const json = await service.represent(ordered, ctx.links, 'list');
              return new Map(ordered.map((r, i) => [Number(r.id), shownToRequest(ctx, json[i]!, postType)]));
            },
            body: (items, urls, total, totalPages) => ({ [plural]: items, ...urls, total, total_pages: totalPages }),
            restUrl: ctx.links.rest(`${plural}/`),
            pageNotFound: kind === 'venue' ? 'venue-archive-page-not-found' : 'organizer-archive-page-not-found',
          });
        }
        const { token, renew } = await syncTokenNow(services);
        const page = await service.list(ctx.viewer, a, { maxPerPage: services.config.maxPerPage });
        // The page's records are loaded (and kept); their representations and the JSON text are not yet.
        await ctx.reserve?.(2 * page.records.reduce((n, r) => n + r.title.length + r.content.length + r.excerpt.length, 0));
        const items = (await service.represent(page.records, ctx.links, 'list')).map((json) => shownToRequest(ctx, json, postType));
        const urls = listUrls(ctx.links.rest(`${plural}/`), page.query, null, a.page, page.totalPages);
        return {
          body: { [plural]: items, ...urls, total: page.total, total_pages: page.totalPages },
          headers: { ...listHeaders(page.total, page.totalPages, urls), 'X-Sync-Token': token },
          renew: { 'x-sync-token': renew },
        };
      },
    }),
    endpoint({
      methods: ['POST'],
      args: writeArgs,
      // Naming another user as author needs edit_others_* (canAssignAuthor, docs/api.md "Compatibility choices").
      // The same permission as the inline entries of event writes (inlineLinkedChecks).
      permission: (ctx) => canCreatePost(ctx.viewer, postType, ctx.args.author),
      docs: d.create,
      handler: async (ctx) => {
        const input = writeInput(ctx.args, ctx.sent, '', ctx.input);
        const id = await service.createPost(input, ctx.viewer);
        return { status: 201, body: await represent(ctx, await reload(id), 'list') };
      },
    }),
  ]);

  /** GET / DELETE / update endpoints of an item route; `pathArg` names the addressing arg. */
  const itemEndpoints = (pathArg: 'id' | 'slug', addressing: ArgSpec, load: (ctx: Omit<EndpointContext, 'record'>) => Promise<LinkedRecord | null>) => {
    const mustHave = (ctx: EndpointContext<LinkedRecord>): LinkedRecord => {
      // The path arg's validator saw the record; it can only be gone after a concurrent change.
      if (!ctx.record) throw invalidParams({ [pathArg]: 'Invalid parameter.' });
      return ctx.record;
    };
    return [
      endpoint<LinkedRecord>({
        methods: ['GET'],
        args: { [pathArg]: addressing },
        load,
        permission: anyone,
        docs: d.get,
        versioning: { kind: 'item', type: kind, readable: (ctx) => ctx.record !== null && service.readableBy(ctx.record, ctx.viewer) },
        handler: async (ctx) => {
          const record = mustHave(ctx);
          if (!service.readableBy(record, ctx.viewer)) throw apiError(spec.notAccessible);
          return { body: await represent(ctx, record, 'single') };
        },
      }),
      endpoint<LinkedRecord>({
        methods: ['DELETE'],
        args: { [pathArg]: addressing },
        load,
        permission: (ctx) => (ctx.record ? canDeletePost(ctx.viewer, postType, ctx.record) : typeCan(ctx.viewer, 'delete', postType)),
        docs: d.delete,
        precondition: { type: kind },
        handler: async (ctx) => {
          const record = mustHave(ctx);
          if (record.status === 'trash') throw apiError(spec.inTrash);
          await service.trashPost(record);
          return { body: await represent(ctx, await reload(Number(record.id)), 'list') };
        },
      }),
      endpoint<LinkedRecord>({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { [pathArg]: addressing, ...optionalArgs(writeArgs) },
        load,
        permission: (ctx) => (ctx.record ? canEditPost(ctx.viewer, postType, ctx.record) : typeCan(ctx.viewer, 'edit', postType)) && canAssignAuthor(ctx.viewer, postType, ctx.args.author),
        docs: d.post,
        precondition: { type: kind },
        handler: async (ctx) => {
          const record = mustHave(ctx);
          const input = writeInput(ctx.args, ctx.sent, pathArg, ctx.input);
          await service.updatePost(record, input, ctx.viewer);
          return { body: await represent(ctx, await reload(Number(record.id)), 'list') };
        },
      }),
    ];
  };

  // is_venue_id / is_organizer_id: an id of this kind, any status (unknown → 400 before permissions).
  const idSpec: ArgSpec = {
    ...idArg(`the ${kind} post ID`),
    validate: async (v) => isPositiveInt(v) && (await service.existingIds([Number(v)])).has(Number(v)),
  };
  // is_venue_slug / is_organizer_slug.
  const slugSpec: ArgSpec = {
    ...slugArg(`the ${kind} post name`),
    validate: async (v) => typeof v === 'string' && v !== '' && (await service.findBySlug(v)) !== undefined,
  };
  const byId = itemEndpoints('id', idSpec, async (ctx) => (await service.findById(Number(ctx.path.id))) ?? null);
  const bySlug = itemEndpoints('slug', slugSpec, async (ctx) => (await service.findBySlug(ctx.path.slug)) ?? null);

  return [list, route(`/${plural}/{id}`, byId), route(`/${plural}/by-slug/{slug}`, bySlug)];
}

/**
 * The rules of the direct create route (`POST /venues`, `/organizers`) for the inline entries of
 * an event write's `venue`/`organizer`: `check` runs the route's validators on the
 * fields an entry has (not their types, as the original's is_*_entry; `null` is "not sent"), and
 * a failure is the route's own 400 `rest_invalid_param`, carried as the event parameter's
 * failure (its message, and the whole error in `details`); `permitted` is the route's permission
 * for each entry (else the event write answers the route's 403 `rest_forbidden`).
 *
 * @example
 *   const venue = inlineLinkedChecks(services, 'venue');
 *   await venue.check(ctx)({ venue: 'Hall', author: 999999 }) // { message: 'Invalid parameter(s): author', detail: {…} }
 */
export function inlineLinkedChecks(services: Services, kind: LinkedKind): { check: (ctx: ArgContext) => InlineEntryCheck; permitted: (viewer: Viewer, value: unknown) => boolean } {
  const spec = KINDS[kind];
  const service = spec.service(services);
  const args = spec.writeArgs(services);
  return {
    check: (ctx) => async (entry) => {
      const failures: Record<string, ParamFailure | string> = {};
      for (const [name, arg] of Object.entries(args)) {
        const value = entry[name];
        if (value === undefined || value === null || !arg.validate) continue;
        const result = await arg.validate(value, ctx);
        if (result !== true) failures[name] = result === false ? INVALID_PARAMETER : result;
      }
      if (Object.keys(failures).length === 0) return true;
      const error = invalidParams(failures).toJSON() as { code: string; message: string; data: Record<string, unknown> };
      return { message: error.message, detail: error };
    },
    permitted: (viewer, value) => service.inlineEntries(value).every((entry) => canCreatePost(viewer, service.postType, entry.author)),
  };
}

/** `/venues`, `/venues/{id}`, `/venues/by-slug/{slug}`. */
export function venueRoutes(services: Services): RouteDecl[] {
  return linkedPostRoutes(services, KINDS.venue);
}

/** `/organizers`, `/organizers/{id}`, `/organizers/by-slug/{slug}`. */
export function organizerRoutes(services: Services): RouteDecl[] {
  return linkedPostRoutes(services, KINDS.organizer);
}
