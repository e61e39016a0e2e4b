/**
 * Health endpoints outside the REST root: /livez and /healthz (the process serves), /readyz (the
 * database answers and every migration is applied), with GET and HEAD, on both stores.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { forEachStore } from '../support/harness.js';

forEachStore('health endpoints', (t) => {
  for (const path of ['/livez', '/healthz']) {
    it(`GET and HEAD ${path} answer 200 {"status":"ok"}`, async () => {
      const res = await fetch(t.origin + path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.deepEqual(await res.json(), { status: 'ok' });
      const head = await fetch(t.origin + path, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
    });
  }

  it('GET and HEAD /readyz answer 200 with the checks when the database is up and migrated', async () => {
    const res = await fetch(t.origin + '/readyz');
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status, 'ok');
    assert.equal(body.checks.database.status, 'ok');
    assert.equal(typeof body.checks.database.latency_ms, 'number');
    assert.equal(body.checks.migrations.status, 'ok');
    assert.ok(body.checks.migrations.expected >= 4);
    assert.equal(body.checks.migrations.applied, body.checks.migrations.expected);
    const head = await fetch(t.origin + '/readyz', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  it('/readyz answers 503 naming the pending migration when one is not applied', async () => {
    const db = t.built.store.db;
    const last = '004_linked_list_index';
    const row = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration where name = ${last}`.execute(db);
    assert.equal(row.rows.length, 1);
    await sql`delete from kysely_migration where name = ${last}`.execute(db);
    try {
      const res = await fetch(t.origin + '/readyz');
      assert.equal(res.status, 503);
      assert.ok(res.headers.get('retry-after'));
      const body = await res.json();
      assert.equal(body.status, 'unavailable');
      assert.equal(body.checks.database.status, 'ok');
      assert.equal(body.checks.migrations.status, 'pending');
      assert.deepEqual(body.checks.migrations.pending, [last]);
      const head = await fetch(t.origin + '/readyz', { method: 'HEAD' });
      assert.equal(head.status, 503);
      // Liveness does not depend on the database.
      assert.equal((await fetch(t.origin + '/livez')).status, 200);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last}, ${row.rows[0]!.timestamp})`.execute(db);
    }
    assert.equal((await fetch(t.origin + '/readyz')).status, 200);
  });

  it('the health endpoints are not REST routes (the REST root does not list them)', async () => {
    const res = await t.api.get('/api/');
    assert.equal(res.status, 200);
    assert.ok(!Object.keys(res.body.routes).some((r) => /livez|healthz|readyz/.test(r)));
  });
});
