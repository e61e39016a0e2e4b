/**
 * `GET {ns}/doc`: an OpenAPI 3.0 document in the structure of the original's `/doc` (TEC 5.9.2+,
 * shapes.md §10.3 and examples/02), generated from the route declarations that also drive
 * validation and the namespace index (COMPAT decision 8), so it covers every route, method,
 * argument and documented response.
 *
 * Where we differ from the recorded document, on purpose:
 * - every route and method is documented (the original left out `/` , `POST /events` and the other
 *   collection creates, and PUT/PATCH); create endpoints keep their `required` fields;
 * - request bodies are offered as `application/x-www-form-urlencoded` and `application/json`;
 * - list answers are described as the envelopes they are (`EventsList`, …, with the
 *   `X-TEC-Total`/`X-TEC-TotalPages` headers, and WordPress' `X-WP-Total`/`X-WP-TotalPages`/`Link`
 *   we send beside them) rather than as bare arrays, errors as `Error`;
 * - static defaults, formats and enums of parameters are kept in their schemas;
 * - `servers[0].url` is the namespace root of the request (REST root and namespace it came in on,
 *   e.g. `/wp-json/tribe/events/v1`) without the trailing slash (paths start with '/');
 * - WordPress' global parameters (`_fields`, `_envelope`, `_jsonp`, `_method`) are not listed per
 *   operation, as WordPress' own index does not list them;
 * - HTTP Basic authentication is declared (optional on public endpoints, required elsewhere).
 * The eight object schemas are the recorded ones, verbatim.
 *
 * @example
 *   const doc = openApiDocument(apiRoutes(services), services.links);
 *   doc.paths['/events'].get.parameters[0] // { in: 'query', schema: { type: 'integer', default: 1 }, description: 'The archive page to return', required: false, name: 'page' }
 */
import type { Links } from '../domain/links.js';
import { anyone, defaultValue, type ArgSpec, type Endpoint, type EndpointDocs, type JsonType, type RouteDecl } from './route.js';

type Json = Record<string, unknown>;

