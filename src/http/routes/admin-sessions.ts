/**
 * `{REST_ROOT}/calendar/admin/v1/sessions`: the sign-in sessions of the admin face
 * (domain/sessions.ts). Any signed-in user lists and ends their own; administrators those of any
 * user (`user`). `GET /sessions` lists them (id, created, last used, browser, address; never the
 * session id), `DELETE /sessions` ends them all (sign out everywhere), `DELETE /sessions/{id}` one.
 * Ending takes effect at once on every instance (the change log). 401 without credentials, 403 for
 * another user's sessions unless administrator, 404 for an unknown user or session.
 */
import { ApiError } from '../../domain/errors.js';
import { managesAccounts, managesOwnAccount } from '../../domain/permissions.js';
import type { Services } from '../../domain/services.js';
import { describeUserAgent } from '../../domain/user-agent.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';

const signedIn = (ctx: EndpointContext) => ctx.viewer.id > 0;
/** Ending sessions changes the account: not through an application password limited to one calendar. */
const ownAccount = (ctx: EndpointContext) => managesOwnAccount(ctx.viewer);
const notFound = () => new ApiError('rest_session_invalid_id', 'Invalid session ID.', 404);

export function adminSessionRoutes(services: Services): RouteDecl[] {
  const sessions = services.sessions;
  const userArg: ArgSpec = { type: 'integer', description: 'The user whose sessions (administrators only; default: the caller)', validate: (v) => isPositiveInt(v) };
  /** The user addressed: the caller, or (administrators) the one named. */
  const userOf = async (ctx: EndpointContext): Promise<number> => {
    if (ctx.args.user === undefined || Number(ctx.args.user) === ctx.viewer.id) return ctx.viewer.id;
    if (!managesAccounts(ctx.viewer)) throw new ApiError('rest_forbidden', 'Sorry, you are not allowed to do that.', 403);
    if (!(await services.users.exists(Number(ctx.args.user)))) throw new ApiError('rest_user_invalid_id', 'Invalid user ID.', 404);
    return Number(ctx.args.user);
  };
  // `device` is the User-Agent in words (the app writes "Firefox on Windows"); `current`: the session the request came with.
  const listing = async (userId: number, currentId: number | undefined) =>
    (await sessions.list(userId)).map((s) => ({
      id: s.id,
      user: userId,
      created_gmt: s.created,
      last_used_gmt: s.lastUsed,
      user_agent: s.userAgent,
      ip: s.ip,
      device: describeUserAgent(s.userAgent),
      remember: s.remember,
      current: s.id === currentId,
    }));
  return [
    route('/sessions', [
      endpoint({
        methods: ['GET'],
        args: { user: userArg },
        permission: signedIn,
        docs: {
          responses: {
            '200': { description: "The user's sign-in sessions: id, user, created_gmt, last_used_gmt, user_agent, ip" },
            '403': { description: "Another user's, and not an administrator" },
          },
        },
        handler: async (ctx) => ({ body: await listing(await userOf(ctx), ctx.client?.sessionId) }),
      }),
      endpoint({
        methods: ['DELETE'],
        args: { user: userArg, keep_current: { type: 'boolean', description: 'Keep the session the request came with (sign out everywhere else)' } },
        permission: ownAccount,
        docs: {
          responses: {
            '200': { description: 'Every session of the user ended (sign out everywhere, or everywhere else): { deleted: true, count }' },
            '403': { description: "Another user's, and not an administrator" },
          },
        },
        handler: async (ctx) => {
          const userId = await userOf(ctx);
          const keep = Boolean(ctx.args.keep_current) && userId === ctx.viewer.id ? ctx.client?.sessionId : undefined;
          return { body: { deleted: true, count: keep === undefined ? await sessions.revokeAll(userId) : await sessions.revokeOthers(userId, keep) } };
        },
      }),
    ]),
    route('/sessions/{id}', [
      endpoint({
        methods: ['DELETE'],
        args: { id: { type: 'integer', description: 'The session ID', required: true, in: 'path' } },
        permission: ownAccount,
        docs: { responses: { '200': { description: 'The session ended: { deleted: true }' }, '404': { description: 'No such session (of the caller, unless administrator)' } } },
        handler: async (ctx) => {
          const id = Number(ctx.path.id);
          const owner = Number.isSafeInteger(id) ? await sessions.ownerOf(id) : undefined;
          if (owner === undefined || (owner !== ctx.viewer.id && !managesAccounts(ctx.viewer))) throw notFound();
          if (!(await sessions.revoke(owner, id))) throw notFound();
          return { body: { deleted: true } };
        },
      }),
    ]),
  ];
}
