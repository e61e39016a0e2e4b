/**
 * Ids wanted by an import (src/store/import-context.ts): taken when free, allocated as usual when
 * taken, and later inserts continue after the largest id (PostgreSQL's sequence is moved past an
 * explicit id); the in-transaction hook commits and rolls back with the write.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createServices } from '../../src/domain/services.js';
import { viewerOf } from '../../src/domain/permissions.js';
import { openStore } from '../../src/store/db.js';
import { withImportContext } from '../../src/store/import-context.js';
import { findMapping, putMapping } from '../../src/store/import-map.js';
import { STORES } from '../support/harness.js';

for (const kind of STORES) {
  describe(`import context [${kind.name}]`, () => {
    it('takes a wanted id when free, maps it when taken, and keeps the sequence ahead', async () => {
      const store = await openStore(kind.url, kind.name === 'postgres' ? { schema: `u_${process.pid}_${randomBytes(3).toString('hex')}`, dropSchemaOnClose: true } : {});
      try {
        const services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
        const user = await services.users.add({ login: 'boss', role: 'administrator', password: 'pw' });
        const admin = viewerOf({ id: Number(user.id), login: 'boss', role: 'administrator' });
        const input = (title: string) => ({ title, start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00', status: 'publish' });

        const kept = await withImportContext({ wanted: { post: 500 } }, () => services.events.create(admin, input('kept')));
        assert.equal(Number(kept.id), 500);
        const taken = await withImportContext({ wanted: { post: 500 } }, () => services.events.create(admin, input('taken')));
        assert.notEqual(Number(taken.id), 500);
        assert.ok(Number(taken.id) > 500, 'the next id allocated comes after the explicit one');
        const plain = await services.events.create(admin, input('plain'));
        assert.equal(Number(plain.id), Number(taken.id) + 1);

        const term = await withImportContext({ wanted: { term: 77 } }, () => services.tags.add({ name: 'kept tag' }));
        assert.equal(Number(term.id), 77);
        const noPassword = await withImportContext({ wanted: { user: 40 } }, () => services.users.add({ login: 'writer', role: 'subscriber', password: '', noPassword: true }));
        assert.equal(Number(noPassword.id), 40);
        assert.equal(noPassword.password_hash, '');

        // The hook writes in the record's transaction: a refused write leaves no mapping behind.
        await withImportContext(
          { wanted: {}, inTransaction: (trx, r) => putMapping(trx, { source: 's', kind: 'event', source_id: 'a', local_id: Number((r as { id: number }).id), fingerprint: 'f' }) },
          () => services.events.create(admin, input('mapped')),
        );
        assert.ok(await findMapping(store.db, 's', 'event', 'a'));
        await assert.rejects(
          withImportContext({ wanted: {}, inTransaction: (trx) => putMapping(trx, { source: 's', kind: 'event', source_id: 'b', local_id: 1, fingerprint: 'f' }) }, () =>
            services.events.create(admin, { ...input('bad'), end_date: '2026-01-01 10:00' }),
          ),
        );
        assert.equal(await findMapping(store.db, 's', 'event', 'b'), undefined);
      } finally {
        await store.close();
      }
    });
  });
}
