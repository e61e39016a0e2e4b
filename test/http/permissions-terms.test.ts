/**
 * Permission matrix of the category and tag routes: every caller (five roles and anonymous) ×
 * create, read (single, list), update (POST/PUT/PATCH) and delete. Expected answers come from
 * `permissions-table.ts` (behavior.md §3.3: categories are managed by authors and up, tags by
 * editors and up; contributors and subscribers 403, anonymous 401), never from the production code.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { CALLERS, ROLE_NAMES, expectTermWrite, type Expected } from './permissions-table.js';
import { as, check, describeExpected } from './permissions-posts.js';

const PARALLEL = { concurrency: 4 };
const UPDATE_METHODS = ['POST', 'PUT', 'PATCH'] as const;

for (const base of ['categories', 'tags'] as const) {
  forEachStore(`permission matrix: ${base}`, (t) => {
    let shared = 0;
    let counter = 0;

    /** A term created by the administrator. */
    async function make(): Promise<number> {
      const res = await t.api.post(`/${base}`, { as: 'admin', json: { name: `Matrix ${base} ${++counter}` } });
      assert.equal(res.status, 201, res.text);
      return Number(res.body.id);
    }

    before(async () => {
      for (const role of ROLE_NAMES) await t.user(role);
      shared = await make();
    });

    describe('reads are public', PARALLEL, () => {
      for (const caller of CALLERS) {
        it(`${caller} GET /${base}/{id} → 200`, async () => {
          const res = await t.api.get(`/${base}/${shared}`, { as: as(caller) });
          check(res, { status: 200 });
          assert.equal(res.body.id, shared);
        });
        it(`${caller} GET /${base}?hide_empty=0 → 200, lists the term`, async () => {
          const res = await t.api.get(`/${base}`, { as: as(caller), query: { hide_empty: 0, per_page: 50 } });
          check(res, { status: 200 });
          assert.ok((res.body[base] as Array<{ id: number }>).some((x) => x.id === shared));
        });
      }
    });

    describe('writes', PARALLEL, () => {
      let i = 0;
      for (const caller of CALLERS) {
        const created = expectTermWrite(caller, base, 201);
        it(`${caller} POST /${base} → ${describeExpected(created)}`, async () => {
          const res = await t.api.post(`/${base}`, { as: as(caller), json: { name: `Created ${base} ${++counter}` } });
          check(res, created);
        });

        const updated = expectTermWrite(caller, base, 200);
        const method = UPDATE_METHODS[i++ % UPDATE_METHODS.length];
        it(`${caller} ${method} /${base}/{id} → ${describeExpected(updated)}`, async () => {
          const res = await t.api.request(method, `/${base}/${shared}`, { as: as(caller), json: { description: `changed by ${caller}` } });
          check(res, updated);
          if (res.status === 200) assert.equal(res.body.description, `changed by ${caller}`);
        });

        const deleted = expectTermWrite(caller, base, 200);
        it(`${caller} DELETE /${base}/{id} → ${describeExpected(deleted)}`, async () => {
          // A delete that succeeds removes the term: use a fresh one then.
          const id = deleted.status === 200 ? await make() : shared;
          const res = await t.api.delete(`/${base}/${id}`, { as: as(caller) });
          check(res, deleted);
          if (res.status === 200) {
            assert.equal(res.body.id, id);
            assert.equal((await t.api.get(`/${base}/${id}`)).status, 400, 'the term is gone');
          }
        });
      }
    });

    describe('validation errors win over permission errors', PARALLEL, () => {
      const invalid: Expected = { status: 400, code: 'rest_invalid_param' };
      for (const caller of ['subscriber', 'contributor', 'anonymous'] as const) {
        it(`${caller} DELETE /${base}/{unknown id} → 400 rest_invalid_param`, async () => {
          check(await t.api.delete(`/${base}/999999`, { as: as(caller) }), invalid);
        });
        it(`${caller} PATCH /${base}/{unknown id} → 400 rest_invalid_param`, async () => {
          check(await t.api.patch(`/${base}/999999`, { as: as(caller), json: { name: 'x' } }), invalid);
        });
        it(`${caller} POST /${base} without a name → 400 rest_missing_callback_param`, async () => {
          check(await t.api.post(`/${base}`, { as: as(caller), json: { description: 'x' } }), { status: 400, code: 'rest_missing_callback_param' });
        });
      }
    });
  });
}
