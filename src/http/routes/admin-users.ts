/**
 * `{REST_ROOT}/calendar/admin/v1/users`: users and roles, and their application
 * passwords, over the user service (domain/user-admin.ts), as the CLI's `users` and
 * `app-passwords` commands:
 *
 * - `GET /users` (`search`, `role`, `page`, `per_page` ≤ 100; `X-WP-Total`/`X-WP-TotalPages`),
 *   `POST /users` `{username, password?, email?, name?, roles | role}` (201);
 * - `GET`/`POST|PUT|PATCH`/`DELETE /users/{id}` (update `name`, `email`, `roles`/`role`,
 *   `password`; delete with `reassign` = the user who becomes the author of their records, else
 *   409 `rest_user_has_content` when they authored any); the last administrator stays one (400
 *   `rest_user_last_administrator`); a new password ends the user's sign-in sessions, but the
 *   one the caller asks with when they change their own;
 * - `GET`/`POST /users/{id}/application-passwords`, `DELETE /users/{id}/application-passwords/{uuid}`
 *   (WordPress' `wp/v2/users/{id}/application-passwords` shape; the secret only in the answer to
 *   POST).
 *
 * Network administrators manage every user (a calendar's own administrator does not: accounts are
 * shared by every calendar); any signed-in user lists, creates and revokes their own application
 * passwords and changes their own account, but not through an application password limited to one
 * calendar. 401 without credentials, 403 otherwise. No answer carries a hash.
 */
import type { Services } from '../../domain/services.js';
import { ROLES, managesAccounts, managesOwnAccount } from '../../domain/permissions.js';
import { passwordStrength, policyOf } from '../../domain/password-policy.js';
import { localeOf } from '../../domain/submissions/locale.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { pageArg } from './common.js';

/** Accounts are one login across every calendar: network administrators manage them (domain/permissions.ts). */
const isAdministrator = (ctx: EndpointContext) => managesAccounts(ctx.viewer);
/** Network administrators, or the user themselves (their application passwords), not through a password limited to one calendar. */
const selfOrAdministrator = (ctx: EndpointContext) => managesAccounts(ctx.viewer) || (managesOwnAccount(ctx.viewer) && Number(ctx.path.id) === ctx.viewer.id);

const roleOf = (ctx: EndpointContext): string | undefined => {
  const roles = ctx.args.roles as string[] | undefined;
  return roles?.[0] ?? (ctx.args.role as string | undefined);
};

const idArg: ArgSpec = { type: 'integer', description: 'The user ID', required: true, in: 'path' };
const rolesArg: ArgSpec = { type: 'array', items: { type: 'string' }, maxItems: 1, description: `The user's role, as a one-item list (${ROLES.join(', ')})` };
const roleArg: ArgSpec = { type: 'string', enum: ROLES, description: 'The role (instead of roles)' };
const nameArg: ArgSpec = { type: 'string', description: 'Display name' };
const emailArg: ArgSpec = { type: 'string', description: 'E-mail address (unique; "" for none)' };
const passwordArg: ArgSpec = { type: 'string', description: 'Password (stored hashed; never answered)' };

export function adminUserRoutes(services: Services): RouteDecl[] {
  return [...userRoutes(services.userAdmin), ...invitationRoutes(services.people), ...ownAccountRoutes(services), ...appPasswordRoutes(services.userAdmin)];
}

