/**
 * Signed preview links of events not published yet: the admin route gives a link to the public
 * page; an anonymous visitor with it sees the page with a "Preview" banner and noindex; without a
 * token, or with a tampered, forged, expired or void one (the event trashed, even once restored)
 * the page is the plain 404. Links of published events change nothing.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { forEachStore, type TestServer } from '../support/harness.js';

const A = '/api/calendar/admin/v1';
const SECRET = 'preview-links-test-secret-key-0123456789abcdef';

/** A token as the server signs it (domain/previews.ts), for expiries a test cannot wait for. */
function forge(id: number, expires: number, issued: number, secret = SECRET): string {
  const key = createHash('sha256').update(`event-preview-links:${secret}`).digest();
  return `${id}.${expires}.${issued}.${createHmac('sha256', key).update(`${id}.${expires}.${issued}`).digest('base64url')}`;
}

forEachStore(
  'signed preview links of drafts',
  (t: TestServer) => {
    const anonymous = (url: string) => t.api.get(url, { as: null });

    async function draft(title: string, status = 'draft') {
      const res = await t.api.post('/events', { as: 'admin', json: { title, status, start_date: '2031-06-01 18:00', end_date: '2031-06-01 20:00' } });
      assert.equal(res.status, 201, res.text);
      return res.body as Record<string, any>;
    }

    it('a valid link shows the draft to anyone, with the banner and noindex; without it 404', async () => {
      const e = await draft('Secret Gala');
      const plain = await anonymous(`${t.origin}/event/secret-gala/`);
      assert.equal(plain.status, 404);
      const link = await t.api.post(`${A}/events/${e.id}/preview`, { as: 'admin' });
      assert.equal(link.status, 200, link.text);
      assert.match(link.body.url, new RegExp(`^${t.origin}/event/secret-gala/\\?preview=${e.id}\\.`));
      const expires = Date.parse(link.body.expires);
      assert.ok(Math.abs(expires - (Date.now() + 7 * 24 * 3600 * 1000)) < 60_000, 'about seven days');
      const page = await anonymous(link.body.url);
      assert.equal(page.status, 200);
      assert.match(page.text, /Secret Gala/);
      assert.match(page.text, /class="preview-banner"/);
      assert.match(page.text, /<meta name="robots" content="noindex">/);
      // For the link's holder only: no shared cache keeps it past the link's trash.
      assert.equal(page.headers.get('cache-control'), 'private, no-store');
      assert.equal(page.headers.get('etag'), null);
      // Pending review too.
      const pending = await draft('Pending Picnic', 'pending');
      const pl = await t.api.post(`${A}/events/${pending.id}/preview`, { as: 'admin' });
      assert.equal((await anonymous(pl.body.url)).status, 200);
    });

    it('tampered, forged, expired, for another slug or malformed: the same 404 as an unknown address', async () => {
      const e = await draft('Hidden Launch');
      const other = await draft('Other Draft');
      const { url } = (await t.api.post(`${A}/events/${e.id}/preview`, { as: 'admin' })).body;
      const token = new URL(url).searchParams.get('preview')!;
      const unknown = await anonymous(`${t.origin}/event/no-such-event/`);
      const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
      const otherId = token.replace(/^\d+/, String(other.id));
      const cases = [
        `${t.origin}/event/hidden-launch/?preview=${tampered}`,
        `${t.origin}/event/hidden-launch/?preview=${otherId}`,
        `${t.origin}/event/hidden-launch/?preview=${forge(e.id, Math.floor(Date.now() / 1000) + 3600, Date.now(), 'another-secret-key-of-another-server-0000')}`,
        `${t.origin}/event/hidden-launch/?preview=${forge(e.id, Math.floor(Date.now() / 1000) - 1, Date.now() - 8 * 24 * 3600 * 1000)}`,
        `${t.origin}/event/other-draft/?preview=${token}`,
        `${t.origin}/event/hidden-launch/?preview=garbage`,
        `${t.origin}/event/hidden-launch/?preview=`,
      ];
      for (const u of cases) {
        const res = await anonymous(u);
        assert.equal(res.status, 404, u);
        const same = (text: string) => text.replace(/(href|content)="http[^"]*"/g, '');
        assert.equal(same(res.text), same(unknown.text), 'nothing tells that the event exists');
      }
      // A token the server signed with a future expiry works (the test's signing is the server's).
      assert.equal((await anonymous(`${t.origin}/event/hidden-launch/?preview=${forge(e.id, Math.floor(Date.now() / 1000) + 60, Date.now())}`)).status, 200);
    });

    it('trashing the event voids its links, even after a restore; a new link works again', async () => {
      const e = await draft('Withdrawn Talk');
      const { url } = (await t.api.post(`${A}/events/${e.id}/preview`, { as: 'admin' })).body;
      assert.equal((await anonymous(url)).status, 200);
      assert.equal((await t.api.post(`${A}/events/${e.id}/trash`, { as: 'admin' })).status, 200);
      assert.equal((await anonymous(url)).status, 404);
      const refused = await t.api.post(`${A}/events/${e.id}/preview`, { as: 'admin' });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'rest_preview_trashed');
      assert.equal((await t.api.post(`${A}/events/${e.id}/restore`, { as: 'admin' })).status, 200);
      assert.equal((await anonymous(url)).status, 404, 'the old link stays void');
      const fresh = (await t.api.post(`${A}/events/${e.id}/preview`, { as: 'admin' })).body;
      assert.equal((await anonymous(fresh.url)).status, 200);
    });

    it('is for whoever may edit the event; a published event’s page ignores the token', async () => {
      const e = await draft('Guarded Draft');
      assert.equal((await t.api.post(`${A}/events/${e.id}/preview`)).status, 401);
      await t.user('subscriber', 'preview-sub');
      assert.equal((await t.api.post(`${A}/events/${e.id}/preview`, { as: 'preview-sub' })).status, 403);
      const pub = await t.api.post('/events', { as: 'admin', json: { title: 'Open Day', status: 'publish', start_date: '2031-06-02 10:00', end_date: '2031-06-02 12:00' } });
      const page = await anonymous(`${t.origin}/event/open-day/?preview=garbage`);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.text, /preview-banner/);
      assert.ok(pub.body.id);
    });
  },
  { SECRET_KEY: SECRET },
);
