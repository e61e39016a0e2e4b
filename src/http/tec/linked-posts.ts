/**
 * `tec/v1` venues and organizers: `/venues`, `/venues/{id}`, `/organizers`, `/organizers/{id}`
 * (list, create; read, update with PUT or PATCH, delete), one factory for both kinds with their
 * differences as data, over the domain's linked-post services (`services.venues`,
 * `services.organizers`) as the legacy routes.
 *
 * @example routes.push(...tecLinkedRoutes(services, 'venue'), ...tecLinkedRoutes(services, 'organizer'));
 */
import { invalidParams, missingParams } from '../../domain/errors.js';
import { isProtected } from '../../domain/post-passwords.js';
import { isHttpUrl } from '../../domain/images.js';
import type { LinkedListArgs, LinkedPostService } from '../../domain/linked-posts/index.js';
import { canAssignAuthor, canCreatePost, canDeletePost, canEditPost, typeCan } from '../../domain/permissions.js';
import type { Services } from '../../domain/services.js';
import { isEmptyValue, isPositiveInt } from '../../domain/values.js';
import type { LinkedKind, LinkedRecord } from '../../store/linked-posts.js';
import { anyone, endpoint, route, type Args, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { isStringValue } from '../routes/common.js';
import { acknowledged, entityEnv, entityError, pageArg, pageNotFound, pagingHeaders, perPageArg, statusArg } from './common.js';
import { tecOrganizer, tecVenue } from './entities.js';
import { postWriteArgs, tecDocs, withPasswords } from './posts.js';

/** What differs between venues and organizers. */
interface KindSpec {
  kind: LinkedKind;
  plural: 'venues' | 'organizers';
  service: (services: Services) => LinkedPostService;
  /** the entity's own fields of the body, after the post fields */
  fields: Args;
  /** `tec/v1` field → the domain's write field */
  names: Record<string, string>;
  shape: typeof tecVenue;
}

const text = (description: string): ArgSpec => ({ type: 'string', description, validate: isStringValue });
const url = (description: string): ArgSpec => ({ type: 'string', description, validate: (v) => isEmptyValue(v) || isHttpUrl(v) });

const KINDS: Record<LinkedKind, KindSpec> = {
  venue: {
    kind: 'venue',
    plural: 'venues',
    service: (s) => s.venues,
    fields: {
      address: text('The address of the venue'),
      country: text('The country of the venue'),
      city: text('The city of the venue'),
      state_province: text('The state or province of the venue'),
      state: text('The state of the venue'),
      province: text('The province of the venue'),
      zip: text('The zip code of the venue'),
      phone: text('The phone number of the venue'),
      website: url('The website of the venue'),
    },
    names: { title: 'venue', state_province: 'stateprovince' },
    shape: tecVenue,
  },
  organizer: {
    kind: 'organizer',
    plural: 'organizers',
    service: (s) => s.organizers,
    fields: { phone: text('The phone number of the organizer'), website: url('The website of the organizer'), email: text('The email of the organizer') },
    names: { title: 'organizer' },
    shape: tecOrganizer,
  },
};

/** The domain's write input of a body: the fields sent, renamed where the names differ. */
function writeInput(spec: KindSpec, args: Record<string, unknown>, sent: ReadonlySet<string>): Record<string, unknown> {
  const rename: Record<string, string> = { content: 'description', date_gmt: 'date_utc', featured_media: 'image', ...spec.names };
  const own = new Set(['title', 'content', 'excerpt', 'slug', 'status', 'author', 'date', 'date_gmt', 'featured_media', 'password', ...Object.keys(spec.fields)]);
  const input: Record<string, unknown> = {};
  for (const name of own) if (sent.has(name)) input[rename[name] ?? name] = args[name];
  return input;
}

/** The routes of one kind: the collection, then the entity. */
export function tecLinkedRoutes(services: Services, kind: LinkedKind): RouteDecl[] {
  const spec = KINDS[kind];
  const service = spec.service(services);
  const { postType } = service;
  const docs = tecDocs(kind, spec.plural);
  const bodyArgs: Args = { ...postWriteArgs(services), ...spec.fields };
  const answer = async (ctx: EndpointContext, records: LinkedRecord[], context: 'single' | 'list') => {
    const legacy = await service.represent(records, ctx.links, context);
    const env = await withPasswords(services, entityEnv(services), ctx, legacy, postType);
    return legacy.map((json) => spec.shape(json, env));
  };
  const reload = async (id: number) => (await service.findById(id))!;

  const collection = route(`/${spec.plural}`, [
    endpoint({
      methods: ['GET'],
      args: {
        page: pageArg(),
        per_page: perPageArg(services.config.defaultPerPage),
        search: { type: 'string', description: `Limit results to those matching a string.` },
        event: { type: 'integer', description: `Limit result set to ${spec.plural} assigned to a specific event.`, validate: (v) => isPositiveInt(v) },
        has_events: { type: 'boolean', description: `Limit result set to ${spec.plural} that have events.` },
        only_with_upcoming: { type: 'boolean', description: `Limit result set to ${spec.plural} that have upcoming events.` },
        status: statusArg(`Limit result set to ${spec.plural} with specific status.`),
      },
      permission: acknowledged(services, anyone),
      docs: docs.list,
      handler: async (ctx) => {
        const a = ctx.args;
        const status: string[] = typeCan(ctx.viewer, 'edit', postType) ? a.status : ['publish'];
        const args: LinkedListArgs = { page: a.page, per_page: a.per_page, status };
        if (a.search !== undefined && a.search !== '') args.search = a.search;
        if (a.event !== undefined) args.event = a.event;
        if (a.has_events !== undefined) args.has_events = a.has_events;
        if (a.only_with_upcoming !== undefined) args.only_with_upcoming = a.only_with_upcoming;
        let page;
        try {
          page = await service.list(ctx.viewer, args, { maxPerPage: 100 });
        } catch (err) {
          // The legacy list's answer past the last page; tec/v1 has its own.
          if (String((err as { code?: unknown }).code).endsWith('-archive-page-not-found')) return pageNotFound();
          throw err;
        }
        if (page.records.length === 0 && a.page > 1) return pageNotFound();
        return { body: await answer(ctx, page.records, 'list'), headers: pagingHeaders(ctx, spec.plural, a.page, page.total, page.totalPages) };
      },
    }),
    endpoint({
      methods: ['POST'],
      args: bodyArgs,
      permission: acknowledged(services, (ctx) => canCreatePost(ctx.viewer, postType, ctx.args.author)),
      docs: docs.create,
      handler: async (ctx) => {
        const input = writeInput(spec, ctx.args, ctx.sent);
        if (typeof input[kind] !== 'string' || (input[kind] as string).trim() === '') throw missingParams(['title']);
        const id = await service.createPost(input, ctx.viewer);
        const [json] = await answer(ctx, [await reload(id)], 'single');
        return { status: 201, body: json };
      },
    }),
  ]);

  const load = async (ctx: Omit<EndpointContext, 'record'>) => (await service.findById(Number(ctx.path.id))) ?? null;
  const id: ArgSpec = { type: 'integer', in: 'path', description: `Unique identifier for the ${kind}.` };
  const single = route(`/${spec.plural}/{id}`, [
    endpoint<LinkedRecord>({
      methods: ['GET'],
      args: { id, password: { type: 'string', description: `The password of a password-protected ${kind}.` } },
      load,
      permission: acknowledged(services, (ctx) => ctx.record !== null && service.readableBy(ctx.record, ctx.viewer)),
      docs: docs.read,
      // A protected record's answer depends on the password given: no version validators for it.
      versioning: { kind: 'item', type: kind, readable: (ctx) => ctx.record !== null && service.readableBy(ctx.record, ctx.viewer) && !isProtected(ctx.record) },
      handler: async (ctx) => {
        if (!ctx.record) return entityError(404, 'The entity could not be read.');
        const [json] = await answer(ctx, [ctx.record], 'single');
        return { body: json };
      },
    }),
    endpoint<LinkedRecord>({
      methods: ['PUT', 'PATCH'],
      args: { id, ...bodyArgs },
      load,
      permission: acknowledged(services, (ctx) => ctx.record !== null && canEditPost(ctx.viewer, postType, ctx.record) && canAssignAuthor(ctx.viewer, postType, ctx.args.author)),
      docs: docs.update,
      precondition: { type: kind },
      handler: async (ctx) => {
        if (!ctx.record) return entityError(404, 'The entity could not be updated.');
        const input = writeInput(spec, ctx.args, ctx.sent);
        if (input[kind] !== undefined && String(input[kind]).trim() === '') throw invalidParams({ title: 'Invalid parameter.' });
        await service.updatePost(ctx.record, input, ctx.viewer);
        const [json] = await answer(ctx, [await reload(Number(ctx.record.id))], 'single');
        return { body: json };
      },
    }),
    endpoint<LinkedRecord>({
      methods: ['DELETE'],
      args: { id, force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' } },
      load,
      permission: acknowledged(services, (ctx) => ctx.record !== null && canDeletePost(ctx.viewer, postType, ctx.record)),
      docs: docs.delete,
      precondition: { type: kind },
      handler: async (ctx) => {
        const record = ctx.record;
        if (!record) return entityError(404, 'The entity could not be deleted.');
        // Venues and organizers are never deleted for good here (events keep their history): `force` trashes.
        if (record.status === 'trash') return ctx.args.force === true ? { body: [] } : entityError(410, 'The entity has already been trashed.');
        await service.trashPost(record);
        return { body: [] };
      },
    }),
  ]);
  return [collection, single];
}