/** `/users` and `/users/{id}`: administrators manage every user. */
function userRoutes(admin: Services['userAdmin']): RouteDecl[] {
  return [
    route('/users', [
      endpoint({
        methods: ['GET'],
        args: {
          search: { type: 'string', description: 'Only users whose login, name or e-mail contains this' },
          role: { type: 'string', enum: ROLES, description: 'Only users of this role' },
          page: pageArg(),
          per_page: { default: '20', type: 'integer', description: 'Users per page (at most 100)', validate: (v) => isPositiveInt(v) },
        },
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'Users by id: id, username, name, email, roles, registered_date, has_password' }, '403': { description: 'Not an administrator' } } },
        handler: async (ctx) => {
          const perPage = Math.min(100, Number(ctx.args.per_page));
          const { items, total } = await admin.list({ search: ctx.args.search, role: ctx.args.role, page: Number(ctx.args.page), perPage });
          return { body: items, headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
      endpoint({
        methods: ['POST'],
        args: {
          username: { type: 'string', required: true, description: 'Login: 1 to 60 letters, digits, spaces or _ . @ -' },
          password: { ...passwordArg, description: 'Password (stored hashed); without one the user cannot sign in until given one' },
          email: emailArg,
          name: nameArg,
          roles: rolesArg,
          role: roleArg,
        },
        permission: isAdministrator,
        docs: { responses: { '201': { description: 'The created user' }, '400': { description: 'A parameter is invalid, or the login or e-mail is taken' } } },
        handler: async (ctx) => {
          const made = await admin.create({ username: ctx.args.username, password: ctx.args.password, email: ctx.args.email, name: ctx.args.name, role: roleOf(ctx) ?? 'subscriber' });
          return { status: 201, body: made, headers: { location: ctx.links.rest(`users/${made.id}`) } };
        },
      }),
    ]),
    route('/users/{id}', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The user' }, '404': { description: 'No such user' } } },
        handler: async (ctx) => ({ body: await admin.get(Number(ctx.path.id)) }),
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { id: idArg, name: nameArg, email: emailArg, roles: rolesArg, role: roleArg, password: passwordArg },
        permission: isAdministrator,
        docs: {
          responses: { '200': { description: 'The updated user' }, '400': { description: 'Invalid value, or the last administrator would lose the role' }, '404': { description: 'No such user' } },
        },
        handler: async (ctx) => ({
          body: await admin.update(
            Number(ctx.path.id),
            { name: ctx.args.name, email: ctx.args.email, role: roleOf(ctx), password: ctx.args.password },
            { userId: ctx.viewer.id, sessionId: ctx.client?.sessionId },
          ),
        }),
      }),
      endpoint({
        methods: ['DELETE'],
        args: {
          id: idArg,
          reassign: { type: 'integer', description: 'The user who becomes the author of the removed user’s events, venues, organizers and images' },
          force: { type: 'boolean', description: 'Accepted for WordPress clients (users are never trashed)' },
        },
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: '{ deleted: true, previous, reassigned }' },
            '400': { description: 'Invalid reassign, or the last administrator' },
            '404': { description: 'No such user' },
            '409': { description: 'The user authored records and no reassign was given' },
          },
        },
        handler: async (ctx) => ({ body: await admin.remove(Number(ctx.path.id), ctx.args.reassign === undefined ? undefined : Number(ctx.args.reassign)) }),
      }),
    ]),
  ];
}

function invitationRoutes(people: Services['people']): RouteDecl[] {
  return [
    // Invitations: a user made without a password, and a single-use set-password link e-mailed to them
    // (answered as `link` when SMTP_URL is unset, for the administrator to hand over).
    route('/invitations', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'Pending invitations: user_id, username, email, name, roles, invited, expires, expired' } } },
        handler: async () => ({ body: await people.invitations() }),
      }),
      endpoint({
        methods: ['POST'],
        args: {
          email: { type: 'string', required: true, description: 'The address the invitation is sent to (becomes the user’s)' },
          name: nameArg,
          username: { type: 'string', description: 'Login (default: from the e-mail address)' },
          roles: rolesArg,
          role: roleArg,
        },
        permission: isAdministrator,
        docs: {
          responses: { '201': { description: '{ user, invitation, link? }: the invited user and the invitation' }, '400': { description: 'A parameter is invalid, or the login or e-mail is taken' } },
        },
        handler: async (ctx) => {
          const made = await people.invite(
            { email: String(ctx.args.email), role: roleOf(ctx) ?? 'subscriber', name: ctx.args.name, username: ctx.args.username },
            { by: ctx.viewer.id, locale: localeOf(ctx.client?.acceptLanguage) },
          );
          return { status: 201, body: made, headers: { location: ctx.links.rest(`users/${made.user.id}`) } };
        },
      }),
    ]),
    route('/invitations/{id}', [
      endpoint({
        methods: ['POST'],
        args: { id: { ...idArg, description: 'The invited user’s ID' } },
        permission: isAdministrator,
        docs: { responses: { '200': { description: '{ invitation, link? }: a new link sent (the previous one no longer works)' }, '404': { description: 'No pending invitation for this user' } } },
        handler: async (ctx) => ({ body: await people.resend(Number(ctx.path.id), { by: ctx.viewer.id, locale: localeOf(ctx.client?.acceptLanguage) }) }),
      }),
      endpoint({
        methods: ['DELETE'],
        args: { id: { ...idArg, description: 'The invited user’s ID' } },
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: '{ revoked: true, removed }: the link no longer works; the user is removed while they never set a password' },
            '404': { description: 'No pending invitation' },
          },
        },
        handler: async (ctx) => ({ body: await people.revoke(Number(ctx.path.id)) }),
      }),
    ]),
  ];
}

