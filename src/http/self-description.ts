/**
 * The API describes itself from the route declarations: the namespace index (`GET {ns}`, also the
 * body of OPTIONS on any route) and the REST root index (`GET {REST_ROOT}`), in WordPress' format.
 *
 * Each is rendered for the links of the request (REST root and namespace it came in on): an alias
 * namespace (`tribe/events/v1`) lists the same routes under its own name and URLs.
 *
 * @example namespaceIndex(ROUTES, links) // { namespace, routes: { '/calendar/events/v1/events': {…} }, _links }
 */
import { NAMESPACE } from '../config.js';
import { zoneOf } from '../domain/dates/zones.js';
import type { Links } from '../domain/links.js';
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
export function indexArg(spec: ArgSpec, links: Links): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(spec) as Array<keyof ArgSpec>) {
    if (!INDEX_KEYWORDS.has(key) || spec[key] === undefined) continue;
    out[key] = key === 'default' ? defaultValue(spec, links) : spec[key];
  }
  out.required = Boolean(spec.required);
  return out;
}

/** The index key of a route in a namespace: '/calendar/events/v1/events/(?P<id>\d+)'. */
export function routeKey(decl: RouteDecl, namespace: string = NAMESPACE): string {
  return `/${namespace}${wordpressPattern(decl.path)}`;
}

/** A route's entry: namespace, methods, endpoints (and `_links.self` for routes without placeholders). */
export function routeIndexEntry(decl: RouteDecl, links: Links, withLinks = true): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    namespace: links.namespace,
    methods: routeMethods(decl),
    endpoints: decl.endpoints.map((e) => {
      const names = Object.keys(e.args);
      return {
        methods: e.methods,
        args: names.length ? Object.fromEntries(names.map((n) => [n, indexArg(e.args[n], links)])) : [],
      };
    }),
  };
  if (withLinks && !decl.path.includes('{')) entry._links = { self: [{ href: links.rest(decl.path.replace(/^\//, '')).replace(/\/$/, '') }] };
  return entry;
}

/** The site's name by default (SITE_NAME): in the root index, on the site page and the calendar pages. */
export const SITE_NAME = 'Events Calendar';

/** `GET {ns}`, for the request's namespace. */
export function namespaceIndex(routes: RouteDecl[], links: Links): Record<string, unknown> {
  return {
    namespace: links.namespace,
    routes: Object.fromEntries(routes.map((r) => [routeKey(r, links.namespace), routeIndexEntry(r, links)])),
    _links: { up: [{ href: links.restRoot }] },
  };
}

/**
 * `GET {REST_ROOT}`: WordPress' root index (name, description, url, home, namespaces, routes).
 * `namespaces` holds one `Links` per namespace served (ours first, then the aliases), all under
 * the REST root the request came in on; each namespace lists its routes, as WordPress does.
 */
export function rootIndex(routes: RouteDecl[], services: Services, namespaces: Links[], others: Array<{ routes: RouteDecl[]; links: Links }> = []): Record<string, unknown> {
  const [primary] = namespaces;
  if (!primary) throw new Error('rootIndex needs at least one namespace');
  const nsRoutes: Record<string, unknown> = {};
  for (const links of namespaces) {
    for (const r of routes) nsRoutes[routeKey(r, links.namespace)] = routeIndexEntry(r, links);
  }
  // Namespaces with routes of their own (tec/v1, wp/v2), after ours and the aliases.
  for (const other of others) for (const r of other.routes) nsRoutes[routeKey(r, other.links.namespace)] = routeIndexEntry(r, other.links);
  return {
    name: services.config.siteName,
    description: 'A headless events calendar speaking The Events Calendar REST API',
    url: primary.siteUrl,
    home: primary.siteUrl,
    gmt_offset: gmtOffsetHours(services.config.timezone),
    timezone_string: services.config.timezone,
    namespaces: [...namespaces.map((l) => l.namespace), ...others.map((o) => o.links.namespace)],
    // WordPress' block names where a client asks for application passwords; Basic is how they are sent.
    authentication: {
      basic: { description: 'HTTP Basic with a user password or an application password' },
      'application-passwords': { endpoints: { authorization: `${primary.siteUrl}${services.config.adminPath}/` } },
    },
    routes: {
      '/': {
        namespace: '',
        methods: ['GET'],
        endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
        _links: { self: [{ href: primary.restRoot }] },
      },
      ...nsRoutes,
    },
    _links: { help: [{ href: primary.rest('doc') }] },
  };
}

/** WordPress' `gmt_offset` option: the site zone's current offset from UTC, in hours (e.g. 5.5). */
export function gmtOffsetHours(timezone: string): number {
  return zoneOf(timezone).offset(Date.now()) / 60;
}
