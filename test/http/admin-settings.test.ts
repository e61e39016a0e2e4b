/**
 * Issue 28, the admin API's settings: every setting of the table with its value in force and
 * source, secrets masked; administrators only.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { SETTINGS } from '../../src/config.js';
import { maskDatabaseUrl } from '../../src/domain/settings-view.js';

const A = '/api/calendar/admin/v1';

it('masks the password of a database URL', () => {
  assert.equal(maskDatabaseUrl('postgres://app:s3cret@db:5432/calendar'), 'postgres://app:********@db:5432/calendar');
  assert.equal(maskDatabaseUrl('postgres://app@db/calendar'), 'postgres://app@db/calendar');
  assert.equal(maskDatabaseUrl('sqlite:./data/calendar.db'), 'sqlite:./data/calendar.db');
});

forEachStore(
  'admin settings',
  (t) => {
    it('administrators only', async () => {
      assert.equal((await t.api.get(`${A}/settings`)).status, 401);
      await t.user('editor', 'ed');
      assert.equal((await t.api.get(`${A}/settings`, { as: 'ed' })).status, 403);
    });

    it('answers every setting with its value in force and source; secrets masked', async () => {
      const res = await t.api.get(`${A}/settings`, { as: 'admin' });
      assert.equal(res.status, 200);
      const by = Object.fromEntries(res.body.map((r: { name: string }) => [r.name, r]));
      assert.deepEqual(
        res.body.map((r: { name: string }) => r.name),
        SETTINGS.map((s) => s.env),
      );
      assert.deepEqual(by.SITE_NAME, {
        name: 'SITE_NAME',
        flag: '--site-name',
        value: 'Test Calendar',
        source: 'environment',
        default: 'Events Calendar',
        description: SETTINGS.find((s) => s.env === 'SITE_NAME')!.description,
        secret: false,
      });
      assert.equal(by.MAX_PER_PAGE.source, 'default');
      assert.equal(by.MAX_PER_PAGE.value, 50);
      assert.equal(by.CALENDAR_ADMIN_PASSWORD.value, '********');
      assert.equal(by.CALENDAR_ADMIN_PASSWORD.source, 'environment');
      assert.equal(by.METRICS_TOKEN.value, '********');
      assert.ok(!res.text.includes('"admin-password"'));
      assert.ok(!res.text.includes('metrics-secret-token'));
      if (t.config.databaseUrl.includes('@')) assert.ok(!res.text.includes(new URL(t.config.databaseUrl).password || '\u0000'));
      assert.equal(by.DATABASE_URL.value, maskDatabaseUrl(t.config.databaseUrl));
    });

    it('names the generated SECRET_KEY as kept in the database, masked', async () => {
      // A TOTP enrolment makes the key.
      const { sessionServiceOf } = await import('../../src/domain/sessions.js');
      const { id } = await t.user('author', 'au');
      await sessionServiceOf(t.built.services).startTotp(id, 'au');
      const by = Object.fromEntries((await t.api.get(`${A}/settings`, { as: 'admin' })).body.map((r: { name: string }) => [r.name, r]));
      assert.equal(by.SECRET_KEY.source, 'database');
      assert.equal(by.SECRET_KEY.value, '********');
    });
  },
  { SITE_NAME: 'Test Calendar', METRICS_TOKEN: 'metrics-secret-token' },
);
