/**
 * Category and tag routes: list, create, and read/update/delete by term id. One factory serves
 * both taxonomies; what differs (names, `parent`, texts) is data in {@link TAXONOMY_ROUTES}.
 *
 * Wire facts reproduced (shapes.md §5.1, §6.3, §7.4; behavior.md §4.5, §8, §10.3):
 * - lists answer `{rest_url, total, total_pages, categories|tags, next_rest_url?, previous_rest_url?}`
 *   with X-TEC-Total/X-TEC-TotalPages; `rest_url` is the bare collection URL, next/previous carry
 *   only `page`; a page past the end is 200 with an empty list;
 * - singles (GET, create, update) carry `_links`; list items and the delete answer do not;
 * - create is 201 with a `Location` header; delete is permanent and answers the term as it was;
 * - an unknown id or one of the other taxonomy is 400 `rest_invalid_param` (`params.id`), checked
 *   before permissions, so anonymous callers and subscribers get 400 too;
 * - writes need `canManageTerms` (categories: authors and up; tags: editors and up).
 *
 * Choices where we differ from the reference, or where it is silent:
 * - `orderby` accepts (any case) id, term_id, name, slug, term_group, count, description, parent,
 *   include, include_slugs and none; anything else is 400 (WordPress sorted by name). `order`
 *   accepts asc/desc (any case), anything else is 400 (WordPress took any other word as DESC).
 *   Default: name ascending, names compared case-insensitively; ties by id.
 * - `Location` and `_links` point at our own routes (COMPAT 7), not at /wp/v2.
 * - `description: ""` on update clears the description (COMPAT 1; the reference refused it, so a
 *   description could not be cleared). On create `""` is still 400, as recorded.
 * - `parent: 0` is accepted: on writes it makes a category top-level, on the list it selects
 *   top-level categories (the reference's validator refused 0).
 * - With `hide_empty`, categories keep ancestors of used categories (as WordPress does), and
 *   `total` counts them too, so that `total` always matches what the pages hold (WordPress'
 *   count query left them out).
 * - A slug sent on update that another term already has is 400 `duplicate_term_slug` (500 in
 *   WordPress, which set no status).
 * - `include`/`exclude` also accept slugs and names (the validator did; WordPress then read
 *   them as ids and dropped them).
 * - `post`/`event` naming an event the caller may not read answer as an unknown id (400
 *   `rest_invalid_param`), not WordPress core's 401/403 `rest_forbidden_context`, which told an
 *   existing draft from a missing id (docs/security.md "Who may do what").
 */
import type { Services } from '../../domain/services.js';
import { namesReadableEvent } from '../../domain/events/index.js';
import type { ParamFailure } from '../../domain/errors.js';
import { apiError, invalidParams } from '../../domain/errors.js';
import { canManageTerms } from '../../domain/permissions.js';
import { termLinks, toTermJson } from '../../domain/representations/term.js';
import { isTermOrder, TAXONOMY_TRAITS, TERM_ORDERBY, termOrderBy, type TermInput, type TermService } from '../../domain/terms/index.js';
import { isPositiveInt } from '../../domain/values.js';
import type { Taxonomy, TermRow } from '../../store/schema.js';
import { listHeaders, requestPageLinks } from '../paging.js';
import { anyone, endpoint, optionalArgs, route, type ArgContext, type Args, type EndpointContext, type EndpointDocs, type Reply, type RouteDecl } from '../route.js';
import { idArg, isNonEmptyString, isStringValue, pageArg, perPageArg } from './common.js';
import { syncAnswer, syncTokenArg, syncTokenNow } from '../sync.js';

/** What the routes of one taxonomy need to know about it. */
interface TaxonomyRoutes {
  taxonomy: Taxonomy;
  /** REST base, also the list key of the envelope */
  base: 'categories' | 'tags';
  /** 'event category' */
  singular: string;
  /** 'event categories' */
  plural: string;
  /** the service in the bundle */
  service: (services: Services) => TermService;
  /** the list's 404 description in the docs (the original's texts differ) */
  listNotFoundDoc: string;
}

