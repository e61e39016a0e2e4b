/**
 * `GET {ns}`: the namespace index, generated from the route declarations.
 *
 * @example namespaceRoutes(services, () => allRoutes)
 */
import type { Links } from '../../domain/links.js';
import { apiError } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { anyone, endpoint, route, type RouteDecl } from '../route.js';
import { namespaceIndex } from '../self-description.js';

export function namespaceRoutes(_services: Services, allRoutes: () => RouteDecl[]): RouteDecl[] {
  return [
    route('', [
      endpoint({
        methods: ['GET'],
        args: {
          // The namespace the request came in on: ours, or an alias such as tribe/events/v1.
          namespace: { default: (links: Links) => links.namespace, documentDefault: true },
          context: { default: 'view' },
        },
        permission: anyone,
        docs: { responses: { '200': { description: 'Returns the routes of the namespace and their arguments' } } },
        handler: async (ctx) => {
          if (ctx.args.namespace !== ctx.links.namespace) throw apiError('rest_invalid_namespace');
          return { body: namespaceIndex(allRoutes(), ctx.links) };
        },
      }),
    ]),
  ];
}
