/**
 * Route declarations: one object per route holds its whole contract (path, endpoints, methods,
 * every argument with type/default/description/validation, the permission check, the handler and
 * the documentation). The same declarations drive request validation, the namespace index
 * (`GET {ns}`), the REST root index and the OpenAPI document (`GET {ns}/doc`).
 *
 * @example
 *   export const listThings = route('/things', [
 *     endpoint({ methods: ['GET'], args: { page: pageArg() }, permission: anyone, handler: async (ctx) => ({ body: [] }) }),
 *   ]);
 */
import type { Links } from '../domain/links.js';
import type { Viewer } from '../domain/permissions.js';
import type { Services } from '../domain/services.js';
import type { ParamFailure } from '../domain/errors.js';
import type { VersionedType } from '../domain/versions.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type JsonType = 'integer' | 'number' | 'string' | 'boolean' | 'array' | 'object';

/** What a validator sees besides the value. */
export interface ArgContext {
  viewer: Viewer;
  services: Services;
  /** REST URLs of the request's root and namespace (see EndpointContext.links). */
  links: Links;
}

/** A validator answers true (valid), false ("Invalid parameter."), or a message / failure. */
export type ValidationResult = boolean | string | ParamFailure;

export interface ArgSpec {
  description?: string;
  /** JSON-schema type: shown in the index and enforced/coerced like WordPress' rest_parse_request_arg. */
  type?: JsonType;
  /** Shown in the index (e.g. 'double' for geoloc_lat, 'string' for list status). */
  format?: string;
  /** Shown in the index for list-like args, e.g. { type: 'integer' }. */
  items?: { type: JsonType };
  enum?: readonly string[];
  /**
   * Declared default. A function is evaluated per request and per index/doc render, and gets the
   * links of the request's REST root and namespace (e.g. the namespace route's `namespace`).
   */
  default?: unknown;
  /**
   * The default is a function of the request's links only (not of the clock), so /doc shows it
   * as a static default: the namespace route's `namespace`.
   */
  documentDefault?: boolean;
  required?: boolean;
  /** Where the value comes from; 'path' args are taken from the URL only. */
  in?: 'path' | 'query' | 'body';
  /** Documentation type when it differs from `type` (the original's swagger_type), e.g. 'array'. */
  docType?: JsonType;
  /**
   * `integer` args are refused (400 `rest_out_of_bounds`) outside the range of an `integer`
   * column (−2³¹ … 2³¹ − 1) unless `unbounded`: the handler caps them itself (`per_page`).
   */
  unbounded?: boolean;
  /**
   * List args ({@link isListArg}): the most items accepted, beyond which the request is refused
   * (400 `rest_invalid_param`, `rest_too_many_items`) before any validator looks at the items.
   * Default {@link MAX_LIST_ITEMS}. Not shown in the index (the original's has no such keyword).
   */
  maxItems?: number;
  /**
   * List args: how a string value splits into items, for counting them: `comma` (the default: a
   * CSV list, as the original's `list_to_array`, `%2C` included; `type: 'array'` args also split
   * at whitespace, as their coercion does) or `line` (one item per line: `recurrence`).
   */
  itemSeparator?: 'comma' | 'line';
  /** Runs when the value is present (not null/undefined), before type coercion. */
  validate?: (value: unknown, ctx: ArgContext) => ValidationResult | Promise<ValidationResult>;
  /** Runs after validation and type coercion; its result is what the handler sees. */
  sanitize?: (value: unknown, ctx: ArgContext) => unknown | Promise<unknown>;
}

export type Args = Record<string, ArgSpec>;

/** What the permission check and the handler receive. */
export interface EndpointContext<R = unknown> {
  /** Validated, coerced values of the declared args (absent args are undefined unless they have a default). */
  args: Record<string, any>;
  /** Names of the args the caller actually sent. */
  sent: ReadonlySet<string>;
  /** Raw path parameters (`id`, `slug`). */
  path: Record<string, string>;
  viewer: Viewer;
  services: Services;
  /**
   * REST URLs under the root and namespace the request came in on (REST_ROOT or `/wp-json`, our
   * namespace or an alias); handlers build every REST URL with these, never `services.links`.
   */
  links: Links;
  /** What `load` returned (the addressed record), or null. */
  record: R | null;
  /** The request URL's query string, raw (without '?'). */
  rawQuery: string;
  /** The request's headers (lower-case names), set by the pipeline: tec/v1's acknowledgement header. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * Reserve memory for the answer being built (the answer budget, RESPONSE_MEMORY_MB): waits while
   * other large answers hold it; given back when the response has been sent. Set by the pipeline.
   */
  reserve?: (bytes: number) => Promise<void>;
  /**
   * Every request parameter as received (body over query), declared or not; set by the pipeline.
   * For the few checks WordPress makes on undeclared params (a `parent` sent to `/tags`).
   */
  input?: Readonly<Record<string, unknown>>;
  /**
   * The client's address (as TRUST_PROXY makes it) and languages; set by the pipeline (the submissions
   * face counts by them); `sessionId`: the sign-in session whose cookie authenticated the request, if one did.
   */
  client?: { ip: string; acceptLanguage: string | undefined; sessionId?: number };
}

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Send `body` (a string, a Buffer or a readable stream) as it is, with its own `content-type` in `headers` (downloads), not as JSON. */
  raw?: boolean;
  /**
   * Take the connection over (server-sent events): the status and headers are written, then this
   * gets the response to write to and end; nothing else is sent.
   */
  stream?: (res: import('node:http').ServerResponse) => void;
  /**
   * Headers made again for each second when the answer is replayed (web/replay.ts), by lower-case
   * name: a list's `X-Sync-Token`. A GET answer with a header made per request and not named here
   * must not be marked replayable (the pipeline marks item and list answers with validators).
   */
  renew?: Record<string, (nowMs: number) => string>;
}

