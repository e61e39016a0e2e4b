/**
 * The API describes itself from the route declarations: the namespace index (`GET {ns}`, also the
 * body of OPTIONS on any route) and the REST root index (`GET {REST_ROOT}`), in WordPress' format.
 *
 * @example namespaceIndex(ROUTES, services) // { namespace, routes: { '/calendar/events/v1/events': {…} }, _links }
 */
import { NAMESPACE } from '../config.js';
import { zoneOf } from '../domain/dates.js';
import type { Services } from '../domain/services.js';
import { defaultValue, routeMethods, wordpressPattern, type ArgSpec, type RouteDecl } from './route.js';

/**
 * The JSON-schema keywords WordPress copies from an arg into the index
 * (`rest_get_allowed_schema_keywords()` plus `default`); plugin keys such as validators, `in`
 * and the doc type are dropped.
 */
const INDEX_KEYWORDS: ReadonlySet<string> = new Set(['default', 'description', 'type', 'format', 'items', 'enum']);

/**
 * One arg as WordPress lists it: its schema keywords in declaration order (`array_intersect_key`
 * keeps the arg's own order), then `required`. A `null` default is shown; a function default is
 * evaluated now.
 */
export function indexArg(spec: ArgSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(spec) as Array<keyof ArgSpec>) {
    if (!INDEX_KEYWORDS.has(key) || spec[key] === undefined) continue;
    out[key] = key === 'default' ? defaultValue(spec) : spec[key];
  }
  out.required = Boolean(spec.required);
  return out;
}

/** The index key of a route: '/calendar/events/v1/events/(?P<id>\d+)'. */
export function routeKey(decl: RouteDecl): string {
  return `/${NAMESPACE}${wordpressPattern(decl.path)}`;
}

/** A route's entry: namespace, methods, endpoints (and `_links.self` for routes without placeholders). */
export function routeIndexEntry(decl: RouteDecl, services: Services, withLinks = true): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    namespace: NAMESPACE,
    methods: routeMethods(decl),
    endpoints: decl.endpoints.map((e) => {
      const names = Object.keys(e.args);
      return {
        methods: e.methods,
        args: names.length ? Object.fromEntries(names.map((n) => [n, indexArg(e.args[n])])) : [],
      };
    }),
  };
  if (withLinks && !decl.path.includes('{')) entry._links = { self: [{ href: services.links.rest(decl.path.replace(/^\//, '')).replace(/\/$/, '') }] };
  return entry;
}

/** `GET {ns}`. */
export function namespaceIndex(routes: RouteDecl[], services: Services): Record<string, unknown> {
  return {
    namespace: NAMESPACE,
    routes: Object.fromEntries(routes.map((r) => [routeKey(r), routeIndexEntry(r, services)])),
    _links: { up: [{ href: services.links.restRoot }] },
  };
}

/** `GET {REST_ROOT}`: WordPress' root index (name, description, url, home, namespaces, routes). */
export function rootIndex(routes: RouteDecl[], services: Services): Record<string, unknown> {
  const nsRoutes = Object.fromEntries(routes.map((r) => [routeKey(r), routeIndexEntry(r, services)]));
  return {
    name: 'Events Calendar',
    description: 'A headless events calendar speaking The Events Calendar REST API',
    url: services.links.siteUrl,
    home: services.links.siteUrl,
    gmt_offset: gmtOffsetHours(services.config.timezone),
    timezone_string: services.config.timezone,
    namespaces: [NAMESPACE],
    authentication: { basic: { description: 'HTTP Basic with a user password or an application password' } },
    routes: {
      '/': {
        namespace: '',
        methods: ['GET'],
        endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
        _links: { self: [{ href: services.links.restRoot }] },
      },
      ...nsRoutes,
    },
    _links: { help: [{ href: services.links.rest('doc') }] },
  };
}

/** WordPress' `gmt_offset` option: the site zone's current offset from UTC, in hours (e.g. 5.5). */
export function gmtOffsetHours(timezone: string): number {
  return zoneOf(timezone).offset(Date.now()) / 60;
}
