/**
 * The MCP face (docs/mcp.md): the calendar for AI assistants over the Model Context Protocol's
 * Streamable HTTP transport, at `POST /mcp`, with the official SDK (`@modelcontextprotocol/sdk`).
 *
 * Stateless: every request builds its own server and transport (no `Mcp-Session-Id`, no stream kept
 * open, answers as plain JSON), so any instance behind a load balancer answers any request and
 * nothing is held in memory between them; `GET` and `DELETE /mcp` (a server-sent stream, a
 * session's end) answer 405, as the SDK's stateless servers do.
 *
 * Who calls: the `Authorization` header as the REST API reads it (HTTP Basic with an application
 * password; web/authentication.ts, its throttle and two-factor rule); none is the anonymous
 * visitor; wrong credentials answer 401 before any MCP message is read. The caller is known before
 * the rate limit counts the request, so it counts per user as REST's does. The tools reach the
 * calendar through the REST routes themselves (rest.ts), so they see, write and refuse what REST
 * would for the same caller. OAuth is not offered (docs/mcp.md says why).
 *
 * MCP=false: nothing is registered (404). The SDK's side (server.ts) is loaded on the first
 * request to `/mcp`.
 *
 * @example
 *   registerMcpFace(app, deps); // POST /mcp {"jsonrpc":"2.0","id":1,"method":"tools/list"}
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaceDeps } from '../faces.js';
import { ApiError, apiError } from '../domain/errors.js';
import { onFirstUse } from '../domain/on-first-use.js';
import { ANONYMOUS } from '../domain/permissions.js';
import { createAuthentication } from '../web/authentication.js';
import { registerErrorShape, withErrorHeaders } from '../web/error-shapes.js';
import type { McpAnswerer } from './server.js';

export const MCP_PATH = '/mcp';

/** The largest MCP request body: a tool call with an event's description fits many times over. */
export const MCP_BODY_LIMIT = 256 * 1024;

const isMcpUrl = (url: string) => url === MCP_PATH || url.startsWith(`${MCP_PATH}?`);

export function registerMcpFace(app: FastifyInstance, { config, services }: Pick<FaceDeps, 'config' | 'services'>): void {
  if (!config.mcp) return;
  const authenticate = createAuthentication(services, config);
  // The calendar's own name (`config` answers with the request's calendar's), read per request.
  const realmNow = () => `Basic realm="${config.siteName.replace(/["\\]/g, '')}", charset="UTF-8"`;

  // Who calls, before the rate limit's hook keys the request by them (a callback-style hook: it
  // runs for every request, and costs one comparison for those not to /mcp).
  app.addHook('onRequest', (req, reply, done) => {
    if (!isMcpUrl(req.url)) return done();
    const header = req.headers.authorization;
    if (!header) {
      req.viewer = ANONYMOUS;
      return done();
    }
    // Read in the request's calendar, before the authentication's own work.
    const realm = realmNow();
    authenticate(header, req.ip).then(
      (viewer) => {
        // REST reads on as a visitor when credentials sign nobody in; an assistant set up with a
        // wrong password would then be refused every write with no hint why, so it is told here.
        if (viewer.id === 0) {
          void reply.header('www-authenticate', realm);
          return done(apiError('rest_invalid_credentials'));
        }
        req.viewer = viewer;
        done();
      },
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 401) void reply.header('www-authenticate', realm);
        done(e as Error);
      },
    );
  });

  // What is refused before the MCP server reads the request (credentials, a body over the limit or
  // not JSON, the rate limit) is answered as a JSON-RPC error, which MCP clients read, with the
  // HTTP status and the REST code kept in `data`.
  registerErrorShape(app, {
    owns: (path) => path === MCP_PATH,
    send: (_req, reply, error) =>
      withErrorHeaders(reply, error)
        .code(error.status)
        .header('content-type', 'application/json; charset=utf-8')
        .send({ jsonrpc: '2.0', error: { code: error.code === 'rest_invalid_json' ? -32700 : -32000, message: error.message, data: { code: error.code, status: error.status } }, id: null }),
  });

  // The SDK and the tools' schemas (some 300 modules, a quarter of the app's loading time) are
  // loaded on the first MCP request, not at every start: most servers and CLI commands never
  // answer one.
  const answererOf = onFirstUse<McpAnswerer>(() => import('./server.js').then((m) => m.createMcpAnswerer(app, config, MCP_PATH)));

  const notAllowed = (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless (POST only, no session or event stream).' }, id: null });

  app.route({ method: ['GET', 'DELETE'], url: MCP_PATH, handler: notAllowed });
  app.route({
    method: 'POST',
    url: MCP_PATH,
    bodyLimit: MCP_BODY_LIMIT,
    handler: async (req, reply) => {
      const answer = await (await answererOf())(req);
      reply.code(answer.status);
      answer.headers.forEach((value, key) => void reply.header(key, value));
      reply.header('cache-control', 'no-store');
      return reply.send(answer.body);
    },
  });
}
