/**
 * Issue 29: nothing of a submission is public until it is approved. A pending submission (its
 * event, its new venue and organizer) is invisible on every public path: the API's lists and
 * records (by id, by slug, searched, filtered), linked venue and organizer lists and filters, the
 * pages, the iCalendar feeds, sync deltas for anonymous clients; webhook payloads never carry the
 * submitter's identity. Once approved, the same paths show it, still without the identity.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { EVENT, MOD, OPEN, page, submit } from '../support/submissions.js';

const SECRET = 'Zanzibarquux';
const IDENTITY = /Identity Person|identity@example\.org/;
/** The pending records' names (a search echoes the word itself). */
const NAMES = new RegExp(`${SECRET} (festival|hall|crew)`);

for (const kind of STORES) {
  describe(`a pending submission is invisible on every public path [${kind.name}]`, () => {
    let t: TestServer;
    let hooks: Receiver;
    let sub: { id: number; token: string; eventId: number; venueId: number; organizerId: number; slug: string; venueSlug: string; organizerSlug: string };
    let syncToken: string;
    before(async () => {
      hooks = await startReceiver();
      t = await startServer(kind, { ...OPEN, WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms', WEBHOOKS_TIMEOUT: '2s' });
      const endpoint = await t.api.post(`${MOD}/webhooks`, { as: 'admin', json: { url: hooks.url + '/all' } });
      hooks.secret = endpoint.body.secret;
      // A published event, so the lists are not empty.
      await t.api.post('/events', { as: 'admin', json: { title: 'Public concert', start_date: '2031-06-20 18:00', end_date: '2031-06-20 20:00', status: 'publish' } });
      syncToken = (await t.api.get('/events', { query: { start_date: '2031-01-01', end_date: '2031-12-31' } })).headers.get('x-sync-token')!;
      assert.ok(syncToken);
      const made = await submit(t, {
        ...EVENT,
        title: `${SECRET} festival`,
        name: 'Identity Person',
        email: 'identity@example.org',
        venue: { venue: `${SECRET} hall`, city: 'Nantes' },
        organizer: { organizer: `${SECRET} crew`, email: 'crew@example.org' },
      });
      assert.equal(made.status, 201, made.text);
      const detail = (await t.api.get(`${MOD}/submissions/${made.body.id}`, { as: 'admin' })).body;
      const event = await t.api.get(`/events/${detail.event_id}`, { as: 'admin' });
      sub = {
        id: made.body.id,
        token: made.body.token,
        eventId: detail.event_id,
        venueId: detail.new_venue_id,
        organizerId: detail.new_organizer_ids[0],
        slug: event.body.slug,
        venueSlug: event.body.venue.slug,
        organizerSlug: event.body.organizer[0].slug,
      };
    });
    after(async () => {
      await t.close();
      await hooks.close();
    });

    const window = { start_date: '2031-01-01', end_date: '2031-12-31' };

    it('the API: lists, searches, filters, records by id and slug, linked records', async () => {
      const list = await t.api.get('/events', { query: window });
      assert.equal(list.status, 200);
      assert.doesNotMatch(list.text, NAMES);
      assert.equal(list.body.total, 1);
      assert.doesNotMatch((await t.api.get('/events', { query: { ...window, search: SECRET } })).text, NAMES);
      assert.doesNotMatch((await t.api.get('/events', { query: { ...window, status: 'pending' } })).text, NAMES);
      assert.notEqual((await t.api.get(`/events/${sub.eventId}`)).status, 200);
      assert.notEqual((await t.api.get(`/events/by-slug/${sub.slug}`)).status, 200);
      assert.doesNotMatch((await t.api.get('/venues')).text, NAMES);
      assert.doesNotMatch((await t.api.get('/organizers')).text, NAMES);
      assert.doesNotMatch((await t.api.get('/venues', { query: { search: SECRET } })).text, NAMES);
      assert.notEqual((await t.api.get(`/venues/${sub.venueId}`)).status, 200);
      assert.notEqual((await t.api.get(`/organizers/${sub.organizerId}`)).status, 200);
      // Filters naming the pending records answer as unknown ones do.
      const byVenue = await t.api.get('/events', { query: { ...window, venue: sub.venueId } });
      const byUnknown = await t.api.get('/events', { query: { ...window, venue: 999999 } });
      assert.equal(byVenue.status, byUnknown.status);
      assert.equal((await t.api.get('/venues', { query: { event: sub.eventId } })).status, (await t.api.get('/venues', { query: { event: 999999 } })).status);
      assert.equal((await t.api.get('/organizers', { query: { event: sub.eventId } })).status, (await t.api.get('/organizers', { query: { event: 999999 } })).status);
      // The moderation routes are not public.
      assert.equal((await t.api.get(`${MOD}/submissions`)).status, 401);
    });

    it('sync deltas for anonymous clients', async () => {
      const delta = await t.api.get('/events', { query: { ...window, sync_token: syncToken } });
      assert.equal(delta.status, 200, delta.text);
      assert.doesNotMatch(delta.text, NAMES);
      assert.doesNotMatch(delta.text, new RegExp(`"id":${sub.eventId}[,}]`));
    });

    it('the pages and the iCalendar feeds', async () => {
      for (const path of ['/events/', '/events/list/', '/events/month/2031-06/', '/events/2031-06-21/', `/events/?search=${SECRET}`]) {
        const p = await page(t, path);
        assert.equal(p.status, 200, path);
        assert.doesNotMatch(p.text, NAMES, path);
      }
      assert.equal((await page(t, `/event/${sub.slug}/`)).status, 404);
      assert.equal((await page(t, `/venue/${sub.venueSlug}/`)).status, 404);
      assert.equal((await page(t, `/organizer/${sub.organizerSlug}/`)).status, 404);
      for (const path of ['/events.ics', `/events.ics?search=${SECRET}`, `/events/?ical=1&event_ids=${sub.eventId}`, '/events/month/2031-06/?ical=1']) {
        const p = await page(t, path);
        assert.doesNotMatch(p.text, NAMES, path);
      }
    });

    it('webhook payloads never carry the submitter’s identity', async () => {
      const created = await hooks.waitFor((m) => m.body.type === 'event.created' && m.body.data?.id === sub.eventId);
      assert.equal(created[0]!.body.data.status, 'pending');
      const received = await hooks.waitFor((m) => m.body.type === 'submission.received' && m.body.data?.id === sub.id);
      for (const m of [...created, ...received]) assert.doesNotMatch(m.raw, IDENTITY);
    });

    it('approved: the same paths show the event, still without the submitter’s identity', async () => {
      const approved = await t.api.post(`${MOD}/submissions/${sub.id}/approve`, { as: 'admin' });
      assert.equal(approved.status, 200, approved.text);
      const list = await t.api.get('/events', { query: window });
      assert.match(list.text, NAMES);
      assert.doesNotMatch(list.text, IDENTITY);
      assert.equal((await t.api.get(`/events/${sub.eventId}`)).status, 200);
      assert.match((await t.api.get('/venues')).text, NAMES);
      const p = await page(t, `/event/${sub.slug}/`);
      assert.equal(p.status, 200);
      assert.doesNotMatch(p.text, IDENTITY);
      const ics = await page(t, '/events.ics');
      assert.match(ics.text, NAMES);
      assert.doesNotMatch(ics.text, IDENTITY);
      const delta = await t.api.get('/events', { query: { ...window, sync_token: syncToken } });
      assert.match(delta.text, NAMES);
      assert.doesNotMatch(delta.text, IDENTITY);
      const updated = await hooks.waitFor((m) => m.body.type === 'event.updated' && m.body.data?.id === sub.eventId && m.body.data.status === 'publish');
      assert.doesNotMatch(updated[0]!.raw, IDENTITY);
    });
  });
}
