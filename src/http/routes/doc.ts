/**
 * `GET {ns}/doc`: the OpenAPI 3.0 document of the API (COMPAT decision 8), generated from the same
 * route declarations as validation and the namespace index. No arguments, public.
 *
 * @example routes.push(...docRoutes(services, () => routes));
 */
import type { Services } from '../../domain/services.js';
import { anyone, endpoint, route, type RouteDecl } from '../route.js';
import { openApiDocument } from '../openapi.js';

export function docRoutes(_services: Services, allRoutes: () => RouteDecl[]): RouteDecl[] {
  return [
    route('/doc', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: anyone,
        docs: { responses: { '200': { description: 'Returns the documentation for The Events Calendar REST API in Swagger consumable format.' } } },
        handler: async (ctx) => ({ body: openApiDocument(allRoutes(), ctx.links) }),
      }),
    ]),
  ];
}
