/**
 * The one explicit list of routes, in the original's registration order (which is also the order
 * of the namespace index and of the OpenAPI paths).
 *
 * @example const routes = apiRoutes(services);
 */
import type { Services } from '../../domain/services.js';
import type { RouteDecl } from '../route.js';
import { docRoutes } from './doc.js';
import { eventRoutes } from './events.js';
import { organizerRoutes, venueRoutes } from './linked-posts.js';
import { namespaceRoutes } from './namespace.js';
import { categoryRoutes, tagRoutes } from './terms.js';

export function apiRoutes(services: Services): RouteDecl[] {
  const routes: RouteDecl[] = [];
  routes.push(...namespaceRoutes(services, () => routes));
  routes.push(...docRoutes(services, () => routes));
  routes.push(...eventRoutes(services));
  routes.push(...venueRoutes(services), ...organizerRoutes(services));
  routes.push(...categoryRoutes(services), ...tagRoutes(services));
  return routes;
}
