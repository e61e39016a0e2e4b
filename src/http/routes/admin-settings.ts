/**
 * `GET {REST_ROOT}/calendar/admin/v1/settings` (issue 28): every setting with its value in force,
 * its source (default, environment, flag, database), default and description; secrets masked
 * (domain/settings-view.ts). Read-only: settings change where they are set (environment, flags).
 * Administrators only (401 without credentials, 403 otherwise).
 */
import type { Services } from '../../domain/services.js';
import { settingsInForce } from '../../domain/settings-view.js';
import { endpoint, route, type RouteDecl } from '../route.js';

export function adminSettingRoutes(services: Services): RouteDecl[] {
  return [
    route('/settings', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: (ctx) => ctx.viewer.role === 'administrator',
        docs: {
          responses: {
            '200': { description: 'Every setting: name (environment variable), flag, value (secrets masked), source (default, environment, flag, database), default, description, secret' },
            '403': { description: 'Not an administrator' },
          },
        },
        handler: async () => ({ body: await settingsInForce(services) }),
      }),
    ]),
  ];
}
