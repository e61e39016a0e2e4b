/**
 * Issue 28, the admin API's imports and exports: an `.ics` upload (raw text/calendar, multipart,
 * JSON) or URL, or a The Events Calendar site, queued (202) and run in the background with its
 * progress, counts and messages; private targets refused unless WEBHOOKS_ALLOW_PRIVATE; an import
 * whose server died is resumed; the JSON and iCalendar exports as downloads; administrators only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachStore, startServer, STORES, ADMIN, type TestServer } from '../support/harness.js';
import { claimNextImport, findImport, insertImport } from '../../src/store/imports.js';

const A = '/api/calendar/admin/v1';
const auth = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');

const ics = (uid: string, summary: string, extra = '') =>
  ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${summary}`, 'DTSTART:20310101T100000Z', 'DTEND:20310101T110000Z', extra, 'END:VEVENT'].filter((l) => l !== '').join('\r\n');
const calendar = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');

/** Poll an import until it ends; every state seen along the way. */
async function until(t: TestServer, id: number): Promise<{ final: any; seen: string[] }> {
  const seen: string[] = [];
  for (let i = 0; i < 600; i++) {
    const res = await t.api.get(`${A}/imports/${id}`, { as: 'admin' });
    assert.equal(res.status, 200, res.text);
    if (seen.at(-1) !== res.body.status) seen.push(res.body.status);
    if (res.body.status === 'done' || res.body.status === 'failed') return { final: res.body, seen };
    await sleep(50);
  }
  throw new Error(`import ${id} did not end`);
}

