/**
 * TEC's own MCP server (a `tec/v1` client, vendored unchanged in test/peers/tec-mcp-server), run from
 * its sources and pointed at this service with an application password, as its README sets it up:
 * driven over stdio by the official MCP SDK's client, it lists, creates, updates, reads and deletes
 * an event through tec/v1, and the legacy namespace sees each step. One store (SQLite): the peer
 * process is slow to start and what it exercises is the REST face, the same on both.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startServer, STORES, type TestServer } from '../support/harness.js';

const PEER = fileURLToPath(new URL('../peers/tec-mcp-server/src/index.ts', import.meta.url));

/** The text parts of a tool's answer, and the JSON one when there is one. */
function answerOf(result: Awaited<ReturnType<Client['callTool']>>): { text: string; json: any } {
  const parts = (result.content as Array<{ type: string; text?: string }>).filter((p) => p.type === 'text').map((p) => p.text ?? '');
  assert.ok(!result.isError, parts.join('\n'));
  let json: any;
  for (const part of parts) {
    try {
      json = JSON.parse(part);
    } catch {
      // Not the JSON part.
    }
  }
  return { text: parts.join('\n'), json };
}

describe("TEC's MCP server against tec/v1 [sqlite]", () => {
  let t: TestServer;
  let client: Client;
  before(async () => {
    t = await startServer(STORES[0]!);
    const { password } = await t.built.services.users.addAppPassword('admin', 'tec-mcp-server');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    client = new Client({ name: 'events-calendar-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', PEER],
        env: { ...env, WP_URL: t.origin, WP_USERNAME: 'admin', WP_APP_PASSWORD: password, LOG_LEVEL: 'error' },
        stderr: 'pipe',
      }),
    );
  });
  after(async () => {
    await client?.close();
    await t?.close();
  });

  it('lists, creates, updates, reads and deletes an event through tec/v1, unchanged', async () => {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ['tec-calendar-read-entities', 'tec-calendar-create-update-entities', 'tec-calendar-delete-entities']) assert.ok(tools.includes(name), `${name} in ${tools.join(', ')}`);

    const created = answerOf(
      await client.callTool({
        name: 'tec-calendar-create-update-entities',
        arguments: {
          postType: 'event',
          data: { title: 'Jazz on the Quay', start_date: '2031-07-14 20:00:00', end_date: '2031-07-14 23:00:00', status: 'publish', content: 'Live music by the water.' },
        },
      }),
    );
    const id = Number(/with ID: (\d+)/.exec(created.text)?.[1]);
    assert.ok(id > 0, created.text);
    assert.equal((await t.api.get(`/events/${id}`)).body.title, 'Jazz on the Quay');

    const listed = answerOf(await client.callTool({ name: 'tec-calendar-read-entities', arguments: { postType: 'event', per_page: 10 } }));
    assert.ok(listed.text.includes('Jazz on the Quay'), listed.text);

    // The peer's own schema asks for an event's dates on updates too.
    const updated = answerOf(
      await client.callTool({
        name: 'tec-calendar-create-update-entities',
        arguments: { postType: 'event', id, data: { title: 'Jazz on the Quay, Again', start_date: '2031-07-14 20:00:00', end_date: '2031-07-14 23:30:00' } },
      }),
    );
    assert.ok(updated.text.includes(`updated event with ID: ${id}`), updated.text);
    assert.equal((await t.api.get(`/events/${id}`)).body.title, 'Jazz on the Quay, Again');

    const read = answerOf(await client.callTool({ name: 'tec-calendar-read-entities', arguments: { postType: 'event', id } }));
    assert.ok(read.text.includes('Jazz on the Quay, Again'), read.text);
    assert.ok(read.text.includes('2031-07-14 20:00:00'), read.text);

    const deleted = answerOf(await client.callTool({ name: 'tec-calendar-delete-entities', arguments: { postType: 'event', id } }));
    assert.ok(deleted.text.includes(`moved to trash event with ID: ${id}`), deleted.text);
    const trashed = await t.api.get(`/events/${id}`, { as: 'admin' });
    assert.equal(trashed.status, 403);
    assert.equal(trashed.body.code, 'event-no-longer-available');
  });
});
