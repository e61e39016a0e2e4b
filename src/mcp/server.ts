/**
 * The MCP face's server side (index.ts loads it on the first MCP request): the official SDK's
 * stateless server and Streamable HTTP transport, built for each request with the face's tools,
 * resources and prompts, answering one JSON-RPC body as plain JSON.
 *
 * Every calendar has tools of its own (their descriptions name its URLs and defaults; its
 * submissions setting says whether some exist): those are built for the settings of the request's
 * calendar and kept for the `TOOL_SETS_KEPT` calendars asked most recently; the others are built
 * once for all.
 *
 * @example
 *   const { status, headers, body } = await createMcpAnswerer(app, config, '/mcp')(req);
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { acrossCalendars } from '../calendar-now.js';
import type { Config } from '../config.js';
import { ANONYMOUS } from '../domain/permissions.js';
import { registerKept } from '../metrics.js';
import { readTools } from './read-tools.js';
import { restClientOf } from './rest.js';
import { registerPrompts, registerResources } from './resources.js';
import { submissionTools } from './submission-tools.js';
import { registerTools, type ToolContext, type ToolDef } from './tool.js';
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

/**
 * The most calendars whose own tools (those written with the calendar's URL: submission-tools.ts)
 * are kept at once, the most recently asked: building them costs some 4 ms and 110 KB kept, and a
 * service may hold thousands of calendars.
 */
export const TOOL_SETS_KEPT = 32;
/** The most sets of reading tools kept at once (written with the geolocation defaults, the installation's). */
const READ_SETS_KEPT = 4;

/**
 * What `build` makes of some settings, made once per distinct settings and kept for the `max`
 * most recently asked; `kept()`: how many are.
 */
function keptBuilds<S extends object>(max: number, build: (settings: S) => ToolDef[]): { of(settings: S): ToolDef[]; kept(): number } {
  const made = new Map<string, ToolDef[]>();
  return {
    of(settings) {
      const key = JSON.stringify(settings);
      let tools = made.get(key);
      if (tools) made.delete(key);
      else {
        tools = build(settings);
        if (made.size >= max) made.delete(made.keys().next().value!);
      }
      made.set(key, tools); // the newest
      return tools;
    },
    kept: () => made.size,
  };
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

export function createMcpAnswerer(app: FastifyInstance, config: Config, path: string): McpAnswerer {
  // Per request: administrators change the calendar's name and time zone while the server runs.
  const instructionsNow = () =>
    `The events calendar "${config.siteName}" (${config.siteUrl}). Dates are read and given in its time zone, ${config.timezone}, unless they carry an offset; ` +
    'call about_calendar for today’s date there. Lists are paged: answers say total, total_pages and next_page. ' +
    'Anonymous callers see published events only; writing needs an application password sent as HTTP Basic credentials.';

  // Built once, not per request: their schemas cost more to build than a call costs to answer.
  // Those written with a calendar's settings are built once per calendar, keyed by the settings
  // they are written with (a calendar whose URL or settings change gets them written anew).
  const writes = writeTools();
  const reads = keptBuilds(READ_SETS_KEPT, (settings: Pick<Config, 'geolocRadius' | 'geolocUnit'>) => readTools(settings));
  const submissions = keptBuilds(TOOL_SETS_KEPT, (settings: Pick<Config, 'siteUrl' | 'restRoot' | 'submissions' | 'submissionsPow'>) => submissionTools(settings));
  acrossCalendars(() => registerKept(undefined, 'mcp_tool_sets', { entries: () => reads.kept() + submissions.kept(), maxEntries: READ_SETS_KEPT + TOOL_SETS_KEPT }));
  // The request's calendar's (`config` answers with the configuration of the calendar at hand).
  const toolsNow = (): ToolDef[] => [
    ...reads.of({ geolocRadius: config.geolocRadius, geolocUnit: config.geolocUnit }),
    ...writes,
    ...submissions.of({ siteUrl: config.siteUrl, restRoot: config.restRoot, submissions: config.submissions, submissionsPow: config.submissionsPow }),
  ];
  const serverFor = (req: FastifyRequest): McpServer => {
    const server = new McpServer({ name: 'events-calendar', title: config.siteName, version: VERSION }, { instructions: instructionsNow() });
    const authorization = req.headers.authorization;
    const acceptLanguage = headerText(req.headers['accept-language']);
    const ctx: ToolContext = {
      rest: restClientOf(app, config, { ip: req.ip, ...(authorization ? { authorization } : {}), ...(acceptLanguage ? { acceptLanguage } : {}) }),
      viewer: req.viewer ?? ANONYMOUS,
      config,
    };
    registerTools(server, toolsNow(), ctx);
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
