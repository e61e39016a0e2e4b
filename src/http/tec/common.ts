/**
 * What every `tec/v1` route shares: the namespace, the experimental acknowledgement rule
 * (`X-TEC-EEA`), the original's own error bodies, the collection arguments and paging headers,
 * and the entity environment (site zone, formats, now).
 *
 * @example
 *   endpoint({ methods: ['GET'], args: { page: pageArg(), per_page: perPageArg(10) }, permission: acknowledged(anyone), handler })
 */
import { ApiError } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { eventValidators } from '../../domain/events/index.js';
import { isPositiveInt, listToArray } from '../../domain/values.js';
import { phpUrlencode } from '../paging.js';
import type { ArgSpec, EndpointContext, Reply } from '../route.js';
import type { EntityEnv } from './entities.js';

/** The namespace of The Events Calendar's second REST API (TEC 6.15). */
export const TEC_NAMESPACE = 'tec/v1';

/** The acknowledgement the original asks for in `X-TEC-EEA` (compared trimmed, case-insensitively). */
export const ACKNOWLEDGEMENT =
  'I understand that this endpoint is experimental and may change in a future release without maintaining backward compatibility. I also understand that I am using this endpoint at my own risk, while support is not provided for it.';

/** The statuses a list may ask for (the original's ALLOWED_STATUS). */
export const ALLOWED_STATUS = ['publish', 'pending', 'draft', 'future', 'private'] as const;

/**
 * The original's experimental rule: every endpoint but `/docs` answers 400
 * `missing_experimental_endpoint_acknowledgement` unless `X-TEC-EEA` holds the acknowledgement,
 * checked after the permission (a caller who may not act gets 401/403 first). TEC_V1_ACKNOWLEDGEMENT
 * =false drops the rule, as the original's `tec_rest_experimental_endpoint` filter does.
 */
export function requireAcknowledgement(services: Services, ctx: Pick<EndpointContext, 'headers'>): void {
  if (!services.config.tecV1Acknowledgement) return;
  // The pipeline sets the headers; the Allow header's checks run without them, and pass.
  if (ctx.headers === undefined) return;
  const raw = ctx.headers['x-tec-eea'];
  const header = Array.isArray(raw) ? raw[0] : raw;
  if (header === undefined || header === '') throw new ApiError('missing_experimental_endpoint_acknowledgement', 'Experimental endpoint requires acknowledgement header.', 400);
  if (header.trim().toLowerCase() !== ACKNOWLEDGEMENT.toLowerCase())
    throw new ApiError('missing_experimental_endpoint_acknowledgement', 'Experimental endpoint requires appropriate acknowledgement header.', 400);
}

/** A permission check followed by the acknowledgement rule (the original checks it in the callback, after the permission). */
export function acknowledged<R>(services: Services, permission: (ctx: EndpointContext<R>) => boolean | Promise<boolean>): (ctx: EndpointContext<R>) => Promise<boolean> {
  return async (ctx) => {
    if (!(await permission(ctx))) return false;
    requireAcknowledgement(services, ctx);
    return true;
  };
}

/** The original's entity errors: `{ error }` with a status, not WordPress' error shape. */
export function entityError(status: number, error: string): Reply {
  return { status, body: { error } };
}

/** `page`: 1 and up. */
export function pageArg(): ArgSpec {
  return { type: 'integer', default: 1, description: 'The collection page number.', validate: (v) => isPositiveInt(v) };
}

/** `per_page`: 1 to 100, the site's `posts_per_page` by default. */
export function perPageArg(defaultPerPage: number): ArgSpec {
  return { type: 'integer', default: defaultPerPage, description: 'Maximum number of items to be returned in result set.', validate: (v) => isPositiveInt(v) && Number(v) <= 100 };
}

/** A list of positive integers (a JSON array, `a[]=` or a CSV string). */
export function idListArg(description: string, validate?: (ids: number[]) => Promise<boolean> | boolean): ArgSpec {
  return {
    description,
    items: { type: 'integer' },
    docType: 'array',
    validate: async (v) => {
      const ids = listToArray(v);
      if (!ids.every(isPositiveInt)) return false;
      return validate === undefined || (await validate(ids.map(Number)));
    },
    sanitize: (v) => listToArray(v).map(Number),
  };
}

/** `status`: a list of the allowed statuses (the original's validate_status). */
export function statusArg(description: string): ArgSpec {
  return {
    description,
    items: { type: 'string' },
    docType: 'array',
    default: ['publish'],
    validate: (v) => {
      const list = listToArray(v);
      return list.length > 0 && list.every((s) => (ALLOWED_STATUS as readonly string[]).includes(String(s)));
    },
    sanitize: (v) => listToArray(v).map(String),
  };
}

/** A date and time (anything the original's strtotime reads), in the site's zone. */
export function dateTimeArg(services: Services, description: string): ArgSpec {
  return { type: 'string', description, validate: (v) => eventValidators.isTime(v, services.config.timezone) };
}

/** `orderby` / `order` as the original declares them. */
export const ORDER_ARGS: Record<'orderby' | 'order', ArgSpec> = {
  orderby: {
    type: 'string',
    default: 'event_date',
    enum: ['date', 'event_date', 'title', 'menu_order', 'modified'],
    description: 'Sort collection by event attribute.',
    validate: (v) => ['date', 'event_date', 'title', 'menu_order', 'modified'].includes(String(v)),
  },
  order: { type: 'string', default: 'ASC', enum: ['ASC', 'DESC'], description: 'Order sort attribute ascending or descending.', validate: (v) => ['ASC', 'DESC'].includes(String(v)) },
};

/**
 * The paging headers of a collection: `X-WP-Total`, `X-WP-TotalPages` and `Link` with `next` and
 * `prev` (the request's URL with `page` moved to the end, as WordPress' add_query_arg).
 */
export function pagingHeaders(ctx: EndpointContext, path: string, page: number, total: number, totalPages: number): Record<string, string> {
  const base = ctx.links.rest(path);
  const params = [...new URLSearchParams(ctx.rawQuery)];
  // add_query_arg: `page` keeps its place when the request had one, else it comes last.
  const at = (n: number) => {
    const pairs = params.some(([k]) => k === 'page') ? params.map(([k, v]): [string, string] => [k, k === 'page' ? String(n) : v]) : [...params, ['page', String(n)] as [string, string]];
    return `${base}?${pairs.map(([k, v]) => `${phpUrlencode(k)}=${phpUrlencode(v)}`).join('&')}`;
  };
  const links: string[] = [];
  if (page < totalPages) links.push(`<${at(page + 1)}>; rel="next"`);
  if (page > 1) links.push(`<${at(page - 1)}>; rel="prev"`);
  const headers: Record<string, string> = { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(totalPages) };
  if (links.length) headers.Link = links.join(', ');
  return headers;
}

/** The original's answer to a page past the last: 404 with its own body (no `data`). */
export function pageNotFound(): Reply {
  return { status: 404, body: { code: 'tec_rest_organizers_page_not_found', message: 'The requested page was not found.' } };
}

/** The environment of the entity shapes, now. */
export function entityEnv(services: Services): EntityEnv {
  const { config } = services;
  return { siteUrl: config.siteUrl.replace(/\/+$/, ''), siteTimezone: config.timezone, dateFormat: config.dateFormat, timeFormat: config.timeFormat, nowUtc: services.clock.nowGmt() };
}
