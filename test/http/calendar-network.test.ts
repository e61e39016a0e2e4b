/**
 * Networks of calendars: an editor of one calendar proposes an event to another's moderation
 * queue (accepted: published there; declined: trashed), a calendar follows another (its events
 * mirrored, marked with their source, updated and removed with it), and the network search
 * (published, public events of active calendars only).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { EVENT, OPEN } from '../support/submissions.js';

forEachStore(
  'calendar networks: proposals, follows, search',
  (t) => {
    const at = (slug: string, ns: string) => `${t.origin}/c/${slug}${t.config.restRoot}/calendar/${ns}`;
    const events = (slug: string) => at(slug, 'events/v1/events');
    const network = (slug: string) => at(slug, 'network/v1');
    const moderation = (slug: string) => at(slug, 'admin/v1/submissions');
    const titles = async (slug: string) =>
      ((await t.api.get(events(slug), { query: { start_date: '2026-12-01', per_page: '50' } })).body.events as Array<{ title: string }>).map((e) => e.title).sort();
    const make = async (slug: string, as: string, fields: Record<string, unknown>) => {
      const r = await t.api.post(events(slug), { as, json: { start_date: '2027-05-01 20:00', end_date: '2027-05-01 23:00', status: 'publish', ...fields } });
      assert.equal(r.status, 201, r.text);
      return r.body as { id: number; url: string; slug: string };
    };
    before(async () => {
      for (const [slug, name] of [
        ['north', 'North'],
        ['south', 'South'],
        ['east', 'East side'],
        ['west', 'West'],
      ])
        await t.built.services.calendars.create({ slug: slug!, name: name! });
      await t.user('subscriber', 'nora');
      await t.built.services.calendars.setRole('nora', 'north', 'editor');
      await t.user('subscriber', 'sid');
      await t.built.services.calendars.setRole('sid', 'north', 'subscriber');
    });

    it('proposes an event to another calendar’s queue: accepted, it is published there', async () => {
      const festival = await make('north', 'nora', { title: 'Harbour festival' });
      const proposed = await t.api.post(`${network('north')}/proposals`, { as: 'nora', json: { event: festival.id, to: 'south' } });
      assert.equal(proposed.status, 201, proposed.text);
      assert.equal(proposed.body.status, 'pending');
      assert.equal(proposed.body.to.slug, 'south');
      // The proposer reads nothing else of the other calendar.
      assert.ok([401, 403].includes((await t.api.get(moderation('south'), { as: 'nora' })).status));
      assert.ok([401, 403].includes((await t.api.get(`${moderation('south')}/${proposed.body.id}`, { as: 'nora' })).status));
      // Not public in the other calendar until a moderator accepts it.
      assert.deepEqual(await titles('south'), []);
      const queue = await t.api.get(moderation('south'), { as: 'admin' });
      const item = (queue.body as Array<Record<string, any>>).find((s) => s.id === proposed.body.id)!;
      assert.ok(item, queue.text);
      assert.equal(item.event.status, 'pending');
      assert.equal(item.event.title, 'Harbour festival');
      assert.equal(item.source.calendar, 'north');
      assert.equal(item.source.url, festival.url);
      assert.equal(item.event.website, festival.url);
      // Once is enough while it waits.
      const again = await t.api.post(`${network('north')}/proposals`, { as: 'nora', json: { event: festival.id, to: 'south' } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'network_already_proposed');
      const approved = await t.api.post(`${moderation('south')}/${proposed.body.id}/approve`, { as: 'admin', json: {} });
      assert.equal(approved.status, 200, approved.text);
      assert.deepEqual(await titles('south'), ['Harbour festival']);
      assert.deepEqual(await titles('north'), ['Harbour festival']);
    });

    it('declined, the proposed copy is removed; drafts, strangers and unknown calendars are refused', async () => {
      const market = await make('north', 'nora', { title: 'Night market' });
      const proposed = await t.api.post(`${network('north')}/proposals`, { as: 'nora', json: { event: market.id, to: 'south' } });
      assert.equal(proposed.status, 201, proposed.text);
      const rejected = await t.api.post(`${moderation('south')}/${proposed.body.id}/reject`, { as: 'admin', json: { reason: 'Not ours' } });
      assert.equal(rejected.status, 200, rejected.text);
      assert.equal(rejected.body.status, 'rejected');
      // The moderators' view reads the event again: trashed (what is kept hears every calendar's writes).
      assert.equal(rejected.body.event.status, 'trash');
      const trashed = await t.api.get(events('south'), { as: 'admin', query: { status: 'trash', start_date: '2026-12-01' } });
      assert.deepEqual(
        trashed.body.events.map((e: { id: number }) => e.id),
        [rejected.body.event_id],
      );
      assert.ok(!(await titles('south')).includes('Night market'));

      const draft = await make('north', 'nora', { title: 'Secret', status: 'draft' });
      const refused = await t.api.post(`${network('north')}/proposals`, { as: 'nora', json: { event: draft.id, to: 'south' } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'network_not_public');
      const stranger = await t.api.post(`${network('north')}/proposals`, { as: 'sid', json: { event: market.id, to: 'south' } });
      assert.ok([401, 403].includes(stranger.status), stranger.text);
      const anonymous = await t.api.post(`${network('north')}/proposals`, { json: { event: market.id, to: 'south' } });
      assert.equal(anonymous.status, 401);
      const nowhere = await t.api.post(`${network('north')}/proposals`, { as: 'nora', json: { event: market.id, to: 'nowhere' } });
      assert.equal(nowhere.status, 404);
      assert.equal(nowhere.body.code, 'calendar_not_found');
      // Another calendar's event, named by id, is not found from this one.
      const other = await make('south', 'admin', { title: 'South only' });
      const foreign = await t.api.post(`${network('north')}/proposals`, { as: 'nora', json: { event: other.id, to: 'south' } });
      assert.equal(foreign.status, 404);
    });

    it('a proposal counts against the target calendar’s submissions_per_day quota, and is refused past it as a submission is', async () => {
      await t.built.services.calendars.create({ slug: 'p-from', name: 'P from' });
      await t.built.services.calendars.create({ slug: 'p-to', name: 'P to', quotas: { submissions_per_day: 2 } });
      const submit = (title: string) => t.api.post(at('p-to', 'submissions/v1/submissions'), { json: { ...EVENT, title, email: 'p-to@example.org' } });
      const propose = async (title: string) => {
        const made = await make('p-from', 'admin', { title });
        return t.api.post(`${network('p-from')}/proposals`, { as: 'admin', json: { event: made.id, to: 'p-to' } });
      };
      const submitted = await submit('Community one');
      assert.equal(submitted.status, 201, submitted.text);
      const first = await propose('Proposed one');
      assert.equal(first.status, 201, first.text);
      // The quota is used up: a proposal gets the submissions' 429, and nothing reaches the queue.
      const refused = await propose('Proposed two');
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.code, 'calendar_quota_exceeded');
      assert.deepEqual([refused.body.data.quota, refused.body.data.limit, refused.body.data.used], ['submissions_per_day', 2, 2]);
      assert.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After');
      const queue = await t.api.get(moderation('p-to'), { as: 'admin' });
      assert.deepEqual((queue.body as Array<{ event: { title: string } }>).map((s) => s.event.title).sort(), ['Community one', 'Proposed one']);
      const pending = await t.api.get(events('p-to'), { as: 'admin', query: { status: 'pending', start_date: '2026-01-01', end_date: '2032-01-01', per_page: '50' } });
      assert.equal(pending.body.events.length, 2, pending.text);
      // The proposal took a place: a community submission is refused too.
      const after = await submit('Community two');
      assert.equal(after.status, 429, after.text);
      assert.equal(after.body.code, 'calendar_quota_exceeded');
    });

    it('follows a calendar: its events appear in lists, pages and feeds, marked with their source, updated and removed with it', async () => {
      const music = await t.api.post(at('east', 'events/v1/categories'), { as: 'admin', json: { name: 'Music' } });
      const words = await t.api.post(at('east', 'events/v1/categories'), { as: 'admin', json: { name: 'Words' } });
      assert.equal(music.status, 201, music.text);
      const jazz = await make('east', 'admin', { title: 'Jazz night', categories: [music.body.id] });
      await make('east', 'admin', { title: 'Poetry slam', categories: [words.body.id] });
      await make('east', 'admin', { title: 'Closed rehearsal', categories: [music.body.id], status: 'draft' });
      // Only administrators of the follower manage its follows.
      assert.ok([401, 403].includes((await t.api.post(`${network('west')}/follows`, { as: 'nora', json: { calendar: 'east' } })).status));
      const follow = await t.api.post(`${network('west')}/follows`, { as: 'admin', json: { calendar: 'east', categories: ['music'] } });
      assert.equal(follow.status, 201, follow.text);
      assert.equal(follow.body.calendar.slug, 'east');
      assert.deepEqual(follow.body.categories, ['music']);
      const listed = await t.api.get(`${network('west')}/follows`, { as: 'admin' });
      assert.deepEqual(
        listed.body.map((f: { calendar: { slug: string } }) => f.calendar.slug),
        ['east'],
      );

      assert.deepEqual(await titles('west'), ['Jazz night']);
      const list = await t.api.get(events('west'), { query: { start_date: '2026-12-01' } });
      const copy = list.body.events[0];
      assert.equal(copy.website, jazz.url);
      assert.ok(
        copy.tags.some((tag: { name: string }) => tag.name === 'from: East side'),
        JSON.stringify(copy.tags),
      );
      assert.match(copy.url, /\/c\/west\/event\//);
      // Its page and the feed show the source.
      const page = await fetch(copy.url);
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.ok(html.includes('Jazz night') && html.includes(jazz.url), 'the page links to the source');
      const ics = await (await fetch(`${t.origin}/c/west/events.ics`)).text();
      assert.match(ics, /SUMMARY:Jazz night/);
      assert.ok(ics.replace(/\r\n /g, '').includes('from: East side'), ics);
      // The copy is read-only here.
      const edit = await t.api.post(`${events('west')}/${copy.id}`, { as: 'admin', json: { title: 'Mine now' } });
      assert.equal(edit.status, 403);
      assert.equal(edit.body.code, 'network_copy_read_only');

      // The source changes: the job follows.
      assert.equal((await t.api.post(`${events('east')}/${jazz.id}`, { as: 'admin', json: { title: 'Jazz night (late set)' } })).status, 200);
      await make('east', 'admin', { title: 'Brass band', categories: [music.body.id] });
      await t.built.networkJob.runOnce();
      assert.deepEqual(await titles('west'), ['Brass band', 'Jazz night (late set)']);
      // Unpublished at the source: gone from the follower.
      assert.equal((await t.api.post(`${events('east')}/${jazz.id}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
      const step = await t.built.networkJob.runOnce();
      assert.equal(step.error, undefined);
      assert.deepEqual(await titles('west'), ['Brass band']);
      // The follow ends: every copy goes.
      const ended = await t.api.delete(`${network('west')}/follows/east`, { as: 'admin' });
      assert.equal(ended.status, 200, ended.text);
      assert.deepEqual(await titles('west'), []);
      assert.equal((await t.api.delete(`${network('west')}/follows/east`, { as: 'admin' })).status, 404);
    });

    it('copies again only the events the change log says changed, and every one when a linked record changed', async () => {
      await t.built.services.calendars.create({ slug: 'big-source', name: 'Big source' });
      await t.built.services.calendars.create({ slug: 'big-follower', name: 'Big follower' });
      const hall = await t.api.post(at('big-source', 'events/v1/venues'), { as: 'admin', json: { venue: 'Big hall' } });
      assert.equal(hall.status, 201, hall.text);
      const made = [];
      for (let i = 0; i < 12; i++) made.push(await make('big-source', 'admin', { title: `Big ${i}`, venue: hall.body.id }));
      assert.equal((await t.api.post(`${network('big-follower')}/follows`, { as: 'admin', json: { calendar: 'big-source' } })).status, 201);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await titles('big-follower')).length, 12);
      // How many source events the follow step reads to make their copies' fields.
      const service = t.built.services.events;
      const represent = service.represent;
      let read = 0;
      service.represent = ((...args: Parameters<typeof represent>) => {
        read += args[0].length;
        return represent.apply(service, args);
      }) as typeof represent;
      try {
        assert.equal((await t.api.post(`${events('big-source')}/${made[3]!.id}`, { as: 'admin', json: { title: 'Big 3 (moved)' } })).status, 200);
        read = 0;
        assert.equal((await t.built.networkJob.runOnce()).error, undefined);
        assert.equal(read, 1, 'one changed event: one read');
        assert.ok((await titles('big-follower')).includes('Big 3 (moved)'));
        // The venue changes: every copy may show it.
        assert.equal((await t.api.post(at('big-source', `events/v1/venues/${hall.body.id}`), { as: 'admin', json: { venue: 'Big hall (renamed)' } })).status, 200);
        read = 0;
        assert.equal((await t.built.networkJob.runOnce()).error, undefined);
        assert.equal(read, 12, 'a linked record changed: every offered event read');
      } finally {
        service.represent = represent;
      }
    });

    it('a follower whose events quota is full misses those copies alone: the follow is kept, the job goes on for every other', async () => {
      await t.built.services.calendars.create({ slug: 'q-source', name: 'Q source' });
      await t.built.services.calendars.create({ slug: 'q-full', name: 'Q full', quotas: { events: 1 } });
      await t.built.services.calendars.create({ slug: 'q-roomy', name: 'Q roomy' });
      await make('q-source', 'admin', { title: 'Q one' });
      await make('q-source', 'admin', { title: 'Q two' });
      // Followed at once: what fits is copied, the follow is stored, and the answer says what was not.
      const full = await t.api.post(`${network('q-full')}/follows`, { as: 'admin', json: { calendar: 'q-source' } });
      assert.equal(full.status, 201, full.text);
      assert.equal(full.body.calendar.slug, 'q-source');
      assert.equal(full.body.not_copied, 1);
      assert.equal(full.body.copies, 1);
      assert.equal((await titles('q-full')).length, 1);
      const listed = await t.api.get(`${network('q-full')}/follows`, { as: 'admin' });
      assert.deepEqual(
        listed.body.map((f: { calendar: { slug: string } }) => f.calendar.slug),
        ['q-source'],
      );
      const roomy = await t.api.post(`${network('q-roomy')}/follows`, { as: 'admin', json: { calendar: 'q-source' } });
      assert.equal(roomy.status, 201, roomy.text);
      assert.equal(roomy.body.not_copied, 0);
      assert.equal(roomy.body.copies, 2);
      // The job: the full calendar's refusal is skipped, the other follower gets the new event.
      await make('q-source', 'admin', { title: 'Q three' });
      const step = await t.built.networkJob.runOnce();
      assert.equal(step.error, undefined, String(step.error));
      assert.deepEqual(await titles('q-roomy'), ['Q one', 'Q three', 'Q two']);
      assert.equal((await titles('q-full')).length, 1);
      // The follow says so, later too: its administrators see how many the quota refused.
      const kept = await t.api.get(`${network('q-full')}/follows`, { as: 'admin' });
      assert.equal(kept.body[0].not_copied, 2, kept.text);
      assert.equal(kept.body[0].copies, 1, kept.text);
      // Still no room: a step with nothing new at the source leaves it.
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await titles('q-full')).length, 1);
      // Room made (a raised quota), the source unchanged: the next step copies what was missing.
      await t.built.services.calendars.update('q-full', { quotas: { events: 3 } });
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await titles('q-full')).length, 3);
      assert.equal((await t.api.get(`${network('q-full')}/follows`, { as: 'admin' })).body[0].not_copied, 0);
      await make('q-source', 'admin', { title: 'Q four' });
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await t.api.get(`${network('q-full')}/follows`, { as: 'admin' })).body[0].not_copied, 1);
      // Room made by the follower itself (a copy it left out, deleted for good): the missing one is copied.
      const one = (await t.api.get(events('q-full'), { query: { start_date: '2026-12-01', search: 'Q one' } })).body.events[0] as { id: number };
      assert.equal((await t.api.delete(`${events('q-full')}/${one.id}`, { as: 'admin' })).status, 200);
      const gone = await t.api.delete(`${at('q-full', 'admin/v1/events')}/${one.id}`, { as: 'admin' });
      assert.equal(gone.status, 200, gone.text);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('q-full'), ['Q four', 'Q three', 'Q two']);
      assert.equal((await t.api.get(`${network('q-full')}/follows`, { as: 'admin' })).body[0].not_copied, 0);
    });

    it('each follow says how many of its copies are published here, counted by their tie to the follow (a renamed source, a copy trashed)', async () => {
      await t.built.services.calendars.create({ slug: 'n-source', name: 'N source' });
      await t.built.services.calendars.create({ slug: 'n-other', name: 'N other' });
      await t.built.services.calendars.create({ slug: 'n-follower', name: 'N follower' });
      await make('n-source', 'admin', { title: 'N one' });
      await make('n-source', 'admin', { title: 'N two' });
      await make('n-other', 'admin', { title: 'N elsewhere' });
      assert.equal((await t.api.post(`${network('n-follower')}/follows`, { as: 'admin', json: { calendar: 'n-source' } })).body.copies, 2);
      assert.equal((await t.api.post(`${network('n-follower')}/follows`, { as: 'admin', json: { calendar: 'n-other' } })).body.copies, 1);
      const counts = async () =>
        Object.fromEntries(
          ((await t.api.get(`${network('n-follower')}/follows`, { as: 'admin' })).body as Array<{ calendar: { slug: string }; copies: number }>).map((f) => [f.calendar.slug, f.copies]),
        );
      assert.deepEqual(await counts(), { 'n-source': 2, 'n-other': 1 });
      // Renamed, the source's copies are still counted: the count is the copies' tie, not their `from:` tag.
      await t.built.services.calendars.update('n-source', { name: 'N source renamed' });
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await counts(), { 'n-source': 2, 'n-other': 1 });
      // The job's next step rewrites the copies' `from:` tags (a calendar's change is a reset in its log).
      const tagged = await t.api.get(at('n-follower', 'events/v1/tags'), { query: { search: 'from: N', hide_empty: 'true' } });
      assert.deepEqual(tagged.body.tags.map((x: { name: string; count: number }) => [x.name, x.count]).sort(), [
        ['from: N other', 1],
        ['from: N source renamed', 2],
      ]);
      // A copy the follower's editors trash is no longer shown, so no longer counted; the source's new event is.
      const one = (await t.api.get(events('n-follower'), { query: { start_date: '2026-12-01', search: 'N one' } })).body.events[0] as { id: number };
      assert.equal((await t.api.delete(`${events('n-follower')}/${one.id}`, { as: 'admin' })).status, 200);
      await make('n-source', 'admin', { title: 'N three' });
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await counts(), { 'n-source': 2, 'n-other': 1 });
      // The source's own list is not a follow: it has none.
      assert.deepEqual((await t.api.get(`${network('n-source')}/follows`, { as: 'admin' })).body, []);
    });

    it('a follower still full: no venue is mirrored for a refused copy, and a step with no room and nothing new leaves the follow', async () => {
      await t.built.services.calendars.create({ slug: 'r-source', name: 'R source' });
      await t.built.services.calendars.create({ slug: 'r-full', name: 'R full', quotas: { events: 1 } });
      const hall = await t.api.post(at('r-source', 'events/v1/venues'), { as: 'admin', json: { venue: 'Only hall' } });
      assert.equal(hall.status, 201, hall.text);
      await make('r-source', 'admin', { title: 'R one' });
      const two = await make('r-source', 'admin', { title: 'R two', venue: hall.body.id });
      const followed = await t.api.post(`${network('r-full')}/follows`, { as: 'admin', json: { calendar: 'r-source' } });
      assert.equal(followed.body.not_copied, 1, followed.text);
      assert.deepEqual(await titles('r-full'), ['R one']);
      const venues = async (status: string) =>
        ((await t.api.get(at('r-full', 'events/v1/venues'), { as: 'admin', query: { status, per_page: '50' } })).body.venues ?? []).map((v: { venue: string }) => v.venue);
      // Each change at the source tries the refused copy again: no venue is made for it (and trashed).
      for (let i = 1; i <= 3; i++) {
        assert.equal((await t.api.post(`${events('r-source')}/${two.id}`, { as: 'admin', json: { title: `R two (${i})` } })).status, 200);
        assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      }
      assert.deepEqual(await venues('trash'), []);
      assert.deepEqual(await venues('publish'), []);
      // Nothing new at the source and still no room: the steps sync no follow (each would try every
      // missing copy again).
      for (let i = 0; i < 3; i++) {
        const step = await t.built.networkJob.runOnce();
        assert.equal(step.error, undefined);
        assert.equal(step.value, 0, `step ${i}: follows synced`);
      }
    });

    it('a suspended source’s events leave its followers, and come back when it resumes', async () => {
      await t.built.services.calendars.create({ slug: 'isle', name: 'Isle' });
      await t.built.services.calendars.create({ slug: 'shore', name: 'Shore' });
      await make('isle', 'admin', { title: 'Lighthouse tour' });
      assert.equal((await t.api.post(`${network('shore')}/follows`, { as: 'admin', json: { calendar: 'isle' } })).status, 201);
      assert.deepEqual(await titles('shore'), ['Lighthouse tour']);
      await t.built.networkJob.runOnce();
      await t.built.services.calendars.update('isle', { status: 'suspended' });
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('shore'), []);
      await t.built.services.calendars.update('isle', { status: 'active' });
      await t.built.networkJob.runOnce();
      assert.deepEqual(await titles('shore'), ['Lighthouse tour']);
      // A suspended calendar cannot be followed anew.
      await t.built.services.calendars.update('isle', { status: 'suspended' });
      const refused = await t.api.post(`${network('west')}/follows`, { as: 'admin', json: { calendar: 'isle' } });
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.code, 'network_calendar_suspended');
      // Nor take proposals.
      const event = await make('shore', 'admin', { title: 'Harbour lights' });
      const proposed = await t.api.post(`${network('shore')}/proposals`, { as: 'admin', json: { event: event.id, to: 'isle' } });
      assert.equal(proposed.status, 409, proposed.text);
      assert.equal(proposed.body.code, 'network_calendar_suspended');
    });

    it('searches the network: published, public events of active calendars, with their calendar', async () => {
      for (const slug of ['alpha', 'beta', 'gamma']) await t.built.services.calendars.create({ slug, name: slug.toUpperCase() });
      await make('alpha', 'admin', { title: 'Zebrafish talk', start_date: '2027-06-01 10:00', end_date: '2027-06-01 11:00' });
      await make('beta', 'admin', { title: 'Zebrafish walk', start_date: '2027-06-02 10:00', end_date: '2027-06-02 11:00' });
      await make('alpha', 'admin', { title: 'Zebrafish draft', status: 'draft' });
      await make('alpha', 'admin', { title: 'Zebrafish private', status: 'private' });
      await make('beta', 'admin', { title: 'Zebrafish locked', password: 'sesame' });
      await make('beta', 'admin', { title: 'Zebrafish of old', start_date: '2025-06-01 10:00', end_date: '2025-06-01 11:00' });
      await make('gamma', 'admin', { title: 'Zebrafish suspended' });
      await t.built.services.calendars.update('gamma', { status: 'suspended' });

      const found = await t.api.get(`${t.origin}${t.config.restRoot}/calendar/network/v1/search`, { query: { search: 'zebrafish', start_date: '2026-12-01' } });
      assert.equal(found.status, 200, found.text);
      assert.equal(found.headers.get('x-wp-total'), '2');
      assert.deepEqual(
        found.body.map((e: { title: string; calendar: { slug: string } }) => [e.title, e.calendar.slug]),
        [
          ['Zebrafish talk', 'alpha'],
          ['Zebrafish walk', 'beta'],
        ],
      );
      assert.equal(found.body[0].calendar.url, `${t.config.siteUrl}/c/alpha`);
      assert.equal(found.body[0].url, `${t.config.siteUrl}/c/alpha/event/zebrafish-talk/`);
      assert.equal((await fetch(found.body[0].url)).status, 200);
      const paged = await t.api.get(`${network('alpha')}/search`, { query: { search: 'ZEBRAFISH', start_date: '2026-12-01', per_page: '1', page: '2' } });
      assert.equal(paged.headers.get('x-wp-total'), '2');
      assert.deepEqual(
        paged.body.map((e: { title: string }) => e.title),
        ['Zebrafish walk'],
      );
      // A bare end date is that day's end, as the events list reads it: the day's events are in.
      const untilDay = await t.api.get(`${network('alpha')}/search`, { query: { search: 'zebrafish', start_date: '2026-12-01', end_date: '2027-06-01' } });
      assert.deepEqual(
        untilDay.body.map((e: { title: string }) => e.title),
        ['Zebrafish talk'],
      );
      assert.equal(untilDay.headers.get('x-wp-total'), '1');
    });
  },
  OPEN,
);
