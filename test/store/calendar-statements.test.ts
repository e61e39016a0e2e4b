/**
 * Every statement the store sends on calendar data names its calendar. A server runs a day's work
 * in two calendars (writes of every kind, lists with filters, sync, pages, feeds, CalDAV, embeds,
 * submissions, deletes) while the store reports each statement's text; each one that reads or
 * writes a table of calendar data must carry `calendar_id` (the scope plugin adds it to the query
 * builder's, text statements name it themselves). The few readers that work across calendars by
 * design are listed here with their reason, by a fragment of their text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CALENDAR_TABLES } from '../../src/store/calendar-scope.js';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { startIndependentFollower } from '../http/federation-independent-follower.js';

/** Statements that work across calendars on purpose. */
const ACROSS: Array<[fragment: RegExp, reason: string]> = [
  // Calendars and people are the network's; deleting a calendar names it by `calendar_id` anyway.
  [/^select .* from "calendars"/, 'the network’s own table'],
  // The network search reads every active calendar's published, public events (store/network.ts).
  [/from "posts" inner join "events" .* inner join "calendars"/, 'the network search: every active calendar, joined to `calendars`'],
  // The mirroring job lists every calendar's follows and the calendars the change log touched.
  [/from "calendar_follows" order by "calendar_id"/, 'the mirroring job: every calendar’s follows'],
  [/select distinct "calendar_id" from "changes"/, 'the mirroring job: which calendars changed'],
  // The background jobs' looks for due work in every calendar (each item is then done in its calendar).
  [/^select "id" from "webhook_endpoints" where "enabled" = \S+ limit/, 'the webhook worker: is any calendar’s endpoint enabled'],
  [/^select min\("cursor_seq"\) as "low" from "webhook_endpoints"/, 'change-log pruning keeps what any calendar’s endpoint still has to deliver'],
  // Federation's upkeep of Fedify's cache (the delivery job, now and then).
  [/^delete from "federation_kv" where "expires_ms" is not null and "expires_ms" <= /, 'the upkeep of Fedify’s cache drops expired entries of every calendar'],
  // A slug taken (a calendar made or renamed) is no calendar's former slug any more.
  [/^delete from "calendar_former_slugs" where "slug" = /, 'a slug a calendar takes is dropped from every calendar’s former slugs'],
  // Federation's figures for the service (/metrics): every calendar's followers and deliveries by state.
  [/^select "status", count\(\*\) as "n" from "federation_(?:followers|deliveries)" group by "status"$/, 'the /metrics gauges are the service’s totals'],
  [/^update "imports" set "status" = .* where "status" = \S+ and "heartbeat_gmt" < /, 'imports whose server died are queued again, whichever calendar queued them'],
  [/^select "seq", "created_gmt" from "changes" where "seq" > /, 'change-log pruning walks the whole log (its numbers are the database’s)'],
  [/^select "created_gmt" from "changes" where "seq" > /, 'change-log pruning: when the first row after a reader’s position was written'],
  [/^select "created_gmt" from "changes" where "seq" = /, 'a calendar’s Last-Modified: the time of its last change, which may be a change of people (every calendar’s)'],
  // An import keeps a source's id only when no calendar holds it: ids are the whole database's.
  [/^select "id" from "(?:posts|terms|images)" where "id" (?:= \S+|in \([^)]*\))$/, 'an import asks whether the id it wants is free in the database'],
];

const TABLE_REFERENCE = /\b(?:from|join|update|into)\s+"?([a-z_]+)"?/gi;

function tablesOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TABLE_REFERENCE)) if (CALENDAR_TABLES.has(m[1]!.toLowerCase())) out.push(m[1]!.toLowerCase());
  return out;
}