/** The original's object schemas (examples/02 `components.schemas`, in its order), verbatim. */
export const REFERENCE_SCHEMAS: Record<string, Json> = {
  ImageSize: {
    type: 'object',
    properties: {
      width: { type: 'integer', description: 'The image width in pixels in the specified size' },
      height: { type: 'integer', description: 'The image height in pixels in the specified size' },
      'mime-type': { type: 'string', description: 'The image mime-type' },
      url: { type: 'string', format: 'uri', description: 'The link to the image in the specified size on the site' },
    },
  },
  CostDetails: {
    type: 'object',
    properties: {
      currency_symbol: { type: 'string', description: 'The cost currency symbol' },
      'currency_position ': { type: 'string', description: 'The position of the currency symbol in the cost string', enum: ['prefix', 'postfix'] },
      values: { type: 'array', items: { type: 'integer' }, description: 'A sorted array of all the numeric values for the cost' },
    },
  },
  Term: {
    type: 'object',
    properties: {
      id: { type: 'integer', description: 'The WordPress term ID' },
      name: { type: 'string', description: 'The term name' },
      slug: { type: 'string', description: 'The term slug' },
      taxonomy: { type: 'string', description: 'The taxonomy the term belongs to' },
      description: { type: 'string', description: 'The term description' },
      parent: { type: 'integer', description: 'The term parent term if any' },
      count: { type: 'integer', description: 'The number of posts associated with the term' },
      url: { type: 'string', description: 'The URL to the term archive page' },
      urls: { type: 'array', items: { type: 'string' }, description: 'A list of links to the term own, archive and parent REST URL' },
    },
  },
  Image: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', description: 'The URL to the full size version of the image' },
      id: { type: 'integer', description: 'The image WordPress post ID' },
      extension: { type: 'string', description: 'The image file extension' },
      width: { type: 'integer', description: 'The image natural width in pixels' },
      height: { type: 'integer', description: 'The image natural height in pixels' },
      sizes: { type: 'array', description: 'The details about each size available for the image', items: { $ref: '#/components/schemas/ImageSize' } },
    },
  },
  DateDetails: {
    type: 'object',
    properties: {
      year: { type: 'integer', description: 'The date year' },
      month: { type: 'integer', description: 'The date month' },
      day: { type: 'integer', description: 'The date day' },
      hour: { type: 'integer', description: 'The date hour' },
      minutes: { type: 'integer', description: 'The date minutes' },
      seconds: { type: 'integer', description: 'The date seconds' },
    },
  },
  Event: {
    type: 'object',
    properties: {
      id: { type: 'integer', description: 'The event WordPress post ID' },
      global_id: { type: 'string', description: 'The event ID used to globally identify in Event Aggregator' },
      global_id_lineage: {
        type: 'array',
        items: { type: 'string' },
        description: 'An Array containing the lineage of where this event comes from, this should not change after the event is created.',
      },
      author: { type: 'integer', description: 'The event author WordPress post ID' },
      date: { type: 'string', description: 'The event creation date in the site time zone' },
      date_utc: { type: 'string', description: 'The event creation date in UTC time' },
      modified: { type: 'string', description: 'The event last modification date in the site time zone' },
      modified_utc: { type: 'string', description: 'The event last modification date in UTC time' },
      status: { type: 'string', description: 'The event status' },
      url: { type: 'string', description: 'The URL to the event page' },
      rest_url: { type: 'string', description: 'The TEC REST API link to fetch this event' },
      title: { type: 'string', description: 'The event name' },
      description: { type: 'string', description: 'The event long description' },
      excerpt: { type: 'string', description: 'The event short description' },
      slug: { type: 'string', description: 'The event slug' },
      image: { type: 'object', description: 'The event featured image details if set', $ref: '#/components/schemas/Image' },
      all_day: { type: 'boolean', description: 'Whether or not this event is an all day Event' },
      start_date: { type: 'string', description: 'The event start date in the event or site time zone' },
      start_date_details: { type: 'array', description: 'An array of each component of the event start date', items: { $ref: '#/components/schemas/DateDetails' } },
      end_date: { type: 'string', description: 'The event end date in the event or site time zone' },
      end_date_details: { type: 'array', description: 'An array of each component of the event end date', items: { $ref: '#/components/schemas/DateDetails' } },
      utc_start_date: { type: 'string', description: 'The event start date in UTC time' },
      utc_start_date_details: { type: 'array', description: 'An array of each component of the event start date in UTC time', items: { $ref: '#/components/schemas/DateDetails' } },
      utc_end_date: { type: 'string', description: 'The event end date in UTC time' },
      utc_end_date_details: { type: 'array', description: 'An array of each component of the event end date in UTC time', items: { $ref: '#/components/schemas/DateDetails' } },
      timezone: { type: 'string', description: 'The event time zone string' },
      timezone_abbr: { type: 'string', description: 'The abbreviated event time zone string' },
      cost: { type: 'string', description: 'The event cost including the currency symbol' },
      cost_details: { type: 'array', description: 'The event cost details', items: { $ref: '#/components/schemas/CostDetails' } },
      website: { type: 'string', description: 'The event website URL' },
      show_map: { type: 'boolean', description: 'Whether the map should be shown for the event or not' },
      show_map_link: { type: 'boolean', description: 'Whether the map link should be shown for the event or not' },
      hide_from_listings: { type: 'boolean', description: 'Whether an event should be hidden from the calendar view or not' },
      sticky: { type: 'boolean', description: 'Whether an event is sticky in the calendar view or not' },
      featured: { type: 'boolean', description: 'Whether the event is featured in the calendar or not' },
      categories: { type: 'array', description: 'The event categories', items: { $ref: '#/components/schemas/Term' } },
      tags: { type: 'array', description: 'The event tags', items: { $ref: '#/components/schemas/Term' } },
      venue: { type: 'object', description: 'The event venue', $ref: '#/components/schemas/Venue' },
      organizer: { type: 'array', description: 'The event organizers', items: { $ref: '#/components/schemas/Organizer' } },
    },
  },
  Venue: {
    type: 'object',
    properties: {
      id: { type: 'integer', description: 'The venue WordPress post ID' },
      global_id: { type: 'string', description: 'The venue ID used to globally identify in Event Aggregator' },
      global_id_lineage: {
        type: 'array',
        items: { type: 'string' },
        description: 'An Array containing the lineage of where this organizer comes from, this should not change after the organizer is created.',
      },
      author: { type: 'integer', description: 'The venue author WordPress post ID' },
      date: { type: 'string', description: 'The venue creation date in the site time zone' },
      date_utc: { type: 'string', description: 'The venue creation date in UTC time' },
      modified: { type: 'string', description: 'The venue last modification date in the site time zone' },
      modified_utc: { type: 'string', description: 'The venue last modification date in UTC time' },
      status: { type: 'string', description: 'The venue status' },
      url: { type: 'string', description: 'The URL to the venue page' },
      venue: { type: 'string', description: 'The venue name' },
      description: { type: 'string', description: 'The venue long description' },
      excerpt: { type: 'string', description: 'The venue short description' },
      slug: { type: 'string', description: 'The venue slug' },
      image: { type: 'string', description: 'The event featured image details if set', $ref: '#/components/schemas/Image' },
      show_map: { type: 'boolean', description: 'Whether the map should be shown for the venue or not' },
      show_map_link: { type: 'boolean', description: 'Whether the map link should be shown for the venue or not' },
      address: { type: 'string', description: 'The venue address' },
      city: { type: 'string', description: 'The venue city' },
      country: { type: 'string', description: 'The venue country' },
      province: { type: 'string', description: 'The venue province' },
      state: { type: 'string', description: 'The venue state' },
      zip: { type: 'string', description: 'The venue ZIP code' },
      phone: { type: 'string', description: 'The venue phone number' },
      website: { type: 'string', description: 'The venue website URL' },
      stateprovince: { type: 'string', description: 'The venue state or province' },
      geo_lat: { type: 'number', format: 'double', description: 'The venue geo latitude' },
      geo_lng: { type: 'number', format: 'double', description: 'The venue geo longitude' },
    },
  },
  Organizer: {
    type: 'object',
    properties: {
      id: { type: 'integer', description: 'The organizer WordPress post ID' },
      global_id: { type: 'string', description: 'The organizer ID used to globally identify in Event Aggregator' },
      global_id_lineage: {
        type: 'array',
        items: { type: 'string' },
        description: 'An Array containing the lineage of where this organizer comes from, this should not change after the organizer is created.',
      },
      author: { type: 'integer', description: 'The organizer author WordPress post ID' },
      date: { type: 'string', description: 'The organizer creation date in the site time zone' },
      date_utc: { type: 'string', description: 'The organizer creation date in UTC time' },
      modified: { type: 'string', description: 'The organizer last modification date in the site time zone' },
      modified_utc: { type: 'string', description: 'The organizer last modification date in UTC time' },
      status: { type: 'string', description: 'The organizer status' },
      url: { type: 'string', description: 'The URL to the organizer page' },
      organizer: { type: 'string', description: 'The organizer name' },
      description: { type: 'string', description: 'The organizer long description' },
      excerpt: { type: 'string', description: 'The organizer short description' },
      slug: { type: 'string', description: 'The organizer slug' },
      image: { type: 'string', description: 'The event featured image details if set', $ref: '#/components/schemas/Image' },
      phone: { type: 'string', description: 'The organizer phone number' },
      website: { type: 'string', description: 'The organizer website' },
      email: { type: 'string', description: 'The organizer email address' },
    },
  },
};

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A list envelope's component name: 'events' → 'EventsList'. */
export function envelopeName(listTitle: string): string {
  return listTitle.charAt(0).toUpperCase() + listTitle.slice(1) + 'List';
}