/** The signed-in user's own: the password meter's estimate and their account. */
function ownAccountRoutes(services: Services): RouteDecl[] {
  const admin = services.userAdmin;
  return [
    // The strength meter's estimate, by the same check that decides (the dictionaries stay on the server).
    route('/password-strength', [
      endpoint({
        methods: ['POST'],
        args: {
          password: { type: 'string', required: true, description: 'The password to estimate (never stored or logged)' },
          user_inputs: { type: 'array', items: { type: 'string' }, maxItems: 10, description: 'Words of the account (login, name, e-mail) that make a password easy to guess' },
        },
        permission: (ctx) => ctx.viewer.id > 0,
        docs: { responses: { '200': { description: '{ score (0-4), ok, min_score, min_length, reason?, message? }' } } },
        handler: async (ctx) => {
          const inputs = ((ctx.args.user_inputs as string[] | undefined) ?? []).map((w) => w.slice(0, 100));
          return { body: passwordStrength(String(ctx.args.password), policyOf(services.config), [ctx.viewer.login, ...inputs]) };
        },
      }),
    ]),
    // The signed-in user's own account (the app's account screen).
    route('/me', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: (ctx) => ctx.viewer.id > 0,
        docs: { responses: { '200': { description: 'The caller: id, username, name, email, roles, registered_date, has_password' } } },
        handler: async (ctx) => ({ body: await admin.get(ctx.viewer.id) }),
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: {
          name: nameArg,
          email: emailArg,
          password: { ...passwordArg, description: 'A new password (the policy applies); needs current_password' },
          current_password: { type: 'string', description: 'The current password (to set a new one)' },
        },
        permission: (ctx) => managesOwnAccount(ctx.viewer),
        docs: { responses: { '200': { description: 'The caller, updated' }, '400': { description: 'Invalid value, weak_password, or incorrect_password' } } },
        handler: async (ctx) => ({
          body: await admin.updateOwn(ctx.viewer.id, { name: ctx.args.name, email: ctx.args.email, password: ctx.args.password, currentPassword: ctx.args.current_password }, ctx.client?.sessionId),
        }),
      }),
    ]),
  ];
}

function appPasswordRoutes(admin: Services['userAdmin']): RouteDecl[] {
  return [
    route('/users/{id}/application-passwords', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        permission: selfOrAdministrator,
        docs: { responses: { '200': { description: 'The application passwords: uuid, name, created, last_used (never the secret)' }, '404': { description: 'No such user' } } },
        handler: async (ctx) => ({ body: await admin.appPasswords(Number(ctx.path.id)) }),
      }),
      endpoint({
        methods: ['POST'],
        args: { id: idArg, name: { type: 'string', required: true, description: 'A name for the application (unique per user)' } },
        permission: selfOrAdministrator,
        docs: { responses: { '201': { description: 'The new application password with its secret in `password` (answered this once)' }, '404': { description: 'No such user' } } },
        handler: async (ctx) => ({ status: 201, body: await admin.createAppPassword(Number(ctx.path.id), String(ctx.args.name)) }),
      }),
    ]),
    route('/users/{id}/application-passwords/{uuid}', [
      endpoint({
        methods: ['DELETE'],
        args: { id: idArg, uuid: { type: 'string', required: true, in: 'path', description: 'The application password’s uuid' } },
        permission: selfOrAdministrator,
        docs: { responses: { '200': { description: '{ deleted: true, previous }: revoked at once on every server' }, '404': { description: 'No such user or application password' } } },
        handler: async (ctx) => ({ body: await admin.revokeAppPassword(Number(ctx.path.id), String(ctx.path.uuid)) }),
      }),
    ]),
  ];
}