for (const kind of STORES) {
  describe(`every statement on calendar data names its calendar [${kind.name}]`, () => {
    let t: TestServer;
    const heard = new Set<string>();
    let listening = false;
    before(async () => {
      t = await startServer(
        kind,
        // Federation on: each calendar's actor is followed below, and its jobs' statements are heard.
        { WEBHOOKS_ALLOW_PRIVATE: 'true', FEDERATION: 'true', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true' },
        { onStatement: (text) => listening && heard.add(text) },
      );
      await t.built.services.calendars.create({ slug: 'north', name: 'North' });
      listening = true;
    });
    const peers: Array<{ close(): Promise<void> }> = [];
    after(async () => {
      for (const p of peers) await p.close();
      await t?.close();
    });

    it('in a day’s work in two calendars', { timeout: 120_000 }, async () => {
      // A role given and taken back in a calendar (with its log row, in one transaction).
      await t.user('subscriber', 'statement-member');
      await t.built.services.calendars.setRole('statement-member', 'north', 'editor');
      await t.built.services.calendars.setRole('statement-member', 'north', '');
      // A follower of each calendar's actor (WebFinger, the actor, a Follow, its Accept delivered).
      for (const [identifier, name, host] of [
        [t.config.federationHandle, 'stan', '127.0.0.181'],
        ['north', 'nora', '127.0.0.182'],
      ] as const) {
        const peer = await startIndependentFollower(name, { host });
        peers.push(peer);
        const actor = await peer.lookUp(`acct:${identifier}@${new URL(t.origin).host}`, t.origin);
        await peer.follow(actor);
        await peer.waitFor((a) => a.type === 'Accept' && a.json.actor === actor.id);
      }
      for (const prefix of ['', '/c/north']) {
        const api = `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1`;
        const as = 'admin';
        // An endpoint in each calendar: the webhook worker's statements are heard below.
        const hook = await t.api.post(`${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1/webhooks`, { as, json: { url: 'https://127.0.0.1:9/hook' } });
        assert.equal(hook.status, 201, hook.text);
        const venue = await t.api.post(`${api}/venues`, { as, json: { venue: `Hall ${prefix}`, city: 'Town' } });
        assert.equal(venue.status, 201, venue.text);
        const organizer = await t.api.post(`${api}/organizers`, { as, json: { organizer: `Org ${prefix}` } });
        const category = await t.api.post(`${api}/categories`, { as, json: { name: `Music ${prefix}` } });
        const tag = await t.api.post(`${api}/tags`, { as, json: { name: `free ${prefix}` } });
        const event = await t.api.post(`${api}/events`, {
          as,
          json: {
            title: `Concert ${prefix}`,
            start_date: '2027-05-01 20:00',
            end_date: '2027-05-01 22:00',
            venue: venue.body.id,
            organizer: [organizer.body.id],
            categories: [category.body.id],
            tags: [tag.body.id],
            status: 'publish',
          },
        });
        assert.equal(event.status, 201, event.text);
        const series = await t.api.post(`${api}/events`, {
          as,
          json: {
            title: `Weekly ${prefix}`,
            start_date: '2027-05-03 18:00',
            end_date: '2027-05-03 19:00',
            status: 'publish',
            recurrence: { rules: [{ type: 'Weekly', end_type: 'After', end_count: 4 }] },
          },
        });
        assert.ok(series.status === 201 || series.status === 400, series.text);
        await t.api.post(`${api}/events/${event.body.id}`, { as, json: { title: `Concert ${prefix} (moved)` } });
        for (const query of [
          {},
          { start_date: '2027-01-01', categories: category.body.id },
          { search: 'concert' },
          { venue: venue.body.id },
          { organizer: organizer.body.id },
          { tags: tag.body.id },
          { featured: 'true' },
        ]) {
          assert.equal((await t.api.get(`${api}/events`, { query })).status, 200);
        }
        await t.api.get(`${api}/events/${event.body.id}`);
        await t.api.get(`${api}/venues`);
        await t.api.get(`${api}/organizers`);
        await t.api.get(`${api}/categories`);
        await t.api.get(`${api}/tags`);
        const first = await t.api.get(`${api}/events`, { query: { sync_token: '' }, as });
        if (first.body?.sync_token) await t.api.get(`${api}/events`, { query: { sync_token: first.body.sync_token }, as });
        await fetch(`${t.origin}${prefix}/events/`);
        await fetch(`${t.origin}${prefix}/events/?ical=1`);
        await fetch(`${t.origin}${prefix}/event/${event.body.slug}/`);
        await t.api.delete(`${api}/events/${event.body.id}`, { as });
        await t.api.delete(`${api}/events/${event.body.id}`, { as, query: { force: 'true' } });
        await t.api.delete(`${api}/categories/${category.body.id}`, { as, query: { force: 'true' } });
      }
      // The network: a proposal from the default calendar to north, north following it, the search.
      const network = (prefix: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/network/v1`;
      const shared = await t.api.post(`${t.origin}${t.config.restRoot}/calendar/events/v1/events`, {
        as: 'admin',
        json: { title: 'Shared', start_date: '2027-06-01 20:00', end_date: '2027-06-01 22:00', status: 'publish' },
      });
      assert.equal(shared.status, 201, shared.text);
      await t.api.post(`${network('')}/proposals`, { as: 'admin', json: { event: shared.body.id, to: 'north' } });
      const follow = await t.api.post(`${network('/c/north')}/follows`, { as: 'admin', json: { calendar: 'default' } });
      assert.equal(follow.status, 201, follow.text);
      await t.api.post(`${t.origin}${t.config.restRoot}/calendar/events/v1/events/${shared.body.id}`, { as: 'admin', json: { title: 'Shared (moved)' } });
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await t.api.get(`${network('/c/north')}/follows`, { as: 'admin' })).status, 200);
      assert.equal((await t.api.get(`${network('')}/search`, { query: { search: 'shared', start_date: '2027-01-01' } })).status, 200);
      assert.equal((await t.api.delete(`${network('/c/north')}/follows/default`, { as: 'admin' })).status, 200);
      // The background jobs, which find their work across calendars and do it in each.
      await t.built.webhookWorker!.runOnce();
      await t.built.horizonJob.runOnce();
      await t.built.pruneJob.runOnce();
      await t.built.submissionJobs?.retention.runOnce();
      // Federation's outbox announces each calendar's events to its follower (a delivery each).
      await new Promise((r) => setTimeout(r, 2_500));
      const unscoped: string[] = [];
      for (const text of heard) {
        const tables = tablesOf(text);
        if (tables.length === 0) continue;
        // Each insert into calendar data names the calendar among its columns.
        const inserts = [...text.matchAll(/insert into "?([a-z_]+)"?\s*\(([^)]*)\)/gi)].filter((m) => CALENDAR_TABLES.has(m[1]!.toLowerCase()) && !/calendar_id/.test(m[2]!));
        if (inserts.length) {
          unscoped.push(`insert into ${inserts.map((m) => m[1]).join(', ')} without its calendar: ${text.slice(0, 300)}`);
          continue;
        }
        if (/calendar_id/.test(text)) continue;
        if (ACROSS.some(([fragment]) => fragment.test(text))) continue;
        unscoped.push(`${tables.join(', ')}: ${text.slice(0, 300)}`);
      }
      assert.ok(heard.size > 50, `only ${heard.size} statements heard`);
      assert.deepEqual(unscoped, []);
    });
  });
}
