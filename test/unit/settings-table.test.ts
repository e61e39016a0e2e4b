/**
 * The README's settings table and the declarations (config.ts `SETTINGS`) say the same: every
 * declared setting has a row (the federation ones in docs/federation.md's table, which the README's
 * `FEDERATION_*` row points to) with its default and where it may be changed, and every variable of
 * the table is declared.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SETTINGS, loadConfig, parseSetting } from '../../src/config.js';

/** The rows of the first table under a heading: variables of the first cell, and the other cells. */
function tableRows(text: string, heading: string): Array<{ vars: string[]; cells: string[] }> {
  const start = text.indexOf(heading);
  assert.ok(start >= 0, heading);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const out: Array<{ vars: string[]; cells: string[] }> = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    out.push({ vars: [...cells[0]!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!), cells });
  }
  return out;
}

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const FEDERATION_DOC = readFileSync(new URL('../../docs/federation.md', import.meta.url), 'utf8');

it("the README's settings table and the declarations agree", () => {
  const rows = tableRows(README, '## Configuration');
  const problems: string[] = [];
  const inReadme = new Map<string, { default: string; where: string }>();
  for (const r of rows) {
    const defaults = r.cells[1]!.split(' / ').map((d) => d.trim().replace(/^`|`$/g, ''));
    r.vars.forEach((v, i) => inReadme.set(v, { default: defaults.length === r.vars.length ? defaults[i]! : defaults[0]!, where: r.cells[2]! }));
  }
  const federation = new Set(tableRows(FEDERATION_DOC, '## Settings').flatMap((r) => r.vars));
  for (const s of SETTINGS) {
    const row = inReadme.get(s.env);
    if (!row) {
      if (!(s.env.startsWith('FEDERATION_') && inReadme.has('FEDERATION') && federation.has(s.env))) problems.push(`${s.env}: no row`);
      continue;
    }
    const wanted = s.defaultText === '(none)' ? 'unset' : s.defaultText;
    if (row.default !== wanted) problems.push(`${s.env}: default ${row.default} in the README, ${wanted} declared`);
    const where = s.scope === 'calendar' ? 'the app, or the environment' : 'the environment';
    if (row.where !== where) problems.push(`${s.env}: changed in "${row.where}" in the README, "${where}" declared`);
  }
  for (const v of inReadme.keys()) if (v !== 'CALENDAR_ADMIN_PASSWORD_FILE' && !SETTINGS.some((s) => s.env === v)) problems.push(`${v}: in the README, not declared`);
  assert.deepEqual(problems, []);
});

it("each declared default is what the loader gives when nothing is set, read through the declaration's type", () => {
  const loaded = loadConfig({}) as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const s of SETTINGS) {
    if (!s.type || s.type === 'string' || s.type === 'url' || s.type === 'list') continue;
    let value = parseSetting(s, s.defaultText);
    if (s.key === 'responseMemoryBytes') value = (value as number) * 1024 * 1024;
    if (JSON.stringify(value) !== JSON.stringify(loaded[s.key])) problems.push(`${s.env}: declared default reads as ${JSON.stringify(value)}, loaded ${JSON.stringify(loaded[s.key])}`);
  }
  assert.deepEqual(problems, []);
});