/** The envelope of a list answer (shapes.md §6): the items under `title`, the page URLs and totals. */
function envelopeSchema(title: string, item: string): Json {
  const url = (description: string): Json => ({ type: 'string', format: 'uri', description });
  return {
    type: 'object',
    title,
    properties: {
      [title]: { type: 'array', items: ref(item), description: 'The records of the requested page' },
      rest_url: url('The REST URL of this page'),
      next_rest_url: url('The REST URL of the next page, only when there is one'),
      previous_rest_url: url('The REST URL of the previous page, only when there is one'),
      total: { type: 'integer', description: 'The number of records matching the query, on all pages' },
      total_pages: { type: 'integer', description: 'The number of pages' },
    },
    required: [title, 'rest_url', 'total', 'total_pages'],
  };
}

/** WordPress' error body. */
const ERROR_SCHEMA: Json = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'The error code, e.g. rest_invalid_param or rest-event-not-found' },
    message: { type: 'string', description: 'A human-readable message' },
    data: {
      type: 'object',
      description: 'The HTTP status, and for parameter errors the failed parameters (params) and their details',
      properties: { status: { type: 'integer' }, params: {}, details: {} },
    },
  },
  required: ['code', 'message', 'data'],
};

const TOTAL_HEADERS: Json = {
  'X-TEC-Total': { description: 'The number of records matching the query, on all pages', schema: { type: 'integer' } },
  'X-TEC-TotalPages': { description: 'The number of pages', schema: { type: 'integer' } },
  'X-WP-Total': { description: 'The same as X-TEC-Total, for generic WordPress clients', schema: { type: 'integer' } },
  'X-WP-TotalPages': { description: 'The same as X-TEC-TotalPages, for generic WordPress clients', schema: { type: 'integer' } },
  Link: {
    description: 'The REST root (rel="https://api.w.org/"), and the previous (rel="prev") and next (rel="next") pages when they exist, keeping every query argument',
    schema: { type: 'string' },
  },
  'X-Sync-Token': {
    description: 'The position in the change log at the moment of the read: pass it as sync_token to get only what changed since (ours, issue 11)',
    schema: { type: 'string' },
  },
  'X-Sync-More': {
    description: 'On a sync_token answer: "true" when more changes follow than one answer covers (SYNC_MAX_CHANGES log rows); pass its X-Sync-Token to get them (ours, issue 24)',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** '/events/{id}' stays; '' (the namespace itself) becomes '/'. */
export function openApiPath(path: string): string {
  return path === '' ? '/' : path;
}

/** The path parameters of a route path, in order. */
function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** The documented type of an arg: its doc type (the original's swagger_type), its type, array when it has items, else string. */
export function docTypeOf(spec: ArgSpec): JsonType {
  return spec.docType ?? spec.type ?? (spec.items ? 'array' : 'string');
}

/** A static default in the schema's type, or undefined (computed, null, or not convertible). */
function docDefault(spec: ArgSpec, type: JsonType, links: Links): unknown {
  const d = spec.documentDefault ? defaultValue(spec, links) : spec.default;
  if (d === undefined || d === null || typeof d === 'function') return undefined;
  if (type === 'integer' || type === 'number') {
    const n = Number(d);
    return typeof d !== 'boolean' && d !== '' && Number.isFinite(n) && (type === 'number' || Number.isInteger(n)) ? n : undefined;
  }
  if (type === 'boolean') {
    if (typeof d === 'boolean') return d;
    if (d === '1' || d === 1 || d === 'true') return true;
    if (d === '0' || d === 0 || d === 'false') return false;
    return undefined;
  }
  if (type === 'string') return typeof d === 'string' ? d : undefined;
  return undefined;
}

/** The JSON schema of one arg (type, items, format, enum, default). */
function argSchema(spec: ArgSpec, links: Links): Json {
  const type = docTypeOf(spec);
  const schema: Json = { type };
  if (type === 'array') schema.items = spec.items ?? { type: 'string' };
  if (spec.format !== undefined && spec.format !== type) schema.format = spec.format;
  if (spec.enum !== undefined) schema.enum = [...spec.enum];
  const d = docDefault(spec, type, links);
  if (d !== undefined) schema.default = d;
  return schema;
}

const NO_DESCRIPTION = 'No description provided';

/** A query or path parameter, in the original's key order (in, schema, description, required, name, style). */
function parameter(name: string, spec: ArgSpec, where: 'query' | 'path', links: Links): Json {
  const schema = argSchema(spec, links);
  const p: Json = { in: where, schema, description: spec.description ?? NO_DESCRIPTION, required: where === 'path' ? true : Boolean(spec.required), name };
  if (where === 'query' && schema.type === 'array') p.style = 'form';
  return p;
}

/** The description of a route's path parameter: from an endpoint that declares it as a path arg. */
function pathParamSpec(decl: RouteDecl, name: string): ArgSpec {
  for (const e of decl.endpoints) {
    const spec = e.args[name];
    if (spec && spec.in === 'path') return spec;
  }
  return { type: name === 'id' ? 'integer' : 'string', description: NO_DESCRIPTION };
}

/** The request body of a write endpoint: one object schema, offered form-encoded and as JSON. */
function requestBody(args: Array<[string, ArgSpec]>, links: Links): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const [name, spec] of args) {
    const { type, ...rest } = argSchema(spec, links);
    properties[name] = { description: spec.description ?? NO_DESCRIPTION, type, ...rest };
    if (spec.required) required.push(name);
  }
  const schema: Json = { type: 'object', properties };
  if (required.length) schema.required = required;
  return { content: { 'application/x-www-form-urlencoded': { schema }, 'application/json': { schema } } };
}

/** Responses from the endpoint's docs; authentication answers added to endpoints that need rights. */
function responses(docs: EndpointDocs | undefined, isPublic: boolean): Json {
  const declared = docs?.responses ?? { '200': { description: 'Success' } };
  const out: Json = {};
  const entries = Object.entries(declared);
  if (!isPublic) {
    if (!declared['401']) entries.push(['401', { description: 'Sorry, you are not allowed to do that: the request is not authenticated (rest_forbidden)' }]);
    if (!declared['403']) entries.push(['403', { description: 'Sorry, you are not allowed to do that: the user lacks the capability (rest_forbidden)' }]);
  }
  entries.sort(([a], [b]) => Number(a) - Number(b));
  for (const [status, r] of entries) {
    const response: Json = { description: r.description };
    if (Number(status) >= 400) response.content = { 'application/json': { schema: ref('Error') } };
    else if (r.listTitle && r.schema) {
      response.headers = TOTAL_HEADERS;
      response.content = { 'application/json': { schema: ref(envelopeName(r.listTitle)) } };
    } else if (r.schema) response.content = { 'application/json': { schema: ref(r.schema) } };
    out[status] = response;
  }
  return out;
}

const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** One operation (a method of an endpoint). */
function operation(decl: RouteDecl, e: Endpoint, method: string, links: Links): Json {
  const isPublic = e.permission === anyone;
  const op: Json = {};
  const tag = decl.path.split('/')[1] || 'index';
  op.tags = [tag];
  if (e.docs?.summary) op.summary = e.docs.summary;
  const params = pathParams(decl.path);
  const parameters: Json[] = params.map((name) => parameter(name, pathParamSpec(decl, name), 'path', links));
  const rest = Object.entries(e.args).filter(([name, spec]) => !(spec.in === 'path' && params.includes(name)));
  if (WRITE_METHODS.has(method)) {
    if (parameters.length) op.parameters = parameters;
    if (rest.length) op.requestBody = requestBody(rest, links);
  } else {
    parameters.push(...rest.map(([name, spec]) => parameter(name, spec, 'query', links)));
    if (parameters.length) op.parameters = parameters;
  }
  op.responses = responses(e.docs, isPublic);
  op.security = isPublic ? [{}, { basic: [] }] : [{ basic: [] }];
  return op;
}

/** The list envelopes the routes answer with, in route order. */
function envelopes(routes: RouteDecl[]): Json {
  const out: Json = {};
  for (const decl of routes)
    for (const e of decl.endpoints) for (const r of Object.values(e.docs?.responses ?? {})) if (r.listTitle && r.schema) out[envelopeName(r.listTitle)] = envelopeSchema(r.listTitle, r.schema);
  return out;
}

/** The whole document, for the REST root and namespace of the request (`servers`). */
export function openApiDocument(routes: RouteDecl[], links: Links): Json {
  const paths: Json = {};
  for (const decl of routes) {
    const item: Json = {};
    for (const e of decl.endpoints) for (const m of e.methods) item[m.toLowerCase()] = operation(decl, e, m, links);
    paths[openApiPath(decl.path)] = item;
  }
  return {
    openapi: '3.0.0',
    info: {
      version: '1.0.0',
      title: 'The Events Calendar REST API',
      description: 'The Events Calendar REST API allows accessing upcoming events information easily and conveniently.',
    },
    components: {
      schemas: { ...REFERENCE_SCHEMAS, ...envelopes(routes), Error: ERROR_SCHEMA },
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: "HTTP Basic with a user's password or one of their application passwords" },
      },
    },
    servers: [{ url: links.namespaceRoot.replace(/\/+$/, '') }],
    paths,
  };
}
