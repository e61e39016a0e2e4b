/**
 * The MCP face's server side (index.ts loads it on the first MCP request): the official SDK's
 * stateless server and Streamable HTTP transport, built for each request with the face's tools,
 * resources and prompts, answering one JSON-RPC body as plain JSON.
 *
 * @example
 *   const { status, headers, body } = await createMcpAnswerer(app, config, '/mcp')(req);
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { ANONYMOUS } from '../domain/permissions.js';
import { readTools } from './read-tools.js';
import { restClientOf } from './rest.js';
import { registerPrompts, registerResources } from './resources.js';
import { submissionTools } from './submission-tools.js';
import { registerTools, type ToolContext } from './tool.js';
import { writeTools } from './write-tools.js';

/** What the transport answered to one MCP request. */
export interface McpAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** Answers one MCP request (its body already parsed by Fastify). */
export type McpAnswerer = (req: FastifyRequest) => Promise<McpAnswer>;

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

export function createMcpAnswerer(app: FastifyInstance, config: Config, path: string): McpAnswerer {
  // Per request: administrators change the calendar's name and time zone while the server runs.
  const instructionsNow = () =>
    `The events calendar "${config.siteName}" (${config.siteUrl}). Dates are read and given in its time zone, ${config.timezone}, unless they carry an offset; ` +
    'call about_calendar for today’s date there. Lists are paged: answers say total, total_pages and next_page. ' +
    'Anonymous callers see published events only; writing needs an application password sent as HTTP Basic credentials.';

  // Built once: their schemas cost more to build than a call costs to answer.
  const tools = [...readTools(config), ...writeTools(), ...submissionTools(config)];
  const serverFor = (req: FastifyRequest): McpServer => {
    const server = new McpServer({ name: 'events-calendar', title: config.siteName, version: VERSION }, { instructions: instructionsNow() });
    const authorization = req.headers.authorization;
    const acceptLanguage = headerText(req.headers['accept-language']);
    const ctx: ToolContext = {
      rest: restClientOf(app, config, { ip: req.ip, ...(authorization ? { authorization } : {}), ...(acceptLanguage ? { acceptLanguage } : {}) }),
      viewer: req.viewer ?? ANONYMOUS,
      config,
    };
    registerTools(server, tools, ctx);
    registerResources(server, ctx);
    registerPrompts(server, ctx);
    return server;
  };

  return async (req) => {
    const server = serverFor(req);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, headerText(v)!);
      const answer = await transport.handleRequest(new Request(`${config.siteUrl}${path}`, { method: 'POST', headers }), { parsedBody: req.body });
      // Read before the server closes: closing ends the transport's streams.
      return { status: answer.status, headers: answer.headers, body: await answer.text() };
    } finally {
      await server.close();
    }
  };
}