/** Documentation of one endpoint for the OpenAPI document. */
export interface EndpointDocs {
  summary?: string;
  /** OpenAPI's `description` and `operationId`, where a namespace's document gives them (tec/v1). */
  description?: string;
  operationId?: string;
  /** status → description, optionally with a schema reference name ('Event') or list ('Event[]' with title) */
  responses: Record<string, { description: string; schema?: string; listTitle?: string }>;
}

export interface Endpoint<R = any> {
  methods: Method[];
  args: Args;
  /**
   * Load the addressed record after the args are valid (before the permission check). Return null
   * when there is none; throw an ApiError for answers decided here (e.g. 400 on an unknown id).
   */
  load?: (ctx: Omit<EndpointContext<R>, 'record'>) => Promise<R | null>;
  /** Required: public endpoints say `anyone`. */
  permission: (ctx: EndpointContext<R>) => boolean | Promise<boolean>;
  handler: (ctx: EndpointContext<R>) => Promise<Reply>;
  docs?: EndpointDocs;
  /**
   * GET: how the answer's validators derive from versions: an item's record, or the
   * list's data revision. Without it a GET's ETag is a hash of its body (`conditional.ts`).
   */
  versioning?: { kind: 'list' } | { kind: 'item'; type: VersionedType; readable: (ctx: EndpointContext<R>) => boolean };
  /** Item writes: the record `If-Match` / `If-Unmodified-Since` are checked against, in the write's transaction. */
  precondition?: { type: VersionedType };
}

export interface RouteDecl {
  /** Path relative to the namespace, with `{id}` (digits) or `{slug}` (no slash) placeholders; '' is the namespace itself. */
  path: string;
  endpoints: Endpoint[];
}

/** Declare a route. */
export function route(path: string, endpoints: Endpoint[]): RouteDecl {
  return { path, endpoints };
}

/** Declare an endpoint (identity function that types the declaration). */
export function endpoint<R = any>(e: Endpoint<R>): Endpoint<R> {
  return e;
}

/**
 * The most items a list argument (`categories`, `tags`, `venue`, `organizer`, `include`,
 * `exclude`, `recurrence`, a webhook's `events`, …: a CSV string, an array, or an object of
 * bracketed keys) takes unless its declaration says otherwise (`maxItems`); beyond it the request
 * is refused with 400 `rest_invalid_param` before any item is looked at. Writes that create records
 * from a list (new terms) may allow fewer; they use this as the upper bound.
 */
export const MAX_LIST_ITEMS = 100;

/** Whether an arg takes a list: `type: 'array'`, or declared with `items` or documented as an array. */
export function isListArg(spec: ArgSpec): boolean {
  return spec.type === 'array' || spec.items !== undefined || spec.docType === 'array';
}

/** The most items a list arg takes (undefined for other args). */
export function maxItemsOf(spec: ArgSpec): number | undefined {
  return isListArg(spec) ? (spec.maxItems ?? MAX_LIST_ITEMS) : undefined;
}

/** The permission of public endpoints. */
export const anyone = (): boolean => true;

/** Placeholder patterns, as WordPress registers them. */
export const PLACEHOLDERS: Record<string, { regex: string; fastify: string }> = {
  id: { regex: '\\d+', fastify: '(^\\d+$)' },
  slug: { regex: '[^/]+', fastify: '' },
};

/** '/events/{id}' → '/events/(?P<id>\d+)' (the namespace index key form). */
export function wordpressPattern(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => `(?P<${name}>${PLACEHOLDERS[name]?.regex ?? '[^/]+'})`);
}

/** '/events/{id}' → '/events/:id(^\d+$)' (the Fastify form). */
export function fastifyPattern(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => `:${name}${PLACEHOLDERS[name]?.fastify ?? ''}`);
}

/** Union of the route's methods in endpoint order. */
export function routeMethods(decl: RouteDecl): Method[] {
  const out: Method[] = [];
  for (const e of decl.endpoints) for (const m of e.methods) if (!out.includes(m)) out.push(m);
  return out;
}

/** Evaluate a declared default (functions are computed now, for the request's links). */
export function defaultValue(spec: ArgSpec, links: Links): unknown {
  return typeof spec.default === 'function' ? (spec.default as (links: Links) => unknown)(links) : spec.default;
}

/**
 * Make every arg optional and drop defaults that would write a value: the update form of a create
 * declaration (true partial updates, COMPAT decision 1). `null` defaults stay, for the index, as
 * they mean "not sent" anyway.
 */
export function optionalArgs(args: Args): Args {
  const out: Args = {};
  for (const [name, spec] of Object.entries(args)) {
    // Keys stay in declaration order: the namespace index shows them in that order.
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(spec)) {
      if (key === 'required' || (key === 'default' && value !== null)) continue;
      copy[key] = value;
    }
    out[name] = { ...(copy as ArgSpec), required: false };
  }
  return out;
}
