/**
 * Issue 44, item 6 (part): the last administrator stays one under concurrency. The check ("is
 * this the only administrator?") and the role write (or the removal) are one locked step, so two
 * administrators demoting or removing each other at the same moment, on one instance or on two
 * sharing the database, always leave one; the loser gets the existing 400
 * `rest_user_last_administrator` (or, when the winner's write came before its permission check, is
 * no administrator any more: 403, or gone: 401).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/domain/users.js';
import { writeTransaction } from '../../src/store/changes.js';
import { insertUser } from '../../src/store/users.js';
import { STORES, startServer, startTwoInstances, type TestServer } from '../support/harness.js';

const TRIES = 20;
const PASSWORD = 'shared-pw';
const users = (id: number) => `/api/calendar/admin/v1/users/${id}`;

/**
 * One scrypt hash of PASSWORD for every user made here: a server remembers a verified (hash,
 * password) pair, so the tries cost no password work (a second of scrypt each on a busy host).
 */
let sharedHash: Promise<string> | undefined;

/** Two new administrators, and nobody else one. */
async function onlyTwoAdministrators(t: TestServer, prefix: string): Promise<Array<{ id: number; login: string }>> {
  const hash = await (sharedHash ??= hashPassword(PASSWORD));
  const pair = [];
  for (const side of ['x', 'y']) {
    const login = `${prefix}${side}`;
    const id = await writeTransaction(t.built.store.db, (trx) =>
      insertUser(trx, { login, role: 'administrator', email: '', display_name: login, password_hash: hash, registered_gmt: '2030-01-01 00:00:00' }),
    );
    pair.push({ id, login });
  }
  for (const u of await t.built.services.users.list()) if (u.role === 'administrator' && !pair.some((p) => p.login === u.login)) await t.built.services.users.setRole(u.login, 'editor');
  return pair;
}

async function administrators(t: TestServer): Promise<number> {
  return (await t.built.services.users.list()).filter((u) => u.role === 'administrator').length;
}

/** One side's answer: won (200), or lost with the clear error (or after the winner took its role or account). */
function assertOutcome(answers: Array<{ status: number; body: any }>, what: string): void {
  const won = answers.filter((r) => r.status === 200);
  assert.equal(won.length, 1, `${what}: one wins (${answers.map((r) => `${r.status} ${r.body?.code ?? ''}`).join(', ')})`);
  const lost = answers.find((r) => r.status !== 200)!;
  if (lost.status === 400) assert.equal(lost.body.code, 'rest_user_last_administrator', what);
  else assert.ok([401, 403].includes(lost.status), `${what}: ${lost.status} ${JSON.stringify(lost.body)}`);
}

async function demoteEachOther(front: [TestServer, TestServer], t: TestServer, prefix: string): Promise<Array<{ status: number; body: any }>> {
  const [x, y] = await onlyTwoAdministrators(t, prefix);
  return Promise.all([
    front[0].api.patch(users(y!.id), { as: `${x!.login}:${PASSWORD}`, json: { roles: ['editor'] } }),
    front[1].api.patch(users(x!.id), { as: `${y!.login}:${PASSWORD}`, json: { roles: ['editor'] } }),
  ]);
}

async function removeEachOther(front: [TestServer, TestServer], t: TestServer, prefix: string): Promise<Array<{ status: number; body: any }>> {
  const [x, y] = await onlyTwoAdministrators(t, prefix);
  return Promise.all([front[0].api.delete(users(y!.id), { as: `${x!.login}:${PASSWORD}` }), front[1].api.delete(users(x!.id), { as: `${y!.login}:${PASSWORD}` })]);
}

for (const kind of STORES) {
  describe(`the last administrator under concurrency [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { RATE_LIMIT_MAX: '0' });
    });
    after(async () => {
      await t.close();
    });

    it(`two administrators demoting each other at once leave one (${TRIES} tries)`, async () => {
      let clear = 0;
      for (let i = 0; i < TRIES; i++) {
        const answers = await demoteEachOther([t, t], t, `d${i}`);
        assert.equal(await administrators(t), 1, `try ${i}: one administrator left`);
        assertOutcome(answers, `try ${i}`);
        if (answers.some((r) => r.status === 400)) clear++;
      }
      assert.ok(clear > 0, 'the loser got rest_user_last_administrator at least once');
    });

    it(`two administrators removing each other at once leave one (${TRIES} tries)`, async () => {
      for (let i = 0; i < TRIES; i++) {
        const answers = await removeEachOther([t, t], t, `r${i}`);
        assert.equal(await administrators(t), 1, `try ${i}: one administrator left`);
        assertOutcome(answers, `try ${i}`);
      }
    });
  });

  describe(`the last administrator across two instances [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'last-admin', { RATE_LIMIT_MAX: '0' }));
    });
    after(async () => {
      await closeBoth?.();
    });

    it(`administrators on two instances demoting each other at once leave one (${TRIES} tries)`, async () => {
      for (let i = 0; i < TRIES; i++) {
        const answers = await demoteEachOther([a, b], a, `m${i}`);
        assert.equal(await administrators(a), 1, `try ${i}: one administrator left`);
        assertOutcome(answers, `try ${i}`);
      }
    });
  });
}
