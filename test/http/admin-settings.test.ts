/**
 * Issue 28, the admin API's settings: every setting of the table with its value in force and
 * source, secrets masked; administrators only. Issue 44: URL settings (DATABASE_URL, SMTP_URL) in
 * every shape that hides a secret (a password with a raw `@`, `/` or `?`; `?password=`, `?token=`,
 * `?api_key=`, `#access_token=`) answer it masked, never the secret.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { SETTINGS, maskUrl } from '../../src/config.js';

const A = '/api/calendar/admin/v1';

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
        scope: 'calendar',
        editable: false,
        type: 'string',
        unit: null,
        choices: null,
        min: null,
        max: 200,
        group: 'site',
      });
      assert.equal(by.MAX_PER_PAGE.source, 'default');
      assert.equal(by.MAX_PER_PAGE.value, 50);
      assert.equal(by.CALENDAR_ADMIN_PASSWORD.value, '********');
      assert.equal(by.CALENDAR_ADMIN_PASSWORD.source, 'environment');
      assert.equal(by.METRICS_TOKEN.value, '********');
      assert.ok(!res.text.includes('"admin-password"'));
      assert.ok(!res.text.includes('metrics-secret-token'));
      if (t.config.databaseUrl.includes('@')) assert.ok(!res.text.includes(new URL(t.config.databaseUrl).password || '\u0000'));
      assert.equal(by.DATABASE_URL.value, maskUrl(t.config.databaseUrl));
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

/** URL settings hiding secrets in each shape; every string here that names a secret must never be answered. */
const SHAPES: Array<{ env: Record<string, string>; secrets: string[]; shown: Record<string, string> }> = [
  {
    env: { DATABASE_URL: 'postgres://app:db-p@ss-w0rd@db.internal:5432/calendar?sslmode=require&password=db-query-secret', SMTP_URL: 'smtp://mailer:smtp-s3cret@smtp.example.org:587' },
    secrets: ['db-p@ss-w0rd', 'p@ss', 'ss-w0rd', 'db-query-secret', 'smtp-s3cret'],
    shown: {
      DATABASE_URL: 'postgres://app:********@db.internal:5432/calendar?sslmode=require&password=********',
      SMTP_URL: 'smtp://mailer:********@smtp.example.org:587',
    },
  },
  {
    env: {
      DATABASE_URL: 'postgres://app:slash/and?query@db.internal/calendar?token=db-token-secret',
      SMTP_URL: 'smtps://:smtp@at@secret@smtp.example.org:465/?api_key=smtp-key-secret#access_token=smtp-fragment-secret',
    },
    secrets: ['slash/and?query', 'and?query', 'db-token-secret', 'smtp@at@secret', 'at@secret', 'smtp-key-secret', 'smtp-fragment-secret'],
    shown: {
      DATABASE_URL: 'postgres://app:********@db.internal/calendar?token=********',
      SMTP_URL: 'smtps://:********@smtp.example.org:465/?api_key=********#access_token=********',
    },
  },
];

for (const [i, shape] of SHAPES.entries()) {
  forEachStore(
    `admin settings: URL settings masked, shape ${i + 1}`,
    (t) => {
      it('never answers the secrets of DATABASE_URL and SMTP_URL', async () => {
        const res = await t.api.get(`${A}/settings`, { as: 'admin' });
        assert.equal(res.status, 200);
        for (const secret of shape.secrets) assert.ok(!res.text.includes(secret) && !res.text.includes(encodeURIComponent(secret)), `the answer holds ${secret}`);
        const by = Object.fromEntries(res.body.map((r: { name: string }) => [r.name, r]));
        for (const [name, value] of Object.entries(shape.shown)) {
          assert.equal(by[name].value, value, name);
          assert.equal(by[name].secret, true, `${name} is marked secret`);
        }
      });
    },
    shape.env,
  );
}
