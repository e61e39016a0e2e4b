/**
 * `GET {ns}`: the namespace index, generated from the route declarations.
 *
 * @example namespaceRoutes(services, () => allRoutes)
 */
import { NAMESPACE } from '../../config.js';
import { apiError } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { anyone, endpoint, route, type RouteDecl } from '../route.js';
import { namespaceIndex } from '../self-description.js';

export function namespaceRoutes(services: Services, allRoutes: () => RouteDecl[]): RouteDecl[] {
  return [
    route('', [
      endpoint({
        methods: ['GET'],
        args: {
          namespace: { default: NAMESPACE },
          context: { default: 'view' },
        },
        permission: anyone,
        docs: { responses: { '200': { description: 'Returns the routes of the namespace and their arguments' } } },
        handler: async (ctx) => {
          if (ctx.args.namespace !== NAMESPACE) throw apiError('rest_invalid_namespace');
          return { body: namespaceIndex(allRoutes(), services) };
        },
      }),
    ]),
  ];
}
