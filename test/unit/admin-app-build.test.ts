/**
 * The admin app's JavaScript budget (scripts/build-admin-app.mjs): the initial screen is the entry
 * chunk and what it imports statically, not what it loads on demand; the built app is within budget.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
// @ts-expect-error a plain .mjs script, no types
import { BUDGET_INITIAL, BUDGET_TOTAL, measure } from '../../scripts/build-admin-app.mjs';

const chunk = (fileName: string, code: string, imports: string[] = [], isEntry = false) => ({ type: 'chunk', fileName, code, imports, isEntry });
const gz = (s: string) => gzipSync(Buffer.from(s), { level: 9 }).length;

describe('admin app build budget', () => {
  it('counts the entry and its static imports as the initial screen, everything as the whole app', () => {
    const entry = 'import "./shared.js"; import("./lazy.js");'.repeat(20);
    const shared = 'export const a = 1;'.repeat(50);
    const lazy = 'export const quill = "big";'.repeat(400);
    const sizes = measure([chunk('entry.js', entry, ['shared.js'], true), chunk('shared.js', shared), chunk('lazy.js', lazy), { type: 'asset', fileName: 'x.css', source: 'a{}' }]);
    assert.equal(sizes.initial, gz(entry) + gz(shared));
    assert.equal(sizes.total, gz(entry) + gz(shared) + gz(lazy));
    assert.deepEqual(Object.keys(sizes.chunks).sort(), ['entry.js', 'lazy.js', 'shared.js']);
  });

  it('the built app is within its budget (dist/admin-app/sizes.json, written by the build)', () => {
    const sizes = JSON.parse(readFileSync(new URL('../../dist/admin-app/sizes.json', import.meta.url), 'utf8'));
    assert.deepEqual(sizes.budget, { total: BUDGET_TOTAL, initial: BUDGET_INITIAL });
    assert.ok(sizes.total <= BUDGET_TOTAL, `${sizes.total}`);
    assert.ok(sizes.initial <= BUDGET_INITIAL, `${sizes.initial}`);
  });
});
