/**
 * `tec/v1` events: `/events` (list, create) and `/events/{id}` (read, update with PUT or PATCH,
 * delete), with the original's arguments, answers, status codes and permissions, over the same
 * domain service as the legacy namespace (`services.events`): a write here is seen at once under
 * `calendar/events/v1` and `tribe/events/v1`, with the same versions (ETags), sync and webhooks.
 *
 * @example routes.push(...tecEventRoutes(services));
 */
import { DateTime } from 'luxon';
import { invalidParams, missingParams } from '../../domain/errors.js';
import { canReadEvent, eventValidators, type EventInput, type EventListArgs, type EventRange } from '../../domain/events/index.js';
import { isProtected } from '../../domain/post-passwords.js';
import { parseDateInput } from '../../domain/dates/strtotime.js';
import { toWallTime, utcToWall } from '../../domain/dates/wall.js';
import { canAssignAuthor, canCreatePost, canDeletePost, canEditPost, typeCan } from '../../domain/permissions.js';
import type { Services } from '../../domain/services.js';
import type { EventRecord } from '../../store/events.js';
import { anyone, endpoint, route, type Args, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { eventWriteArgs } from '../routes/events.js';
import { acknowledged, dateTimeArg, entityEnv, entityError, idListArg, ORDER_ARGS, pageArg, pageNotFound, pagingHeaders, perPageArg, statusArg } from './common.js';
import { tecEvent } from './entities.js';
import { postWriteArgs, tecDocs, withPasswords } from './posts.js';

const WALL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The list's arguments, in the original's order. */
function listArgs(services: Services): Args {
  const linkedIds = (service: Services['venues']) => async (ids: number[]) => (await service.existingIds(ids)).size === new Set(ids).size;
  return {
    page: pageArg(),
    per_page: perPageArg(services.config.defaultPerPage),
    start_date: dateTimeArg(services, 'Limit events to those starting after the specified date.'),
    end_date: dateTimeArg(services, 'Limit events to those ending before the specified date.'),
    search: { type: 'string', description: 'Limit results to those matching a string.' },
    categories: idListArg('Limit result set to events assigned specific categories.'),
    tags: idListArg('Limit result set to events assigned specific tags.'),
    venue: idListArg('Limit result set to events assigned to specific venues.', linkedIds(services.venues)),
    organizer: idListArg('Limit result set to events assigned to specific organizers.', linkedIds(services.organizers)),
    featured: { type: 'boolean', description: 'Limit result set to featured events only.' },
    status: statusArg('Limit result set to events with specific status.'),
    post_parent: { type: 'integer', description: 'Limit result set to events with specific post parent.' },
    starts_before: dateTimeArg(services, 'Limit result set to events starting before the specified date.'),
    starts_after: dateTimeArg(services, 'Limit result set to events starting after the specified date.'),
    ends_before: dateTimeArg(services, 'Limit result set to events ending before the specified date.'),
    ends_after: dateTimeArg(services, 'Limit result set to events ending after the specified date.'),
    ticketed: { type: 'boolean', description: 'Limit result set to events with tickets.' },
    ...ORDER_ARGS,
  };
}

/** The event fields of the request body (Event_Request_Body), validated with the legacy routes' own checks. */
function eventBodyArgs(services: Services): Args {
  const legacy = eventWriteArgs(services);
  const from = (name: string, description: string, extra: Partial<ArgSpec> = {}): ArgSpec => {
    const { required: _required, default: _default, ...spec } = legacy[name]!;
    return { ...spec, description, ...extra };
  };
  const utc = (description: string): ArgSpec => ({ type: 'string', description, validate: (v) => typeof v === 'string' && WALL.test(v) && eventValidators.isTime(v, 'UTC') });
  return {
    ...postWriteArgs(services, legacy),
    tribe_events_cat: { ...from('categories', 'The terms assigned to the entity in the tribe_events_cat taxonomy'), items: { type: 'integer' }, docType: 'array' },
    start_date: from('start_date', 'The start date of the event'),
    start_date_utc: utc('The start date of the event in UTC'),
    end_date: from('end_date', 'The end date of the event'),
    end_date_utc: utc('The end date of the event in UTC'),
    timezone: from('timezone', 'The timezone of the event'),
    duration: { type: 'integer', description: 'The duration of the event in seconds', validate: (v) => Number.isInteger(Number(v)) && Number(v) >= 0 },
    all_day: from('all_day', 'Whether the event is all day'),
    featured: from('featured', 'Whether the event is featured'),
    sticky: from('sticky', 'Whether the event is sticky'),
    cost: from('cost', 'The cost of the event'),
    organizers: { ...from('organizer', 'The organizers of the event'), items: { type: 'integer' }, docType: 'array' },
    venues: { ...from('venue', 'The venues of the event'), items: { type: 'integer' }, docType: 'array' },
  };
}

/** The `EventInput` of a `tec/v1` body: its names mapped onto the domain's, dates given in UTC or as a duration resolved. */
function eventInput(services: Services, args: Record<string, any>, sent: ReadonlySet<string>, record: EventRecord | null): EventInput {
  const input: Record<string, unknown> = {};
  const copy = (from: string, to: string = from) => {
    if (sent.has(from)) input[to] = args[from];
  };
  copy('title');
  copy('content', 'description');
  copy('excerpt');
  copy('slug');
  copy('status');
  copy('author');
  copy('date');
  copy('date_gmt', 'date_utc');
  copy('featured_media', 'image');
  copy('password');
  copy('tags');
  copy('tribe_events_cat', 'categories');
  copy('start_date');
  copy('end_date');
  copy('timezone');
  copy('all_day');
  copy('featured');
  copy('sticky');
  copy('cost');
  copy('organizers', 'organizer');
  copy('venues', 'venue');
  const tz = (typeof input.timezone === 'string' && input.timezone !== '' ? input.timezone : record?.timezone) || services.config.timezone;
  if (!sent.has('start_date') && sent.has('start_date_utc')) input.start_date = utcToWall(args.start_date_utc, tz);
  if (!sent.has('end_date') && sent.has('end_date_utc')) input.end_date = utcToWall(args.end_date_utc, tz);
  if (input.end_date === undefined && sent.has('duration')) {
    const start = input.start_date ?? record?.start_local;
    const parsed = typeof start === 'string' ? parseDateInput(start, tz) : null;
    if (parsed) input.end_date = toWallTime((parsed as DateTime).plus({ seconds: Number(args.duration) }));
  }
  return input as EventInput;
}

export function tecEventRoutes(services: Services): RouteDecl[] {
  const { events } = services;
  const bodyArgs = eventBodyArgs(services);
  const docs = tecDocs('event', 'events');
  const answer = async (ctx: EndpointContext, records: EventRecord[], context: 'single' | 'list') => {
    const legacy = await events.represent(records, ctx.viewer, context, ctx.links);
    const env = await withPasswords(services, entityEnv(services), ctx, legacy, 'tribe_events');
    return legacy.map((json) => tecEvent(json, env));
  };

  const collection = route('/events', [
    endpoint({
      methods: ['GET'],
      args: listArgs(services),
      permission: acknowledged(services, anyone),
      docs: docs.list,
      handler: async (ctx) => {
        const a = ctx.args;
        // Other statuses than published only for those who may edit events (the original's build_query).
        const statuses: string[] = typeCan(ctx.viewer, 'edit', 'tribe_events') ? a.status : ['publish'];
        const tz = services.config.timezone;
        const wall = (v: string | undefined) => (v === undefined ? undefined : toWallTime(parseDateInput(v, tz)!));
        const range: EventRange = {};
        const startsFrom = wall(a.starts_after) ?? wall(a.start_date);
        const startsUntil = wall(a.starts_before);
        const endsFrom = wall(a.ends_after);
        const endsUntil = wall(a.ends_before) ?? wall(a.end_date);
        if (startsFrom !== undefined) range.startsFrom = startsFrom;
        if (startsUntil !== undefined) range.startsUntil = startsUntil;
        if (endsFrom !== undefined) range.endsFrom = endsFrom;
        if (endsUntil !== undefined) range.endsUntil = endsUntil;
        if (a.order === 'DESC') range.descending = true;
        const args: EventListArgs = { page: a.page, per_page: a.per_page, status: statuses, range };
        if (a.search !== undefined && a.search !== '') args.search = a.search;
        if (a.categories?.length) args.categories = a.categories;
        if (a.tags?.length) args.tags = a.tags;
        if (a.venue?.length) args.venue = a.venue;
        if (a.organizer?.length) args.organizer = a.organizer;
        if (a.featured !== undefined) args.featured = a.featured;
        if (a.post_parent !== undefined) args.post_parent = a.post_parent;
        // No ticketing here: no event has tickets.
        if (a.ticketed === true) return { body: [], headers: pagingHeaders(ctx, 'events', a.page, 0, 0) };
        let page;
        try {
          page = await events.list(ctx.viewer, args, ctx.links, ctx.reserve);
        } catch (err) {
          if ((err as { code?: string }).code === 'event-archive-page-not-found') return pageNotFound();
          throw err;
        }
        if (page.events.length === 0 && a.page > 1) return pageNotFound();
        const env = await withPasswords(services, entityEnv(services), ctx, page.events, 'tribe_events');
        return { body: page.events.map((json) => tecEvent(json, env)), headers: pagingHeaders(ctx, 'events', a.page, page.total, page.totalPages) };
      },
    }),
    endpoint({
      methods: ['POST'],
      args: bodyArgs,
      permission: acknowledged(services, (ctx) => canCreatePost(ctx.viewer, 'tribe_events', ctx.args.author)),
      docs: docs.create,
      handler: async (ctx) => {
        const input = eventInput(services, ctx.args, ctx.sent, null);
        const missing = (['title', 'start_date', 'end_date'] as const).filter((k) => input[k] === undefined || input[k] === '');
        if (missing.length) throw missingParams(missing);
        const created = await events.create(ctx.viewer, input);
        const [json] = await answer(ctx, [created], 'single');
        return { status: 201, body: json };
      },
    }),
  ]);

  const load = async (ctx: Omit<EndpointContext, 'record'>): Promise<EventRecord | null> => {
    const record = await events.findById(Number(ctx.path.id));
    return record && record.type === 'tribe_events' ? record : null;
  };
  const id: ArgSpec = { type: 'integer', in: 'path', description: 'Unique identifier for the event.' };
  const single = route('/events/{id}', [
    endpoint<EventRecord>({
      methods: ['GET'],
      args: { id, password: { type: 'string', description: 'The password of a password-protected event.' } },
      load,
      // Unknown ids and records the caller may not read answer as a refused permission (the original's can_read).
      permission: acknowledged(services, (ctx) => ctx.record !== null && canReadEvent(ctx.viewer, ctx.record)),
      docs: docs.read,
      // A protected record's answer depends on the password given: no version validators for it.
      versioning: { kind: 'item', type: 'event', readable: (ctx) => ctx.record !== null && canReadEvent(ctx.viewer, ctx.record) && !isProtected(ctx.record) },
      handler: async (ctx) => {
        if (!ctx.record) return entityError(404, 'The entity could not be read.');
        const [json] = await answer(ctx, [ctx.record], 'single');
        return { body: json };
      },
    }),
    endpoint<EventRecord>({
      methods: ['PUT', 'PATCH'],
      args: { id, ...bodyArgs },
      load,
      permission: acknowledged(services, (ctx) => ctx.record !== null && canEditPost(ctx.viewer, 'tribe_events', ctx.record) && canAssignAuthor(ctx.viewer, 'tribe_events', ctx.args.author)),
      docs: docs.update,
      precondition: { type: 'event' },
      handler: async (ctx) => {
        if (!ctx.record) return entityError(404, 'The entity could not be updated.');
        const input = eventInput(services, ctx.args, ctx.sent, ctx.record);
        if (input.title !== undefined && input.title.trim() === '') throw invalidParams({ title: 'Invalid parameter.' });
        const updated = await events.update(ctx.viewer, ctx.record, input);
        const [json] = await answer(ctx, [updated], 'single');
        return { body: json };
      },
    }),
    endpoint<EventRecord>({
      methods: ['DELETE'],
      args: { id, force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' } },
      load,
      permission: acknowledged(services, (ctx) => ctx.record !== null && canDeletePost(ctx.viewer, 'tribe_events', ctx.record)),
      docs: docs.delete,
      precondition: { type: 'event' },
      handler: async (ctx) => {
        const record = ctx.record;
        if (!record) return entityError(404, 'The entity could not be deleted.');
        if (ctx.args.force === true) {
          // Our domain deletes for good only from the trash (as wp-admin): trash first.
          const trashed = record.status === 'trash' ? record : await events.trash(record, undefined, ctx.viewer);
          await events.purge(trashed);
          return { body: [] };
        }
        if (record.status === 'trash') return entityError(410, 'The entity has already been trashed.');
        await events.trash(record, undefined, ctx.viewer);
        return { body: [] };
      },
    }),
  ]);
  return [collection, single];
}
