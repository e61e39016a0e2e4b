/**
 * What every tool of the MCP face shares: the per-request context (the REST client of the caller,
 * who they are, the settings), tool definitions built once (those written with a calendar's
 * settings, once per calendar: server.ts; building the schemas took 10 ms, more than the call) and
 * registered on each request's server, a REST refusal turned into a tool error (`isError: true`,
 * REST's message), the paging arguments and the paged answer's shape.
 *
 * @example
 *   const tools = [defineTool('list_tags', { title: 'List tags', description: '…', input: { ...pageInput }, readOnly: true }, async (ctx, a) => …)];
 *   registerTools(server, tools, ctx); // per request
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ListToolsRequestSchema, type CallToolResult, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Config } from '../config.js';
import type { Viewer } from '../domain/permissions.js';
import { RestRefusal, type RestClient } from './rest.js';

/** What a tool is given for one MCP request. */
export interface ToolContext {
  rest: RestClient;
  viewer: Viewer;
  config: Config;
}

/** The most items one page of a tool's list holds (assistants read every item into their context). */
export const MAX_PER_PAGE = 50;

export const pageInput = {
  page: z.number().int().min(1).optional().describe('The page to return, from 1 (default 1). Answers say `total`, `total_pages` and `next_page` (null on the last page).'),
  per_page: z.number().int().min(1).max(MAX_PER_PAGE).optional().describe(`Items per page, 1 to ${MAX_PER_PAGE} (default 10)`),
};

/** The page and per_page sent to REST from a tool's arguments. */
export function pageQuery(a: { page?: number | undefined; per_page?: number | undefined }): { page: number; per_page: number } {
  return { page: a.page ?? 1, per_page: a.per_page ?? 10 };
}

/** A paged answer: what the list holds and where the next page is. */
export function paged<T>(key: string, items: T[], body: { total?: unknown; total_pages?: unknown }, page: number): Record<string, unknown> {
  const total = Number(body.total ?? items.length);
  const totalPages = Number(body.total_pages ?? 1);
  return { total, total_pages: totalPages, page, next_page: page < totalPages ? page + 1 : null, [key]: items };
}

type Shape = z.ZodRawShape;

export interface ToolSpec<S extends Shape> {
  title: string;
  description: string;
  input: S;
  /** reads only (true) or writes; a write that only moves to the trash is not destructive */
  readOnly: boolean;
  destructive?: boolean;
  idempotent?: boolean;
}

/** A tool answer: the value as JSON text. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 1) }] };
}

/** A tool, defined once per face (its schemas built once): registered on each request's server with that request's context. */
export interface ToolDef {
  name: string;
  spec: ToolSpec<Shape>;
  /** the input's schema, built once */
  schema: z.ZodObject<Shape>;
  annotations: ToolAnnotations;
  run: (ctx: ToolContext, args: any) => Promise<unknown>;
}

/** A tool's definition: `run` gets the request's context and the arguments its schema checked. */
export function defineTool<S extends Shape>(name: string, spec: ToolSpec<S>, run: (ctx: ToolContext, args: z.infer<z.ZodObject<S>>) => Promise<unknown>): ToolDef {
  const annotations: ToolAnnotations = {
    title: spec.title,
    readOnlyHint: spec.readOnly,
    openWorldHint: false,
    ...(spec.readOnly ? {} : { destructiveHint: spec.destructive ?? false, idempotentHint: spec.idempotent ?? false }),
  };
  return { name, spec, schema: z.object(withExamples(spec.input)) as unknown as z.ZodObject<Shape>, annotations, run };
}

/** The first example a field's description gives (`e.g. "2026-12-05 19:30"`, `e.g. ["music"]`, `e.g. 12`). */
const EXAMPLE = /e\.g\. ("(?:[^"\\]|\\.)*"|\[[^\]]*\]|-?\d+(?:\.\d+)?)/;

/**
 * The fields with their descriptions' examples also as JSON Schema `examples`, which clients show
 * and assistants copy: written once, in the description, where a reader of either finds it.
 */
function withExamples<S extends Shape>(shape: S): S {
  const out: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape as unknown as Record<string, z.ZodType>)) {
    const found = field.description ? EXAMPLE.exec(field.description) : null;
    let example: unknown;
    try {
      example = found ? JSON.parse(found[1]!) : undefined;
    } catch {
      example = undefined;
    }
    out[key] = example === undefined ? field : field.meta({ examples: [example] });
  }
  return out as unknown as S;
}

/**
 * A definition as `tools/list` gives it, made once per definition (as the SDK makes it: the input
 * schema as JSON Schema): definitions shared by every calendar's tools are converted once for all.
 */
const listed = new WeakMap<ToolDef, Tool>();
function listedOf(d: ToolDef): Tool {
  let tool = listed.get(d);
  if (!tool) {
    tool = {
      name: d.name,
      title: d.spec.title,
      description: d.spec.description,
      inputSchema: toJsonSchemaCompat(d.schema, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
      annotations: d.annotations,
    };
    listed.set(d, tool);
  }
  return tool;
}

/** Register tools on a request's server; a REST refusal comes back as a tool error with REST's message. */
export function registerTools(server: McpServer, defs: readonly ToolDef[], ctx: ToolContext): void {
  for (const { name, spec, schema, annotations, run } of defs) {
    const callback = async (args: unknown): Promise<CallToolResult> => {
      try {
        return jsonResult(await run(ctx, args));
      } catch (e) {
        if (e instanceof RestRefusal) return { isError: true, content: [{ type: 'text', text: e.toText() }] };
        throw e;
      }
    };
    // The SDK's generic callback type is wider than this one (it also passes the request's extra).
    server.registerTool(name, { title: spec.title, description: spec.description, inputSchema: schema, annotations }, callback as never);
  }
  // Each definition's entry is the same for every caller: made once rather than converted again per
  // request (it was most of a tools/list's time).
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: defs.map(listedOf) }));
}
