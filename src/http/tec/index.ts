/**
 * The `tec/v1` namespace (The Events Calendar 6.15's second REST API), one explicit list of its
 * routes in the original's order: the namespace index, `/docs` (OpenAPI), events, organizers,
 * venues. Registered by the REST face (register.ts) under every REST root, beside the legacy
 * namespace; the same pipeline, authentication, errors and versions serve both.
 *
 * @example for (const root of roots) registerRoutes(app, tecRoutes(services), services, services.linksFor(root, TEC_NAMESPACE));
 */
import type { Services } from '../../domain/services.js';
import { anyone, endpoint, route, type RouteDecl } from '../route.js';
import { namespaceRoutes } from '../routes/namespace.js';

import { tecOpenApi } from './docs.js';
import { tecEventRoutes } from './events.js';
import { tecLinkedRoutes } from './linked-posts.js';

export { TEC_NAMESPACE } from './common.js';

export function tecRoutes(services: Services): RouteDecl[] {
  const routes: RouteDecl[] = [];
  routes.push(...namespaceRoutes(services, () => routes));
  routes.push(
    // Not experimental in the original: no acknowledgement asked.
    route('/docs', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: anyone,
        docs: {
          summary: 'Retrieve the OpenAPI documentation',
          description: 'Returns the OpenAPI documentation of the TEC REST API',
          operationId: 'getOpenApiDocs',
          responses: { '200': { description: 'Returns the OpenAPI documentation', schema: 'OpenApiDocumentation' } },
        },
        handler: async (ctx) => ({ body: tecOpenApi(routes, ctx.links) }),
      }),
    ]),
  );
  routes.push(...tecEventRoutes(services), ...tecLinkedRoutes(services, 'organizer'), ...tecLinkedRoutes(services, 'venue'));
  return routes;
}
