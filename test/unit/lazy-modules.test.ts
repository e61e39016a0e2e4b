/**
 * The heavy libraries of rare paths are loaded when first needed, not at every start of the server
 * or of a CLI command (docs/design.md, "Decisions"): the MCP SDK and zod with the first MCP request,
 * sharp with the first image, nodemailer with the first e-mail, qrcode with the first two-factor
 * enrolment, Fedify only with FEDERATION=true. A child process builds the whole app (every face on,
 * SMTP set) and reports which packages were resolved, then answers one MCP request.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeExit, runNode } from '../support/child.js';

const LAZY = ['@modelcontextprotocol/sdk', 'zod', 'sharp', 'nodemailer', 'qrcode', '@fedify/fedify'];

const SCRIPT = `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    const m = r.url.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//);
    if (m) loaded.add(m[1]);
    return r;
  },
});
const { loadConfig } = await import('./src/config.ts');
const { buildApp } = await import('./src/app.ts');
const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', SMTP_URL: 'smtp://127.0.0.1:1', MCP: 'true', SUBMISSIONS: 'anyone' });
const built = await buildApp(config, { logger: false, webhooks: false });
const atStart = [...loaded];
const answer = await built.app.inject({
  method: 'POST', url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
});
console.log(JSON.stringify({ atStart, afterMcp: [...loaded], status: answer.statusCode, tools: JSON.parse(answer.body).result?.tools?.length ?? 0 }));
await built.close();
`;

describe('heavy libraries of rare paths', () => {
  it('are not loaded by a start, and the MCP SDK is loaded by the first MCP request', async () => {
    const r = await runNode(['--import', './scripts/typescript.mjs', '--input-type=module', '-e', SCRIPT]);
    assert.equal(r.code, 0, `${describeExit(r)}\n${r.stderr}`);
    const seen = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { atStart: string[]; afterMcp: string[]; status: number; tools: number };
    // The app itself was built: its everyday libraries are there.
    for (const name of ['fastify', 'kysely', 'better-sqlite3']) assert.ok(seen.atStart.includes(name), name);
    for (const name of LAZY) assert.ok(!seen.atStart.includes(name), `${name} loaded at start`);
    assert.equal(seen.status, 200);
    assert.ok(seen.tools > 10, `tools/list answered ${seen.tools} tools`);
    for (const name of ['@modelcontextprotocol/sdk', 'zod']) assert.ok(seen.afterMcp.includes(name), `${name} after the first MCP request`);
  });
});
