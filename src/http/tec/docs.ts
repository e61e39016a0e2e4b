/**
 * `GET tec/v1/docs`: the OpenAPI 3.0.4 document of `tec/v1`, as the original answers it (info,
 * tags, the entities' definitions, Basic authentication, the server, the paths), the paths built
 * from this namespace's own route declarations, so they say what the routes take.
 *
 * @example const doc = tecOpenApi(routes, ctx.links); doc.paths['/events'].get.operationId // 'getEvents'
 */
import type { Links } from '../../domain/links.js';
import type { ArgSpec, Endpoint, RouteDecl } from '../route.js';
import { TEC_DEFINITIONS } from './definitions.js';

const TAG = { name: 'Events', description: 'These operations are introduced by The Events Calendar.' };
const COMMON_TAG = { name: 'Common', description: 'These operations are introduced by the Common library.' };

/** The body definition each entity's writes take. */
const BODIES: Record<string, string> = { Event: 'Event_Request_Body', Venue: 'Venue_Request_Body', Organizer: 'Organizer_Request_Body' };

/** An argument as an OpenAPI parameter. */
function parameter(name: string, spec: ArgSpec, where: 'path' | 'query'): Record<string, unknown> {
  const type = spec.docType ?? spec.type ?? 'string';
  const schema: Record<string, unknown> = { type };
  if (spec.items) schema.items = { type: spec.items.type };
  if (spec.enum) schema.enum = [...spec.enum];
  if (spec.default !== undefined && typeof spec.default !== 'function') schema.default = spec.default;
  return { name, in: where, description: spec.description ?? '', required: where === 'path' || spec.required === true, schema };
}

/** The read operations' answer headers of a collection. */
const LIST_HEADERS = {
  'X-WP-Total': { description: 'The total number of items matching the request.', schema: { type: 'integer' } },
  'X-WP-TotalPages': { description: 'The total number of pages for the request.', schema: { type: 'integer' } },
  Link: { description: 'RFC 5988 Link header for pagination, with rel="next" and rel="prev"; omitted when there is only one page.', schema: { type: 'string' } },
};

function operation(decl: RouteDecl, e: Endpoint, method: string): Record<string, unknown> {
  const docs = e.docs ?? { responses: {} };
  const writes = method !== 'get';
  const op: Record<string, unknown> = {
    summary: docs.summary ?? '',
    security: writes ? [{ BasicAuth: [] }] : [],
    description: docs.description ?? docs.summary ?? '',
    operationId: docs.operationId ?? '',
    tags: [decl.path === '/docs' ? COMMON_TAG : TAG],
  };
  const entity = Object.values(docs.responses).find((r) => r.schema !== undefined)?.schema;
  if ((method === 'post' || method === 'put') && entity && BODIES[entity]) {
    op.requestBody = {
      description: `The ${entity.toLowerCase()} data to ${method === 'post' ? 'create' : 'update'}.`,
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${BODIES[entity]}` } } },
    };
  }
  const parameters: Record<string, unknown>[] = [];
  for (const [name, spec] of Object.entries(e.args)) {
    if (spec.in === 'path') parameters.push(parameter(name, spec, 'path'));
    else if (method === 'get' || method === 'delete') parameters.push(parameter(name, spec, 'query'));
  }
  if (parameters.length) op.parameters = parameters;
  const responses: Record<string, unknown> = {};
  for (const [code, r] of Object.entries(docs.responses)) {
    const answer: Record<string, unknown> = { description: r.description };
    if (r.schema && r.listTitle) {
      answer.headers = LIST_HEADERS;
      answer.content = { 'application/json': { schema: { type: 'array', items: { $ref: `#/components/schemas/${r.schema}` } } } };
    } else if (r.schema) answer.content = { 'application/json': { schema: { $ref: `#/components/schemas/${r.schema}` } } };
    responses[code] = answer;
  }
  op.responses = responses;
  return op;
}

/** The OpenAPI document of the namespace's routes (its index and `/docs` aside from the paths but `/docs` itself). */
export function tecOpenApi(routes: RouteDecl[], links: Links): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const decl of routes) {
    if (decl.path === '') continue;
    const ops: Record<string, unknown> = {};
    for (const e of decl.endpoints) {
      for (const m of e.methods) {
        // WordPress registers PUT and PATCH together; the document names PUT, as the original's.
        if (m === 'PATCH') continue;
        ops[m.toLowerCase()] = operation(decl, e, m.toLowerCase());
      }
    }
    paths[decl.path] = ops;
  }
  return {
    openapi: '3.0.4',
    info: {
      title: 'The Events Calendar REST API',
      version: '1.0.0',
      description:
        'The Events Calendar REST API allows accessing upcoming events information easily and conveniently. This service answers its events, venues and organizers; it has no ticketing, so no ticket operations are offered and no event has tickets.',
      contact: { name: 'The Events Calendar', email: 'support@theeventscalendar.com' },
    },
    tags: [TAG, COMMON_TAG],
    components: { schemas: TEC_DEFINITIONS, securitySchemes: { BasicAuth: { type: 'http', scheme: 'basic' } } },
    servers: [{ url: links.rest('').replace(/\/$/, '') }],
    paths,
  };
}