export const TAXONOMY_ROUTES: Record<'categories' | 'tags', TaxonomyRoutes> = {
  categories: {
    taxonomy: 'tribe_events_cat',
    base: 'categories',
    singular: 'event category',
    plural: 'event categories',
    service: (s) => s.categories,
    listNotFoundDoc: 'The requested page was not found.',
  },
  tags: {
    taxonomy: 'post_tag',
    base: 'tags',
    singular: 'event tag',
    plural: 'event tags',
    service: (s) => s.tags,
    listNotFoundDoc: 'No event tags match the query or the requested page was not found.',
  },
};

/** WordPress' enum failure (`rest_not_in_enum`). */
function notInEnum(name: string, values: readonly string[]): ParamFailure {
  const message = `${name} is not one of ${values.join(', ')}.`;
  return { message, detail: { code: 'rest_not_in_enum', message, data: { param: name } } };
}

const isZero = (v: unknown): boolean => v === 0 || v === '0';

function docs(spec: TaxonomyRoutes): Record<'list' | 'get' | 'post' | 'delete', EndpointDocs> {
  const { singular } = spec;
  const article = /^[aeiou]/.test(singular) ? 'An' : 'A';
  return {
    list: {
      responses: {
        '200': { description: `Returns all the ${spec.plural} matching the search criteria`, schema: 'Term', listTitle: spec.base },
        '400': { description: 'One or more of the specified query variables has a bad format' },
        '404': { description: spec.listNotFoundDoc },
      },
    },
    get: {
      responses: {
        '200': { description: `Returns the data of the ${singular} with the specified term ID`, schema: 'Term' },
        '400': { description: `The ${singular} term ID is missing.` },
        '404': { description: `${article} ${singular} with the specified term ID does not exist.` },
      },
    },
    post: {
      responses: {
        '200': { description: `Returns the data of the updated ${singular}`, schema: 'Term' },
        '201': { description: `Returns the data of the created ${singular}`, schema: 'Term' },
        '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
        '403': { description: `The user is not authorized to create ${spec.plural}` },
      },
    },
    delete: {
      responses: {
        '200': { description: `Deletes an ${singular} and returns its data`, schema: 'Term' },
        '400': { description: `The ${singular} term ID is missing or does not exist.` },
        '403': { description: `The current user cannot delete the ${singular} with the specified term ID.` },
        '410': { description: `The ${singular} with the specified term ID has been deleted already.` },
        '500': { description: `The ${singular} with the specified term ID could not be deleted.` },
      },
    },
  };
}

