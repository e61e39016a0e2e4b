/**
 * The WordPress core routes `tec/v1` clients read besides it (TEC's MCP server among them): `wp/v2/users/me`
 * (who the credentials are) and `wp/v2/settings` (the site's title, zone and formats), answered
 * as WordPress does as far as a calendar has the data. Read-only: the calendar's settings are
 * changed in the admin app (`calendar/admin/v1/settings`).
 *
 * @example for (const root of roots) registerRoutes(app, wpCoreRoutes(services), services, services.linksFor(root, WP_NAMESPACE));
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { isAuthenticated, managesAccounts } from '../../domain/permissions.js';
import type { Services } from '../../domain/services.js';
import { anyone, endpoint, route, type RouteDecl } from '../route.js';

export const WP_NAMESPACE = 'wp/v2';

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** WordPress' user_nicename: the login, lower-cased, with what a URL cannot hold replaced. */
const nicename = (login: string) =>
  login
    .toLowerCase()
    .replace(/[^a-z0-9_.@-]+/g, '-')
    .replace(/^-+|-+$/g, '');

export function wpCoreRoutes(services: Services): RouteDecl[] {
  const me = route('/users/me', [
    endpoint({
      methods: ['GET'],
      args: { context: { type: 'string', default: 'view', enum: ['view', 'embed', 'edit'], description: 'Scope under which the request is made; determines fields present in response.' } },
      // WordPress answers anyone here, and tells who is not signed in from the handler.
      permission: anyone,
      docs: { summary: 'The current user', responses: { '200': { description: 'The user the credentials name' }, '401': { description: 'Not signed in' } } },
      handler: async (ctx) => {
        if (!isAuthenticated(ctx.viewer)) throw new ApiError('rest_not_logged_in', 'You are not currently logged in.', 401);
        const user = (await services.users.list()).find((u) => Number(u.id) === ctx.viewer.id);
        if (!user) throw new ApiError('rest_not_logged_in', 'You are not currently logged in.', 401);
        const slug = nicename(user.login);
        const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
        const avatar = (size: number) => `https://secure.gravatar.com/avatar/${hash}?s=${size}&d=mm&r=g`;
        const site = ctx.links.siteUrl;
        const common = { url: '', description: '', link: `${site}/author/${slug}/` };
        const role = ctx.viewer.role ?? 'subscriber';
        const capabilities = Object.fromEntries([...[...ctx.viewer.caps].sort(), role].map((c) => [c, true]));
        const body =
          ctx.args.context === 'edit'
            ? {
                id: Number(user.id),
                username: user.login,
                name: user.display_name,
                first_name: '',
                last_name: '',
                email: user.email,
                ...common,
                locale: 'en_US',
                nickname: user.login,
                slug,
                registered_date: `${user.registered_gmt.replace(' ', 'T')}+00:00`,
                roles: [role],
                capabilities,
                extra_capabilities: { [role]: true },
                avatar_urls: { '24': avatar(24), '48': avatar(48), '96': avatar(96) },
                meta: [],
              }
            : { id: Number(user.id), name: user.display_name, ...common, slug, avatar_urls: { '24': avatar(24), '48': avatar(48), '96': avatar(96) }, meta: [] };
        return { body: { ...body, _links: { self: [{ href: ctx.links.rest(`users/${user.id}`) }], collection: [{ href: ctx.links.rest('users') }] } } };
      },
    }),
  ]);

  const settings = route('/settings', [
    endpoint({
      methods: ['GET'],
      args: {},
      // manage_options: administrators only, as in WordPress.
      permission: (ctx) => ctx.viewer.role === 'administrator',
      docs: { summary: 'The site settings', responses: { '200': { description: "The site's settings" } } },
      handler: async (ctx) => {
        const c = services.config;
        return {
          body: {
            title: c.siteName,
            description: '',
            url: ctx.links.siteUrl,
            // The installation's administrator's address (CALENDAR_ADMIN_EMAIL) is the network's:
            // a calendar's own administrator (or a key limited to one calendar) is told none, as
            // when it is unset; a calendar has no address of its own to answer instead.
            email: managesAccounts(ctx.viewer) ? (c.adminEmail ?? '') : '',
            timezone: c.timezone,
            date_format: c.dateFormat,
            time_format: c.timeFormat,
            start_of_week: Math.max(0, DAYS.indexOf(String(c.weekStart).toLowerCase())),
            language: 'en_US',
            use_smilies: true,
            default_category: 1,
            default_post_format: '0',
            posts_per_page: c.defaultPerPage,
            show_on_front: 'posts',
            page_on_front: 0,
            page_for_posts: 0,
            default_ping_status: 'open',
            default_comment_status: 'open',
            site_logo: null,
            site_icon: 0,
          },
        };
      },
    }),
  ]);
  return [me, settings];
}
