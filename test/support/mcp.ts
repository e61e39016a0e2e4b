/**
 * The MCP tests' client side: the official SDK's `Client` over `StreamableHTTPClientTransport`
 * against a test server's /mcp, a tool call's answer read back, and users with application passwords.
 *
 * @example
 *   const client = await connect(t, await appPasswordUser(t, 'editor', 'ed'));
 *   const { json } = await call(client, 'search_events', { search: 'jazz' });
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestServer } from './harness.js';

const ADMIN_BASE = '/api/calendar/admin/v1';

/** An SDK client connected to the server's /mcp, as `credentials` (login:password) or anonymously. */
export async function connect(t: TestServer, credentials?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const headers: Record<string, string> = credentials ? { authorization: 'Basic ' + Buffer.from(credentials).toString('base64') } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.origin}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A tool call's answer: its JSON when it succeeded, its text when it is a tool error. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; json: any; text: string }> {
  const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  const text = res.content.map((c) => c.text).join('\n');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: res.isError === true, json, text };
}

/** A user of this role with an application password: their `login:password` credentials. */
export async function appPasswordUser(t: TestServer, role: 'editor' | 'contributor' | 'author', login: string): Promise<string> {
  const { id } = await t.user(role, login);
  const made = await t.api.post(`${ADMIN_BASE}/users/${id}/application-passwords`, { as: 'admin', json: { name: 'assistant' } });
  assert.equal(made.status, 201, made.text);
  return `${login}:${made.body.password}`;
}
