/**
 * Networks of calendars, what a follow and the network search must not do: list an event its
 * calendar hides from listings, or answer an event twice (its original and a follower's copy).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { OPEN } from '../support/submissions.js';
import { inCalendar } from '../../src/store/calendar-scope.js';

type Json = Record<string, any>;

forEachStore(
  'calendar networks: hidden events, one answer per event',
  (t) => {
    const at = (slug: string, ns: string) => `${t.origin}/c/${slug}${t.config.restRoot}/calendar/${ns}`;
    const events = (slug: string) => at(slug, 'events/v1/events');
    const network = (slug: string) => at(slug, 'network/v1');
    const search = (q: Json) => t.api.get(`${t.origin}${t.config.restRoot}/calendar/network/v1/search`, { query: { start_date: '2026-12-01', ...q } });
    const titles = async (slug: string) =>
      ((await t.api.get(events(slug), { query: { start_date: '2026-12-01', per_page: '50' } })).body.events as Array<{ title: string }>).map((e) => e.title).sort();
    const make = async (slug: string, fields: Json) => {
      const r = await t.api.post(events(slug), { as: 'admin', json: { start_date: '2027-05-01 20:00', end_date: '2027-05-01 23:00', status: 'publish', ...fields } });
      assert.equal(r.status, 201, r.text);
      return r.body as Json;
    };
    const follow = async (follower: string, source: string) => {
      const r = await t.api.post(`${network(follower)}/follows`, { as: 'admin', json: { calendar: source } });
      assert.equal(r.status, 201, r.text);
      return r.body as Json;
    };
    before(async () => {
      for (const slug of [
        'hid-src',
        'hid-fol',
        'dup-src',
        'dup-fol',
        'dup-other',
        'gone-src',
        'gone-fol',
        'gone-fol2',
        'lost-src',
        'lost-fol',
        'pr-a',
        'pr-b',
        'pr-c',
        'fw-a',
        'fw-b',
        'rf-a',
        'rf-b',
        'pf-a',
        'pf-b',
        'pq-a',
        'pq-b',
        'pd-a',
        'pd-b',
      ])
        await t.built.services.calendars.create({ slug, name: slug.toUpperCase() });
    });

    it('an event hidden from listings stays hidden: its copy keeps the flag, and the search lists neither', async () => {
      const secret = await make('hid-src', { title: 'Quokka rehearsal', hide_from_listings: true });
      await make('hid-src', { title: 'Quokka concert' });
      assert.equal(secret.hide_from_listings, true);
      await follow('hid-fol', 'hid-src');
      // Like the original: absent from the follower's lists…
      assert.deepEqual(await titles('hid-src'), ['Quokka concert']);
      assert.deepEqual(await titles('hid-fol'), ['Quokka concert']);
      // …but copied, hidden, and reachable by its URL.
      const copy = await t.api.get(`${events('hid-fol')}/by-slug/${secret.slug}`);
      const page = await fetch(`${t.config.siteUrl}/c/hid-fol/event/${secret.slug}/`);
      assert.equal(page.status, 200);
      assert.ok((await page.text()).includes('Quokka rehearsal'));
      assert.equal(copy.status, 200, copy.text);
      assert.equal(copy.body.hide_from_listings, true);
      const found = await search({ search: 'quokka' });
      assert.equal(found.status, 200, found.text);
      assert.ok(!found.body.some((e: Json) => e.title === 'Quokka rehearsal'), found.text);
      // Listed again at the source: the job lists the copy too.
      assert.equal((await t.api.post(`${events('hid-src')}/${secret.id}`, { as: 'admin', json: { hide_from_listings: false } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('hid-fol'), ['Quokka concert', 'Quokka rehearsal']);
    });

    it('the search answers each event once, its original: not a follow’s copy nor an accepted proposal, and counts so', async () => {
      const talk = await make('dup-src', { title: 'Wombat talk', start_date: '2027-06-01 10:00', end_date: '2027-06-01 11:00' });
      await make('dup-src', { title: 'Wombat walk', start_date: '2027-06-02 10:00', end_date: '2027-06-02 11:00' });
      await follow('dup-fol', 'dup-src');
      assert.deepEqual(await titles('dup-fol'), ['Wombat talk', 'Wombat walk']);
      const proposed = await t.api.post(`${network('dup-src')}/proposals`, { as: 'admin', json: { event: talk.id, to: 'dup-other' } });
      assert.equal(proposed.status, 201, proposed.text);
      const approved = await t.api.post(`${at('dup-other', 'admin/v1/submissions')}/${proposed.body.id}/approve`, { as: 'admin', json: {} });
      assert.equal(approved.status, 200, approved.text);
      assert.deepEqual(await titles('dup-other'), ['Wombat talk']);

      const found = await search({ search: 'wombat' });
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(
        found.body.map((e: Json) => [e.title, e.calendar.slug]),
        [
          ['Wombat talk', 'dup-src'],
          ['Wombat walk', 'dup-src'],
        ],
      );
      assert.equal(found.headers.get('x-wp-total'), '2');
      assert.equal(found.headers.get('x-wp-totalpages'), '1');
      const second = await search({ search: 'wombat', per_page: '1', page: '2' });
      assert.equal(second.headers.get('x-wp-total'), '2');
      assert.deepEqual(
        second.body.map((e: Json) => [e.title, e.calendar.slug]),
        [['Wombat walk', 'dup-src']],
      );
      // The original unpublished: the follow's copy goes with it, the accepted proposal (B's event now) is answered.
      assert.equal((await t.api.post(`${events('dup-src')}/${talk.id}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      const after = await search({ search: 'wombat' });
      assert.deepEqual(
        after.body.map((e: Json) => [e.title, e.calendar.slug]),
        [
          ['Wombat talk', 'dup-other'],
          ['Wombat walk', 'dup-src'],
        ],
      );
      assert.equal(after.headers.get('x-wp-total'), '2');
    });

    const followed = async (slug: string) => {
      const r = await t.api.get(`${network(slug)}/follows`, { as: 'admin' });
      assert.equal(r.status, 200, r.text);
      return r.body as Json[];
    };
    const trashed = async (slug: string) => ((await t.api.get(events(slug), { as: 'admin', query: { status: 'trash', start_date: '2026-12-01' } })).body.events as Json[]).map((e) => e.title).sort();

    it('deleting a followed calendar ends its follows at once: no follow names it, its copies are trashed', async () => {
      await make('gone-src', { title: 'Ibis count' });
      await follow('gone-fol', 'gone-src');
      await follow('gone-fol2', 'gone-src');
      await follow('gone-fol', 'hid-src');
      assert.deepEqual(await titles('gone-fol2'), ['Ibis count']);
      const id = (await t.api.get(`${t.origin}${t.config.restRoot}/calendar/network/v1/calendars`, { as: 'admin', query: { search: 'gone-src' } })).body.find((c: Json) => c.slug === 'gone-src').id;
      const deleted = await t.api.delete(`${t.origin}${t.config.restRoot}/calendar/network/v1/calendars/${id}`, { as: 'admin', query: { force: 'true' } });
      assert.equal(deleted.status, 200, deleted.text);
      // Before any step of the job: the follows of it are gone, the others stay.
      assert.deepEqual(
        (await followed('gone-fol')).map((f) => f.calendar?.slug),
        ['hid-src'],
      );
      assert.deepEqual(await followed('gone-fol2'), []);
      assert.deepEqual(await titles('gone-fol2'), []);
      assert.deepEqual(await trashed('gone-fol2'), ['Ibis count']);
      assert.ok((await titles('gone-fol')).includes('Quokka concert'));
      // Nothing left to unfollow.
      const again = await t.api.delete(`${network('gone-fol2')}/follows/gone-src`, { as: 'admin' });
      assert.equal(again.status, 404, again.text);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await followed('gone-fol2'), []);
    });

    it('a calendar deleted by another way (the service alone): the job’s next step ends its follows', async () => {
      await make('lost-src', { title: 'Heron walk' });
      await follow('lost-fol', 'lost-src');
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      await t.built.services.calendars.remove('lost-src');
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await followed('lost-fol'), []);
      assert.deepEqual(await titles('lost-fol'), []);
      assert.deepEqual(await trashed('lost-fol'), ['Heron walk']);
    });

    const propose = (event: number, to: string) => t.api.post(`${network('pr-a')}/proposals`, { as: 'admin', json: { event, to } });
    const decide = async (to: string, id: number, how: 'approve' | 'reject') => {
      const r = await t.api.post(`${at(to, 'admin/v1/submissions')}/${id}/${how}`, { as: 'admin', json: how === 'reject' ? { reason: 'Not ours' } : {} });
      assert.equal(r.status, 200, r.text);
    };
    const refused = (r: Awaited<ReturnType<typeof propose>>, code: string) => {
      assert.equal(r.status, 409, r.text);
      assert.equal(r.body.code, code);
      assert.equal(typeof r.body.message, 'string');
      assert.equal(r.body.data.status, 409);
    };

    it('refuses to propose an event its target already has: accepted there, or copied there by a follow', async () => {
      const gala = await make('pr-a', { title: 'Otter gala' });
      const first = await propose(gala.id, 'pr-b');
      assert.equal(first.status, 201, first.text);
      await decide('pr-b', first.body.id, 'approve');
      refused(await propose(gala.id, 'pr-b'), 'network_already_there');
      assert.deepEqual(await titles('pr-b'), ['Otter gala']);
      // pr-c follows pr-a: the gala is there already, as a copy.
      await follow('pr-c', 'pr-a');
      assert.deepEqual(await titles('pr-c'), ['Otter gala']);
      refused(await propose(gala.id, 'pr-c'), 'network_already_there');
      assert.deepEqual(await titles('pr-c'), ['Otter gala']);
      const queue = await t.api.get(at('pr-c', 'admin/v1/submissions'), { as: 'admin' });
      assert.deepEqual(queue.body, [], queue.text);
    });

    it('a declined proposal is sent again only once the event changed', async () => {
      const fair = await make('pr-a', { title: 'Otter fair', start_date: '2027-07-01 10:00', end_date: '2027-07-01 12:00' });
      const first = await propose(fair.id, 'pr-b');
      assert.equal(first.status, 201, first.text);
      await decide('pr-b', first.body.id, 'reject');
      refused(await propose(fair.id, 'pr-b'), 'network_proposal_declined');
      // Another calendar did not decline it.
      const elsewhere = await t.api.post(`${network('pr-a')}/proposals`, { as: 'admin', json: { event: fair.id, to: 'hid-fol' } });
      assert.equal(elsewhere.status, 201, elsewhere.text);
      assert.equal((await t.api.post(`${events('pr-a')}/${fair.id}`, { as: 'admin', json: { title: 'Otter fair (with a market)' } })).status, 200);
      const again = await propose(fair.id, 'pr-b');
      assert.equal(again.status, 201, again.text);
      refused(await propose(fair.id, 'pr-b'), 'network_already_proposed');
    });

    it('a proposal declined before proposals kept a digest (its source’s modified time kept instead) is refused too until the event changed', async () => {
      const fete = await make('pr-a', { title: 'Heron fete', start_date: '2027-07-02 10:00', end_date: '2027-07-02 12:00' });
      const first = await propose(fete.id, 'pr-b');
      assert.equal(first.status, 201, first.text);
      await decide('pr-b', first.body.id, 'reject');
      // The row as a proposal made by an earlier version left it: the source event's modified time.
      const db = t.built.store.db;
      const source = await inCalendar(Number((await t.built.services.calendars.get('pr-a')).id), () =>
        db.selectFrom('posts').select('modified_gmt').where('id', '=', fete.id).executeTakeFirstOrThrow(),
      );
      const updated = await inCalendar(Number((await t.built.services.calendars.get('pr-b')).id), () =>
        db.updateTable('network_sources').set({ source_modified: source.modified_gmt }).where('source_event_id', '=', fete.id).where('kind', '=', 'proposal').executeTakeFirstOrThrow(),
      );
      assert.equal(Number(updated.numUpdatedRows), 1);
      refused(await propose(fete.id, 'pr-b'), 'network_proposal_declined');
      // Changed in a later second (the modified time counts seconds; the digest is why proposals keep one now).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await t.api.post(`${events('pr-a')}/${fete.id}`, { as: 'admin', json: { title: 'Heron fete (at dawn)' } })).status, 200);
      assert.equal((await propose(fete.id, 'pr-b')).status, 201);
    });

    it('a signed-in user without the role is refused a proposal with 403, not 401', async () => {
      await t.user('subscriber', 'pat');
      await t.built.services.calendars.setRole('pat', 'pr-a', 'subscriber');
      const otter = await make('pr-a', { title: 'Otter talk' });
      const r = await t.api.post(`${network('pr-a')}/proposals`, { as: 'pat', json: { event: otter.id, to: 'pr-b' } });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.body.code, 'rest_forbidden');
      assert.equal(r.body.data.status, 403);
      assert.equal((await t.api.post(`${network('pr-a')}/proposals`, { json: { event: otter.id, to: 'pr-b' } })).status, 401);
    });

    it('following again changes the categories and answers 200; a category the source lacks is refused with 400', async () => {
      const music = await t.api.post(at('fw-a', 'events/v1/categories'), { as: 'admin', json: { name: 'Music' } });
      assert.equal(music.status, 201, music.text);
      await make('fw-a', { title: 'Stoat jazz', categories: [music.body.id] });
      await make('fw-a', { title: 'Stoat poetry' });
      const first = await t.api.post(`${network('fw-b')}/follows`, { as: 'admin', json: { calendar: 'fw-a', categories: ['music'] } });
      assert.equal(first.status, 201, first.text);
      assert.deepEqual(await titles('fw-b'), ['Stoat jazz']);
      const unknown = await t.api.post(`${network('fw-b')}/follows`, { as: 'admin', json: { calendar: 'fw-a', categories: ['musik'] } });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.code, 'rest_invalid_param');
      assert.match(unknown.body.data.params.categories, /musik/);
      assert.deepEqual(
        (await followed('fw-b')).map((f) => f.categories),
        [['music']],
      );
      const again = await t.api.post(`${network('fw-b')}/follows`, { as: 'admin', json: { calendar: 'fw-a' } });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.categories, []);
      assert.equal(again.body.id, first.body.id);
      assert.deepEqual(await titles('fw-b'), ['Stoat jazz', 'Stoat poetry']);
    });

    it('following again restores the copies an unfollow trashed, those the follower trashed too (same id, slug and UID); while a follow lasts, a copy its editors trashed stays out', async () => {
      const dance = await make('rf-a', { title: 'Badger dance' });
      const film = await make('rf-a', { title: 'Badger film', start_date: '2027-05-02 20:00', end_date: '2027-05-02 22:00' });
      const copyOf = async (slug: string) => {
        const r = await t.api.get(`${events('rf-b')}/by-slug/${slug}`, { as: 'admin' });
        assert.equal(r.status, 200, r.text);
        return r.body as Json;
      };
      await follow('rf-b', 'rf-a');
      const danceCopy = await copyOf(dance.slug);
      const filmCopy = await copyOf(film.slug);
      // The follower leaves the film out.
      assert.equal((await t.api.delete(`${events('rf-b')}/${filmCopy.id}`, { as: 'admin' })).status, 200);
      assert.deepEqual(await titles('rf-b'), ['Badger dance']);
      const left = await t.api.delete(`${network('rf-b')}/follows/rf-a`, { as: 'admin' });
      assert.equal(left.status, 200, left.text);
      assert.deepEqual(await titles('rf-b'), []);
      assert.deepEqual(await trashed('rf-b'), ['Badger dance', 'Badger film']);
      // Changed at the source meanwhile: the restored copy is brought up to date.
      assert.equal((await t.api.post(`${events('rf-a')}/${dance.id}`, { as: 'admin', json: { title: 'Badger dance (late)' } })).status, 200);
      await follow('rf-b', 'rf-a');
      const back = await copyOf(dance.slug);
      assert.equal(back.id, danceCopy.id);
      assert.equal(back.slug, danceCopy.slug);
      assert.equal(back.status, 'publish');
      assert.equal(back.title, 'Badger dance (late)');
      // Read-only again: the follow holds it.
      const edit = await t.api.post(`${events('rf-b')}/${back.id}`, { as: 'admin', json: { title: 'Mine' } });
      assert.equal(edit.status, 403, edit.text);
      // The film copy the follower trashed is restored too (a new follow is a new choice), not copied
      // again beside it: the same id and slug, nothing left in the trash.
      assert.deepEqual(await trashed('rf-b'), []);
      const filmBack = await copyOf(film.slug);
      assert.equal(filmBack.id, filmCopy.id);
      assert.equal(filmBack.slug, filmCopy.slug);
      assert.deepEqual(await titles('rf-b'), ['Badger dance (late)', 'Badger film']);
      // While a follow lasts, a copy its editors trashed stays out, even withdrawn at the source and
      // published again (neither restored nor copied anew).
      assert.equal((await t.api.delete(`${events('rf-b')}/${filmCopy.id}`, { as: 'admin' })).status, 200);
      assert.equal((await t.api.post(`${events('rf-a')}/${film.id}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await t.api.post(`${events('rf-a')}/${film.id}`, { as: 'admin', json: { status: 'publish' } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('rf-b'), ['Badger dance (late)']);
      assert.deepEqual(await trashed('rf-b'), ['Badger film']);
      // Withdrawn at the source and published again: the same copy, out of the trash.
      assert.equal((await t.api.post(`${events('rf-a')}/${dance.id}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await trashed('rf-b'), ['Badger dance (late)', 'Badger film']);
      assert.equal((await t.api.post(`${events('rf-a')}/${dance.id}`, { as: 'admin', json: { status: 'publish' } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.equal((await copyOf(dance.slug)).id, danceCopy.id);
      assert.deepEqual(await trashed('rf-b'), ['Badger film']);
    });

    it('a follow does not copy again an event the follower accepted as a proposal: that copy stays the follower’s own', async () => {
      const lecture = await make('pf-a', { title: 'Lynx lecture' });
      await make('pf-a', { title: 'Lynx walk', start_date: '2027-05-03 10:00', end_date: '2027-05-03 12:00' });
      const proposed = await t.api.post(`${network('pf-a')}/proposals`, { as: 'admin', json: { event: lecture.id, to: 'pf-b' } });
      assert.equal(proposed.status, 201, proposed.text);
      const approved = await t.api.post(`${at('pf-b', 'admin/v1/submissions')}/${proposed.body.id}/approve`, { as: 'admin', json: {} });
      assert.equal(approved.status, 200, approved.text);
      const accepted = (await t.api.get(events('pf-b'), { query: { start_date: '2026-12-01' } })).body.events[0] as Json;
      await follow('pf-b', 'pf-a');
      assert.deepEqual(await titles('pf-b'), ['Lynx lecture', 'Lynx walk']);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pf-b'), ['Lynx lecture', 'Lynx walk']);
      // Still the follower's: its editors may change it, and an unfollow leaves it.
      const edit = await t.api.post(`${events('pf-b')}/${accepted.id}`, { as: 'admin', json: { title: 'Lynx lecture (room 2)' } });
      assert.equal(edit.status, 200, edit.text);
      assert.equal((await t.api.post(`${events('pf-a')}/${lecture.id}`, { as: 'admin', json: { title: 'Lynx lecture (moved)' } })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pf-b'), ['Lynx lecture (room 2)', 'Lynx walk']);
      assert.equal((await t.api.delete(`${network('pf-b')}/follows/pf-a`, { as: 'admin' })).status, 200);
      assert.deepEqual(await titles('pf-b'), ['Lynx lecture (room 2)']);
    });

    it('an event waiting in the follower’s queue is left to its moderators: declined there, the follow copies it at its next step', async () => {
      const talk = await make('pq-a', { title: 'Quail talk' });
      await make('pq-a', { title: 'Quail walk', start_date: '2027-05-03 10:00', end_date: '2027-05-03 12:00' });
      const proposed = await t.api.post(`${network('pq-a')}/proposals`, { as: 'admin', json: { event: talk.id, to: 'pq-b' } });
      assert.equal(proposed.status, 201, proposed.text);
      // Followed while the proposal waits: the follow leaves that event to the queue.
      await follow('pq-b', 'pq-a');
      assert.deepEqual(await titles('pq-b'), ['Quail walk']);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pq-b'), ['Quail walk']);
      // Declined: nothing of the source changed, yet the follow now brings the event as its copy.
      const rejected = await t.api.post(`${at('pq-b', 'admin/v1/submissions')}/${proposed.body.id}/reject`, { as: 'admin', json: { reason: 'Not for us.' } });
      assert.equal(rejected.status, 200, rejected.text);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pq-b'), ['Quail talk', 'Quail walk']);
      const copy = ((await t.api.get(events('pq-b'), { query: { start_date: '2026-12-01', search: 'Quail talk' } })).body.events as Json[])[0]!;
      const update = await t.api.post(`${events('pq-b')}/${copy.id}`, { as: 'admin', json: { title: 'mine' } });
      assert.equal(update.status, 403, 'the follow’s copy, read-only');
      assert.equal(update.body.code, 'network_copy_read_only');
      // The follow's copy is one: a later step does not copy it again.
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pq-b'), ['Quail talk', 'Quail walk']);
      // An accepted proposal is the follower's own; trashed by its editors later, the follow brings the event.
      const dance = await make('pq-a', { title: 'Quail dance', start_date: '2027-05-04 10:00', end_date: '2027-05-04 12:00' });
      const sent = await t.api.post(`${network('pq-a')}/proposals`, { as: 'admin', json: { event: dance.id, to: 'pq-b' } });
      assert.equal(sent.status, 201, sent.text);
      assert.equal((await t.api.post(`${at('pq-b', 'admin/v1/submissions')}/${sent.body.id}/approve`, { as: 'admin', json: {} })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      const accepted = ((await t.api.get(events('pq-b'), { query: { start_date: '2026-12-01', search: 'Quail dance' } })).body.events as Json[])[0]!;
      assert.equal((await t.api.post(`${events('pq-b')}/${accepted.id}`, { as: 'admin', json: { title: 'Quail dance (ours)' } })).status, 200, 'the accepted copy is the follower’s own');
      assert.equal((await t.api.delete(`${events('pq-b')}/${accepted.id}`, { as: 'admin' })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pq-b'), ['Quail dance', 'Quail talk', 'Quail walk']);
    });

    it('a copy the follower trashed, of an event its source deleted for good, is untied from the follow: the follower may keep it as its own', async () => {
      const supper = await make('pd-a', { title: 'Stoat supper' });
      await follow('pd-b', 'pd-a');
      const copy = ((await t.api.get(events('pd-b'), { query: { start_date: '2026-12-01', search: 'Stoat supper' } })).body.events as Json[])[0]!;
      assert.equal((await t.api.delete(`${events('pd-b')}/${copy.id}`, { as: 'admin' })).status, 200);
      // Deleted for good at the source (trashed, then removed).
      assert.equal((await t.api.delete(`${events('pd-a')}/${supper.id}`, { as: 'admin' })).status, 200);
      assert.equal((await t.api.delete(`${at('pd-a', 'admin/v1/events')}/${supper.id}`, { as: 'admin' })).status, 200);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      // Nothing can bring the event back: the follower's editors take the copy out of the trash and keep it.
      const kept = await t.api.post(`${events('pd-b')}/${copy.id}`, { as: 'admin', json: { status: 'publish', title: 'Stoat supper (ours)' } });
      assert.equal(kept.status, 200, kept.text);
      assert.equal((await t.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles('pd-b'), ['Stoat supper (ours)']);
    });
  },
  OPEN,
);
