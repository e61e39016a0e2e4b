/**
 * Failed logins cost the same whether the login exists or not (issue 13): timing must not tell
 * which logins exist. Measured on the domain function (no HTTP, less noise) as the process's CPU
 * time per attempt (scrypt runs on libuv's pool, whose threads the process's CPU time includes), so
 * a loaded machine does not blur it as it blurs wall time: the median CPU time of failing
 * attempts for an unknown login is at least half that of an existing one, for passwords
 * and for application-password-shaped ones. Before the fix an unknown login answered in ~2 ms
 * against ~85 ms. Repeating the same failure stays as expensive (only successes are remembered).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createUserService, type UserService } from '../../src/domain/users.js';
import { openStore, type Store } from '../../src/store/db.js';
import { STORES } from '../support/harness.js';

const basic = (login: string, password: string) => 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** CPU milliseconds the process spent since `from` (all threads: the main one and libuv's pool). */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** Median CPU cost of each attempt, measured interleaved. */
async function medians(users: UserService, headers: string[], rounds = 5): Promise<number[]> {
  const times: number[][] = headers.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [j, header] of headers.entries()) {
      const t0 = process.cpuUsage();
      const viewer = await users.authenticate(header);
      times[j].push(cpuMsSince(t0));
      assert.equal(viewer.id, 0, 'the attempt fails');
    }
  }
  return times.map(median);
}

for (const kind of STORES) {
  describe(`failed logins cost the same for unknown logins [${kind.name}]`, () => {
    let store: Store;
    let users: UserService;
    let appPassword: string;

    before(async () => {
      const schema = kind.name === 'postgres' ? `t_timing_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      users = createUserService(store);
      await users.add({ login: 'ann', role: 'editor', password: 'ann-password', email: 'ann@example.com' });
      appPassword = (await users.addAppPassword('ann', 'mobile')).password;
    });
    after(async () => {
      await store.close();
    });

    it('still lets the right password and application password in', async () => {
      assert.notEqual((await users.authenticate(basic('ann', 'ann-password'))).id, 0);
      assert.notEqual((await users.authenticate(basic('ann', appPassword))).id, 0);
    });

    it('a wrong password for an unknown login costs what it costs for an existing one', async (t) => {
      const [existing, unknown, unknownEmail] = await medians(users, [basic('ann', 'wrong'), basic('nobody', 'wrong'), basic('nobody@example.com', 'wrong')]);
      t.diagnostic(`median CPU per failed check: existing ${existing.toFixed(1)} ms, unknown ${unknown.toFixed(1)} ms, unknown e-mail ${unknownEmail.toFixed(1)} ms`);
      assert.ok(existing > 10, `a failed check runs scrypt (${existing.toFixed(1)} ms)`);
      assert.ok(unknown >= 0.5 * existing, `unknown login ${unknown.toFixed(1)} ms vs existing ${existing.toFixed(1)} ms`);
      assert.ok(unknownEmail >= 0.5 * existing, `unknown e-mail ${unknownEmail.toFixed(1)} ms vs existing ${existing.toFixed(1)} ms`);
    });

    it('so does a wrong application password', async (t) => {
      const wrongApp = 'abcd efgh ijkl mnop qrst uvwx';
      const [existing, unknown] = await medians(users, [basic('ann', wrongApp), basic('nobody', wrongApp)], 3);
      t.diagnostic(`median CPU per failed check: existing ${existing.toFixed(1)} ms, unknown ${unknown.toFixed(1)} ms`);
      assert.ok(unknown >= 0.5 * existing, `unknown login ${unknown.toFixed(1)} ms vs existing ${existing.toFixed(1)} ms`);
    });
  });
}