function termRoutes(services: Services, spec: TaxonomyRoutes): RouteDecl[] {
  const service = spec.service(services);
  const { hierarchical } = TAXONOMY_TRAITS[spec.taxonomy];
  const d = docs(spec);

  const refs = (v: unknown) => service.validateRefs(v);
  const eventRef = async (v: unknown, ctx: ArgContext) => (await service.isEventRef(v)) && (await namesReadableEvent(services.events, ctx.viewer, v));
  const orderbyValues = Object.keys(TERM_ORDERBY);

  const listArgs: Args = {
    page: pageArg(),
    per_page: perPageArg(services.config.defaultPerPage, spec.plural),
    search: { description: 'Limit results to those matching a string', type: 'string', validate: isNonEmptyString },
    exclude: { description: 'Ensure result set exclude specific IDs', items: { type: 'integer' }, docType: 'array', validate: refs, sanitize: (v) => service.refIds(v) },
    include: { description: 'Limit result set to specific IDs', items: { type: 'integer' }, docType: 'array', validate: refs, sanitize: (v) => service.refIds(v) },
    order: { description: 'Order sort attribute ascending or descending', type: 'string', validate: (v) => isTermOrder(v) || notInEnum('order', ['asc', 'desc']) },
    orderby: { description: 'Sort collection by term attribute', type: 'string', validate: (v) => termOrderBy(v) !== undefined || notInEnum('orderby', orderbyValues) },
    hide_empty: { description: 'Whether to hide terms not assigned to any posts', type: 'boolean', default: '1' },
    ...(hierarchical ? { parent: { description: 'Limit result set to terms assigned to a specific parent', type: 'integer' as const, validate: (v: unknown) => isZero(v) || refs(v) } } : {}),
    post: { description: 'Limit result set to terms assigned to a specific post', type: 'integer', validate: eventRef },
    event: { description: 'Limit result set to terms assigned to a specific event (an alias of the "post" parameter)', type: 'integer', validate: eventRef },
    slug: { description: 'Limit result set to terms with a specific slug', type: 'string', validate: isNonEmptyString },
    // Ours: incremental sync.
    sync_token: syncTokenArg(),
  };

  const createArgs: Args = {
    name: { type: 'string', description: `The ${spec.singular} name`, required: true, validate: isNonEmptyString },
    description: { type: 'string', description: `The ${spec.singular} description`, validate: isNonEmptyString },
    slug: { type: 'string', description: `The ${spec.singular} slug`, validate: isNonEmptyString },
    // The original describes `parent` as "The event category slug"; kept verbatim for the index.
    ...(hierarchical ? { parent: { type: 'integer' as const, description: 'The event category slug', validate: (v: unknown) => isZero(v) || refs(v) } } : {}),
  };
  const optional = optionalArgs(createArgs);
  const idSpec = {
    ...idArg(`the ${spec.singular} term ID`),
    validate: async (v: unknown) => isPositiveInt(v) && (await service.get(Number(v))) !== undefined,
  };
  const updateArgs: Args = {
    id: idSpec,
    ...optional,
    // COMPAT 1: an explicit "" clears the description.
    description: { ...optional.description, validate: isStringValue },
  };

  const mayManage = (ctx: EndpointContext) => canManageTerms(ctx.viewer, spec.taxonomy);
  const single = (ctx: EndpointContext, term: TermRow) => ({ ...toTermJson(term, ctx.links), _links: termLinks(term, ctx.links) });
  /** WordPress reads `parent` on tag writes although tags do not declare it, and refuses it. */
  const refuseUndeclaredParent = (ctx: EndpointContext) => {
    const parent = ctx.input?.parent;
    if (!hierarchical && parent !== undefined && parent !== null) throw apiError('rest_taxonomy_not_hierarchical');
  };
  const writeInput = (ctx: EndpointContext): TermInput => {
    const input: TermInput = {};
    for (const key of ['name', 'description', 'slug', 'parent'] as const) if (ctx.sent.has(key) && key in createArgs) input[key] = ctx.args[key];
    return input;
  };
  const load = async (ctx: Omit<EndpointContext, 'record'>) => (await service.get(Number(ctx.path.id))) ?? null;
  const mustHave = (ctx: EndpointContext<TermRow>): TermRow => {
    if (!ctx.record) throw invalidParams({ id: 'Invalid parameter.' });
    return ctx.record;
  };

  const collection = route(`/${spec.base}`, [
    endpoint({
      methods: ['GET'],
      args: listArgs,
      permission: anyone,
      docs: d.list,
      versioning: { kind: 'list' },
      handler: async (ctx) => listAnswer(services, spec, service, ctx),
    }),
    endpoint({
      methods: ['POST'],
      args: createArgs,
      permission: mayManage,
      docs: d.post,
      handler: async (ctx) => {
        refuseUndeclaredParent(ctx);
        const term = await service.add({ ...writeInput(ctx), name: ctx.args.name });
        return { status: 201, body: single(ctx, term), headers: { location: ctx.links.rest(`${spec.base}/${term.id}`) } };
      },
    }),
  ]);

  const item = route(`/${spec.base}/{id}`, [
    endpoint<TermRow>({
      methods: ['GET'],
      args: { id: idSpec },
      load,
      permission: anyone,
      docs: d.get,
      versioning: { kind: 'item', type: 'term', readable: (ctx) => ctx.record !== null },
      handler: async (ctx) => ({ body: single(ctx, mustHave(ctx)) }),
    }),
    endpoint<TermRow>({
      methods: ['POST', 'PUT', 'PATCH'],
      args: updateArgs,
      load,
      permission: mayManage,
      docs: d.post,
      precondition: { type: 'term' },
      handler: async (ctx) => {
        const term = mustHave(ctx);
        refuseUndeclaredParent(ctx);
        return { body: single(ctx, await service.update(term, writeInput(ctx))) };
      },
    }),
    endpoint<TermRow>({
      methods: ['DELETE'],
      args: { id: idSpec },
      load,
      permission: mayManage,
      docs: d.delete,
      precondition: { type: 'term' },
      handler: async (ctx) => ({ body: toTermJson(await service.remove(mustHave(ctx)), ctx.links) }),
    }),
  ]);

  return [collection, item];
}

