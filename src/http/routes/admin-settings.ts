/**
 * `GET {REST_ROOT}/calendar/admin/v1/settings`: every setting with its value in force
 * (in its declared unit), its source (default, environment, flag, database), default, description,
 * scope and whether it may be changed here; secrets masked (domain/settings-view.ts).
 * `PUT`/`PATCH` the same route with `{ "SITE_NAME": "Town", "CALENDAR_TIMEZONE": null, … }` changes
 * the calendar's own settings (`scope: 'calendar'`; null: back to the default), in force on every
 * instance at once (domain/calendar-settings.ts); anything else answers 400 `rest_invalid_param`
 * with a message per setting. Administrators only (401 without credentials, 403 otherwise).
 */
import { CALENDAR_SETTINGS, SETTINGS } from '../../config.js';
import type { Services } from '../../domain/services.js';
import { endpoint, route, type ArgSpec, type RouteDecl } from '../route.js';

/** One body arg per calendar setting, so that the index and /doc list them. */
const CHANGE_ARGS: Record<string, ArgSpec> = Object.fromEntries(
  CALENDAR_SETTINGS.map((s) => [
    s.env,
    { in: 'body', description: `${s.description}${s.unit ? ` (${s.unit})` : ''}; null: the default (${s.defaultText})`, ...(s.choices ? { enum: s.choices } : {}) },
  ]),
);

const NAMES = new Set(SETTINGS.map((s) => s.env));

export function adminSettingRoutes(services: Services): RouteDecl[] {
  const isAdmin = (ctx: { viewer: { role: string | null } }) => ctx.viewer.role === 'administrator';
  return [
    route('/settings', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: isAdmin,
        docs: {
          responses: {
            '200': {
              description:
                'Every setting: name (environment variable), flag, value (secrets masked, in its unit), source (default, environment, flag, database), default, description, secret, scope (environment or calendar), editable, type, unit, choices, min, max, group',
            },
            '403': { description: 'Not an administrator' },
          },
        },
        handler: async (ctx) => ({ body: await services.settings.inForce(ctx.viewer) }),
      }),
      endpoint({
        methods: ['PUT', 'PATCH'],
        args: CHANGE_ARGS,
        permission: isAdmin,
        docs: {
          responses: {
            '200': { description: 'Every setting, as GET answers, with the change in force' },
            '400': { description: 'rest_invalid_param: a value that cannot be used, or a setting set in the environment or not changeable in the app (data.params names each)' },
            '403': { description: 'Not an administrator' },
          },
        },
        handler: async (ctx) => {
          const values: Record<string, unknown> = {};
          for (const [name, value] of Object.entries(ctx.input ?? {})) if (NAMES.has(name)) values[name] = value;
          await services.settings.change(values);
          return { body: await services.settings.inForce(ctx.viewer) };
        },
      }),
    ]),
  ];
}
