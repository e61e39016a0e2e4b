/**
 * SQLite: a singleton job's lock is a lease in the file (store/job-locks.ts), so that servers on
 * one file in processes of their own run its step one at a time (a lock held in the process
 * excluded only that process' stores: two servers copied a followed calendar's events twice,
 * sent a digest twice). A dead server's lease runs out.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStore } from '../../src/store/db.js';
import { LEASE_MS, tryJobLock } from '../../src/store/job-locks.js';

const root = resolve(import.meta.dirname, '../..');
/** The other processes started, ended by each test whatever its outcome. */
const children = new Set<ReturnType<typeof spawn>>();

/** Another process on `file` that takes the lock `name`, says whether it got it, and holds it until its standard input ends. */
async function otherProcess(file: string, name: string): Promise<{ got: boolean; release(): Promise<void>; kill(): Promise<void> }> {
  const source = `
    import { openStore } from ${JSON.stringify(pathToFileURL(join(root, 'src/store/db.ts')).href)};
    import { tryJobLock } from ${JSON.stringify(pathToFileURL(join(root, 'src/store/job-locks.ts')).href)};
    const store = await openStore(${JSON.stringify(`sqlite:${file}`)}, { skipMigrations: true });
    const lock = await tryJobLock(store, ${JSON.stringify(name)});
    process.stdout.write(lock ? 'got\\n' : 'not\\n');
    process.stdin.resume();
    process.stdin.on('end', async () => { await lock?.release(); await store.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['--import', join(root, 'scripts/typescript.mjs'), '--input-type=module', '-e', source], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  child.stdout.setEncoding('utf8');
  while (!out.includes('\n')) {
    const [chunk] = (await Promise.race([once(child.stdout, 'data'), once(child, 'exit').then(() => [undefined])])) as [string | undefined];
    if (chunk === undefined) throw new Error(`the other process ended: ${out}`);
    out += chunk;
  }
  return {
    got: out.startsWith('got'),
    async release() {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
    async kill() {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    },
  };
}

describe('SQLite: singleton jobs’ locks across processes on one file', () => {
  it('a lock another process holds is not taken here; released there, it is; a dead holder’s runs out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-job-locks-'));
    const file = join(dir, 'calendar.db');
    const store = await openStore(`sqlite:${file}`);
    try {
      const other = await otherProcess(file, 'network-follows');
      assert.equal(other.got, true);
      assert.equal(await tryJobLock(store, 'network-follows'), undefined, 'held by the other process');
      const another = await tryJobLock(store, 'mail-outbox');
      assert.ok(another, 'another name is another lock');
      await other.release();
      const mine = await tryJobLock(store, 'network-follows');
      assert.ok(mine, 'released by the other process');
      // Held here: the other process does not get it.
      const refused = await otherProcess(file, 'network-follows');
      assert.equal(refused.got, false);
      await refused.release();
      await mine.release();
      await another.release();

      // A process that dies holding it: its lease stands until it runs out.
      const dying = await otherProcess(file, 'digest');
      assert.equal(dying.got, true);
      await dying.kill();
      assert.equal(await tryJobLock(store, 'digest'), undefined, 'the lease stands');
      const connection = store.db.parts.connection!;
      const expires = Number(connection.prepare(`select "expires_ms" from "job_locks" where "name" = 'digest'`).pluck().get());
      assert.ok(expires > Date.now() && expires <= Date.now() + LEASE_MS);
      connection.prepare(`update "job_locks" set "expires_ms" = ? where "name" = 'digest'`).run(Date.now() - 1);
      const after = await tryJobLock(store, 'digest');
      assert.ok(after, 'the lease ran out');
      await after.release();
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