/** A taxonomy's list: a page of terms, or what changed since a sync token. */
async function listAnswer(services: Services, spec: TaxonomyRoutes, service: TermService, ctx: EndpointContext): Promise<Reply> {
  const a = ctx.args;
  const page = Number(a.page);
  const filters = {
    search: a.search,
    exclude: a.exclude,
    order: a.order,
    orderby: a.orderby,
    hideEmpty: a.hide_empty !== false,
    parent: a.parent,
    post: a.event ?? a.post,
    slug: a.slug,
  };
  if (a.sync_token !== undefined) {
    return syncAnswer(ctx, {
      type: 'term',
      matching: async (ids) => {
        const wanted = a.include ? ids.filter((id) => (a.include as number[]).includes(id)) : ids;
        if (wanted.length === 0) return new Set();
        const now = await service.list({ ...filters, page: 1, perPage: wanted.length, include: wanted });
        return new Set(now.terms.map((t) => Number(t.id)));
      },
      listed: () => true,
      unknownShown: true,
      tombstones: (ids, details) => services.sync.termTombstones(spec.taxonomy, ids, details),
      represent: async (ids) => {
        const terms = await Promise.all(ids.map((id) => service.get(id)));
        return new Map(terms.filter((t): t is TermRow => t !== undefined).map((t) => [Number(t.id), toTermJson(t, ctx.links)]));
      },
      body: (items, urls, total, totalPages) => ({
        rest_url: urls.rest_url,
        total,
        total_pages: totalPages,
        [spec.base]: items,
        ...(urls.next_rest_url ? { next_rest_url: urls.next_rest_url } : {}),
        ...(urls.previous_rest_url ? { previous_rest_url: urls.previous_rest_url } : {}),
      }),
      restUrl: ctx.links.rest(`${spec.base}/`),
    });
  }
  const { token, renew } = await syncTokenNow(services);
  const result = await service.list({ ...filters, page, perPage: Math.min(Number(a.per_page), services.config.maxPerPage), include: a.include });
  const restUrl = ctx.links.rest(`${spec.base}/`);
  const body: Record<string, unknown> = {
    rest_url: restUrl,
    total: result.total,
    total_pages: result.totalPages,
    [spec.base]: result.terms.map((t) => toTermJson(t, ctx.links)),
  };
  if (page < result.totalPages) body.next_rest_url = `${restUrl}?page=${page + 1}`;
  if (page > 1) body.previous_rest_url = page === 2 ? restUrl : `${restUrl}?page=${page - 1}`;
  // next/previous_rest_url drop the query (as the original); the Link header keeps it, as WordPress core does.
  return {
    body,
    headers: { ...listHeaders(result.total, result.totalPages, requestPageLinks(restUrl, ctx.rawQuery, page, result.totalPages)), 'X-Sync-Token': token },
    renew: { 'x-sync-token': renew },
  };
}

/** `/categories` and `/categories/{id}`. */
export function categoryRoutes(services: Services): RouteDecl[] {
  return termRoutes(services, TAXONOMY_ROUTES.categories);
}

/** `/tags` and `/tags/{id}`. */
export function tagRoutes(services: Services): RouteDecl[] {
  return termRoutes(services, TAXONOMY_ROUTES.tags);
}