forEachStore('admin imports and exports', (t) => {
  it('administrators only', async () => {
    assert.equal((await t.api.get(`${A}/imports`)).status, 401);
    await t.user('editor', 'ed');
    assert.equal((await t.api.get(`${A}/imports`, { as: 'ed' })).status, 403);
    assert.equal((await t.api.post(`${A}/imports`, { as: 'ed', json: { file: calendar() } })).status, 403);
    assert.equal((await t.api.get(`${A}/export`, { as: 'ed' })).status, 403);
  });

  it('imports a raw text/calendar upload in the background: 202, progress, counts, the events there', async () => {
    const res = await fetch(`${t.origin}${A}/imports`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'text/calendar' },
      body: calendar(ics('u1@test', 'One'), ics('u2@test', 'Two')),
    });
    assert.equal(res.status, 202);
    const queued = (await res.json()) as { id: number; status: string; kind: string };
    assert.equal(queued.status, 'queued');
    assert.equal(queued.kind, 'ics');
    assert.match(res.headers.get('location') ?? '', new RegExp(`/imports/${queued.id}$`));
    const { final } = await until(t, queued.id);
    assert.equal(final.status, 'done', JSON.stringify(final));
    assert.equal(final.counts.created, 2);
    assert.deepEqual(final.progress, { phase: 'events', done: 2, total: 2 });
    assert.ok(final.started_gmt && final.finished_gmt);
    const events = await t.api.get('/events', { query: { start_date: '2031-01-01', end_date: '2031-12-31', search: 'One' } });
    assert.equal(events.body.events.length, 1);
  });

  it('a multipart upload: skipped events named with the file’s name and the reason; again: unchanged', async () => {
    const form = new FormData();
    const text = calendar(ics('u1@test', 'One'), ['BEGIN:VEVENT', 'UID:nodate@test', 'SUMMARY:No date', 'END:VEVENT'].join('\r\n'), ics('u3@test', 'Three'));
    form.set('file', new Blob([text], { type: 'text/calendar' }), 'club.ics');
    const res = await fetch(`${t.origin}${A}/imports`, { method: 'POST', headers: { authorization: auth }, body: form });
    assert.equal(res.status, 202, await res.clone().text());
    const queued = (await res.json()) as { id: number; source: string };
    assert.equal(queued.source, 'club.ics');
    const { final } = await until(t, queued.id);
    assert.equal(final.status, 'done');
    assert.equal(final.counts.created, 1);
    assert.equal(final.counts.unchanged, 1);
    assert.equal(final.counts.skipped, 1);
    const skipped = final.messages.find((m: { type: string }) => m.type === 'skipped');
    assert.match(skipped.message, /No date/);
    assert.ok(!JSON.stringify(final).includes('calendar-import-'), 'no temporary path in the messages');
  });

  it('refuses bad input: no source, two, not iCalendar, a private URL without WEBHOOKS_ALLOW_PRIVATE, a tec import without from', async () => {
    const none = await t.api.post(`${A}/imports`, { as: 'admin', json: {} });
    assert.equal(none.status, 400);
    assert.equal(none.body.code, 'rest_invalid_param');
    const both = await t.api.post(`${A}/imports`, { as: 'admin', json: { file: calendar(), url: 'https://example.org/x.ics' } });
    assert.equal(both.status, 400);
    const notIcs = await t.api.post(`${A}/imports`, { as: 'admin', json: { file: 'hello' } });
    assert.equal(notIcs.status, 400);
    assert.ok(notIcs.body.data.params.file);
    const local = await t.api.post(`${A}/imports`, { as: 'admin', json: { url: `${t.origin}/x.ics` } });
    assert.equal(local.status, 400);
    assert.match(local.body.data.params.url, /loopback|private|reserved/);
    const tec = await t.api.post(`${A}/imports`, { as: 'admin', json: { type: 'tec' } });
    assert.equal(tec.status, 400);
    const half = await t.api.post(`${A}/imports`, { as: 'admin', json: { from: 'https://example.org/wp-json', user: 'x' } });
    assert.equal(half.status, 400);
    assert.equal((await t.api.get(`${A}/imports/999999`, { as: 'admin' })).status, 404);
  });

  it('lists imports newest first, paged', async () => {
    const res = await t.api.get(`${A}/imports`, { as: 'admin', query: { per_page: 1 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 1);
    assert.equal(res.body[0].source, 'club.ics');
    assert.equal(res.headers.get('x-wp-total'), '2');
  });

  it('resumes an import whose server died (a running row whose heartbeat stopped)', async () => {
    const db = t.built.store.db;
    const id = await insertImport(db, {
      kind: 'ics',
      source: 'old.ics',
      options: JSON.stringify({ status: 'publish', strict: false, dry_run: false }),
      upload: calendar(ics('u9@test', 'Nine')),
      user_id: 1,
      created_gmt: '2026-01-01 00:00:00',
    });
    const claimed = await claimNextImport(db, '2026-01-01 00:00:00');
    assert.equal(Number(claimed?.id), id);
    assert.equal((await findImport(db, id))?.status, 'running');
    // Any enqueue wakes the job, which queues the stale one again and runs it first.
    const next = await t.api.post(`${A}/imports`, { as: 'admin', json: { file: calendar(ics('u10@test', 'Ten')) } });
    const { final } = await until(t, id);
    assert.equal(final.status, 'done');
    assert.equal(final.attempts, 2);
    assert.equal(final.counts.created, 1);
    assert.equal((await until(t, next.body.id)).final.status, 'done');
  });

  it('takes uploads up to 10 MiB (more than other bodies), refuses larger ones with 413', async () => {
    const pad = Array.from({ length: 2600 }, (_, i) => `X-PAD-${i}:${'x'.repeat(1000)}`).join('\r\n');
    const big = calendar(ics('big@test', 'Big'), pad);
    assert.ok(big.length > 2.5 * 1024 * 1024);
    const ok = await fetch(`${t.origin}${A}/imports`, { method: 'POST', headers: { authorization: auth, 'content-type': 'text/calendar' }, body: big });
    assert.equal(ok.status, 202);
    const tooBig = await fetch(`${t.origin}${A}/imports`, { method: 'POST', headers: { authorization: auth, 'content-type': 'text/calendar' }, body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    assert.equal(tooBig.status, 413);
    const refusal = (await tooBig.json()) as { code: string; message: string };
    assert.equal(refusal.code, 'rest_payload_too_large');
    assert.match(refusal.message, /10485760 for a text\/calendar or multipart\/form-data upload/);
    assert.equal((await until(t, ((await ok.json()) as { id: number }).id)).final.status, 'done');
  });

  it('downloads the JSON export and the iCalendar export', async () => {
    const json = await fetch(`${t.origin}${A}/export`, { headers: { authorization: auth } });
    assert.equal(json.status, 200);
    assert.match(json.headers.get('content-disposition') ?? '', /^attachment; filename="calendar-\d{4}-\d\d-\d\d\.json"$/);
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await json.json()) as { format: string; tables: Record<string, Array<Record<string, unknown>>> };
    assert.ok(doc.tables.posts!.length >= 4);
    assert.ok(doc.tables.users!.length >= 1);
    assert.ok(!JSON.stringify(doc).includes('scrypt'), 'no password hash');
    const cal = await fetch(`${t.origin}${A}/export?format=ics`, { headers: { authorization: auth } });
    assert.equal(cal.status, 200);
    assert.match(cal.headers.get('content-disposition') ?? '', /filename="calendar-.*\.ics"/);
    const text = await cal.text();
    assert.match(text, /^BEGIN:VCALENDAR/);
    assert.match(text, /SUMMARY:Three/);
  });
});

for (const kind of STORES) {
  describe(`admin imports from a TEC site, private targets allowed [${kind.name}]`, () => {
    let source: TestServer;
    let t: TestServer;
    before(async () => {
      source = await startServer(kind);
      t = await startServer(kind, { WEBHOOKS_ALLOW_PRIVATE: 'true' });
    });
    after(async () => {
      await t?.close();
      await source?.close();
    });

    it('imports a whole calendar with credentials (kept encrypted, never answered), with progress per phase', async () => {
      for (const title of ['Alpha', 'Beta']) {
        const made = await source.api.post('/events', { as: 'admin', json: { title, start_date: '2031-02-01 10:00', end_date: '2031-02-01 11:00', status: 'draft', venue: { venue: 'Hall' } } });
        assert.equal(made.status, 201, made.text);
      }
      const app = await source.api.post(`${A}/users/1/application-passwords`, { as: 'admin', json: { name: 'importer' } });
      assert.equal(app.status, 201, app.text);
      const res = await t.api.post(`${A}/imports`, { as: 'admin', json: { type: 'tec', from: `${source.origin}/api`, user: 'admin', app_password: app.body.password } });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.options.app_password, '********');
      assert.ok(!res.text.includes(app.body.password));
      const { final } = await until(t, res.body.id);
      assert.equal(final.status, 'done', JSON.stringify(final));
      assert.equal(final.counts.by_kind.event.created, 2, JSON.stringify(final.counts));
      assert.equal(final.counts.by_kind.venue.created, 1);
      assert.equal(final.options.app_password, undefined, 'the credentials are gone once it ended');
      const drafts = await t.api.get('/events', { as: 'admin', query: { status: 'draft', start_date: '2031-01-01', end_date: '2031-12-31' } });
      assert.equal(drafts.body.events.length, 2);
    });

    it('a failure is the import’s outcome: failed, with the error', async () => {
      const res = await t.api.post(`${A}/imports`, { as: 'admin', json: { url: `${source.origin}/no-such-feed.ics` } });
      assert.equal(res.status, 202, res.text);
      const { final } = await until(t, res.body.id);
      assert.equal(final.status, 'failed');
      assert.match(final.error, /404/);
    });
  });
}

for (const kind of STORES) {
  it(`a server that stops ends its import between two records and queues it again [${kind.name}]`, async () => {
    const t = await startServer(kind);
    try {
      const many = calendar(...Array.from({ length: 400 }, (_, i) => ics(`stop-${i}@test`, `Stop ${i}`)));
      const res = await fetch(`${t.origin}${A}/imports`, { method: 'POST', headers: { authorization: auth, 'content-type': 'text/calendar' }, body: many });
      const { id } = (await res.json()) as { id: number };
      for (let i = 0; i < 400; i++) {
        const row = await findImport(t.built.store.db, id);
        if (row?.status === 'running' && Number(row.done) > 0) break;
        await sleep(25);
      }
      await t.built.app.close();
      const row = await findImport(t.built.store.db, id);
      assert.equal(row?.status, 'queued', 'queued again, to be resumed');
      assert.ok(Number(row?.attempts) >= 1);
    } finally {
      await t.built.app.close();
      await t.built.store.close();
    }
  });
}
