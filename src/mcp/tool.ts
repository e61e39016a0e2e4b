/**
 * What every tool of the MCP face shares: the per-request context (the REST client of the caller,
 * who they are, the settings), one registration helper that turns a REST refusal into a tool error
 * (`isError: true`, REST's message), the paging arguments and the paged answer's shape.
 *
 * @example
 *   addTool(server, 'list_tags', { title: 'List tags', description: '…', input: { ...pageInput } }, async (a) => …);
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
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

/** Register a tool whose REST refusals come back as tool errors with REST's message. */
export function addTool<S extends Shape>(server: McpServer, name: string, spec: ToolSpec<S>, run: (args: z.infer<z.ZodObject<S>>) => Promise<unknown>): void {
  const annotations: ToolAnnotations = {
    title: spec.title,
    readOnlyHint: spec.readOnly,
    openWorldHint: false,
    ...(spec.readOnly ? {} : { destructiveHint: spec.destructive ?? false, idempotentHint: spec.idempotent ?? false }),
  };
  const callback = async (args: z.infer<z.ZodObject<S>>): Promise<CallToolResult> => {
    try {
      return jsonResult(await run(args));
    } catch (e) {
      if (e instanceof RestRefusal) return { isError: true, content: [{ type: 'text', text: e.toText() }] };
      throw e;
    }
  };
  // The SDK's generic callback type is wider than this one (it also passes the request's extra).
  server.registerTool(name, { title: spec.title, description: spec.description, inputSchema: spec.input, annotations }, callback as never);
}
