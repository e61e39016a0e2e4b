/**
 * Community submissions and federation across calendars, probed as a hostile reviewer would: one
 * calendar's submissions, moderation queue, submitters, moderators' e-mails, pictures and fediverse
 * actor are never reached, changed or told through another calendar (its prefix, its host name,
 * ids and tokens of the other, a role in the other alone). Each probe that found something failed
 * before its fix:
 * - a calendar that chose SUBMISSIONS_NOTIFY=daily got no digest unless the installation's default
 *   was daily at start; a network proposal was never told to the receiving calendar's moderators;
 * - a merge trashed the calendar's own (or a follow's mirrored) venue or organizer that a submitter
 *   had named, and one anonymous submitter rewrote, read and shared another's pending venue and
 *   organizer (duplicate avoidance as the one submissions account);
 * - a category or bulk id beyond an integer column was a 500 (or PostgreSQL's raw error);
 * - a venue or organizer a moderator gave while approving stayed pending behind a published event.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, forEachStore, startServer, type TestServer } from '../support/harness.js';
import { viaHost } from '../support/raw-http.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { EVENT, OPEN } from '../support/submissions.js';
import { plainImage } from '../support/media.js';
import { startIndependentFollower, type IndependentFollower } from './federation-independent-follower.js';

const NORTH_HOST = 'events.north.example';
const SOUTH_HOST = 'events.south.example';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until a calendar's host name is known to the server (it learns them in the background). */
async function hostKnown(t: TestServer, host: string, slug: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await viaHost(t, `${t.config.restRoot}/`, host);
    if (r.status === 200 && r.text.includes(`/${slug}`) === false && JSON.parse(r.text).url?.includes(host)) return;
    await sleep(50);
  }
  assert.fail(`${host} never answered as ${slug}`);
}

describe('probes: submissions across calendars', () => {
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startSmtp();
  });
  after(async () => {
    await smtp?.close();
  });

  for (const kind of STORES) {
    describe(`[${kind.name}]`, () => {
      let t: TestServer;
      const sub = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/submissions/v1${path}`;
      const mod = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
      const events = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;
      /** North's pending submission (its id, token and event). */
      let northSub: { id: number; token: string; eventId: number };

      before(async () => {
        t = await startServer(kind, { ...OPEN, SMTP_URL: smtp.url, SMTP_FROM: 'calendar@example.org' });
        await t.built.services.calendars.create({ slug: 'north', name: 'North side', host: NORTH_HOST });
        await t.built.services.calendars.create({ slug: 'south', name: 'South side', host: SOUTH_HOST });
        // Nora moderates north only, Sid south only; Dean edits the default calendar.
        await t.built.services.users.add({ login: 'nora', role: 'subscriber', password: 'nora-pw', email: 'nora@north.example' });
        await t.built.services.users.add({ login: 'sid', role: 'subscriber', password: 'sid-pw', email: 'sid@south.example' });
        await t.built.services.users.add({ login: 'dean', role: 'editor', password: 'dean-pw', email: 'dean@default.example' });
        await t.built.services.calendars.setRole('nora', 'north', 'editor');
        await t.built.services.calendars.setRole('sid', 'south', 'editor');
        const made = await t.api.post(sub('/c/north', '/submissions'), { json: { ...EVENT, title: 'North street party', email: 'ann@example.org' } });
        assert.equal(made.status, 201, made.text);
        const seen = await t.api.get(mod('/c/north', `/submissions/${made.body.id}`), { as: 'admin' });
        northSub = { id: made.body.id, token: made.body.token, eventId: seen.body.event_id };
        await hostKnown(t, SOUTH_HOST, 'south');
        await hostKnown(t, NORTH_HOST, 'north');
      });
      after(async () => {
        await t?.close();
      });

      it('a moderator of south cannot read, approve, reject, ask changes of or bulk-decide north’s submission by its id, through south’s prefix or host', async () => {
        const { id } = northSub;
        const one = await t.api.get(mod('/c/south', `/submissions/${id}`), { as: 'sid:sid-pw' });
        assert.equal(one.status, 404, one.text);
        assert.equal(one.body.code, 'submission_not_found');
        for (const [action, json] of [
          ['approve', {}],
          ['reject', { reason: 'no' }],
          ['request-changes', { reason: 'more' }],
        ] as const) {
          const res = await t.api.post(mod('/c/south', `/submissions/${id}/${action}`), { as: 'sid:sid-pw', json });
          assert.equal(res.status, 404, `${action}: ${res.text}`);
          // Through south's own host name too.
          const viaSouth = await viaHost(t, `${t.config.restRoot}/calendar/admin/v1/submissions/${id}/${action}`, SOUTH_HOST, {
            method: 'POST',
            headers: { authorization: 'Basic ' + Buffer.from('sid:sid-pw').toString('base64'), 'content-type': 'application/json' },
            body: JSON.stringify(json),
          });
          assert.equal(viaSouth.status, 404, `${action} on south's host: ${viaSouth.text}`);
        }
        const bulk = await t.api.post(mod('/c/south', '/submissions/bulk'), { as: 'sid:sid-pw', json: { ids: [id], action: 'reject', reason: 'no' } });
        assert.equal(bulk.status, 200, bulk.text);
        assert.equal(bulk.body[0].ok, false, bulk.text);
        assert.equal(bulk.body[0].error.code, 'submission_not_found');
        // Through north's own prefix, Sid (nobody there) is refused.
        const inNorth = await t.api.post(mod('/c/north', `/submissions/${id}/approve`), { as: 'sid:sid-pw', json: {} });
        assert.equal(inNorth.status, 403, inNorth.text);
        // Nothing changed: north's moderator still sees it pending, its event pending.
        const still = await t.api.get(mod('/c/north', `/submissions/${id}`), { as: 'nora:nora-pw' });
        assert.equal(still.status, 200, still.text);
        assert.equal(still.body.status, 'pending');
        assert.equal(still.body.log.length, 1, JSON.stringify(still.body.log));
        const ev = await t.api.get(events('/c/north', `/events/${northSub.eventId}`), { as: 'nora:nora-pw' });
        assert.equal(ev.body.status, 'pending', ev.text);
      });

      it('south’s queue, log and submitter data hold nothing of north’s submission or its submitter', async () => {
        const queue = await t.api.get(mod('/c/south', '/submissions'), { as: 'sid:sid-pw', query: { status: 'any' } });
        assert.equal(queue.status, 200, queue.text);
        assert.equal(queue.body.length, 0, queue.text);
        const log = await t.api.get(mod('/c/south', '/submissions/log'), { as: 'sid:sid-pw', query: { submission: northSub.id } });
        assert.equal(log.status, 200, log.text);
        assert.equal(log.body.length, 0, log.text);
        // South's administrator exports and erases by e-mail: north's submitter is none of south's.
        await t.built.services.users.add({ login: 'sal', role: 'subscriber', password: 'sal-pw', email: 'sal@south.example' });
        await t.built.services.calendars.setRole('sal', 'south', 'administrator');
        const exported = await t.api.get(mod('/c/south', '/submitter-data'), { as: 'sal:sal-pw', query: { email: 'ann@example.org' } });
        assert.equal(exported.status, 200, exported.text);
        assert.equal(exported.body.submissions.length, 0, exported.text);
        const erased = await t.api.delete(mod('/c/south', '/submitter-data'), { as: 'sal:sal-pw', query: { email: 'ann@example.org' } });
        assert.equal(erased.status, 200, erased.text);
        assert.equal(erased.body.erased, 0, erased.text);
        const kept = await t.api.get(mod('/c/north', `/submissions/${northSub.id}`), { as: 'nora:nora-pw' });
        assert.equal(kept.body.submitter.email, 'ann@example.org', 'south’s erasure reached north’s submitter');
        assert.equal(kept.body.submitter.erased, null, kept.text);
      });

      it('north’s private link answers nothing through south (API, status page, edit, withdraw), on its prefix and its host', async () => {
        const { token } = northSub;
        assert.equal((await t.api.get(sub('/c/south', `/submissions/${token}`))).status, 404);
        assert.equal((await t.api.put(sub('/c/south', `/submissions/${token}`), { json: { title: 'Hijacked' } })).status, 404);
        assert.equal((await t.api.delete(sub('/c/south', `/submissions/${token}`))).status, 404);
        const status = await fetch(`${t.origin}/c/south/events/submit/status/${token}`);
        assert.equal(status.status, 404);
        assert.doesNotMatch(await status.text(), /North street party/);
        const onHost = await viaHost(t, `/events/submit/status/${token}`, SOUTH_HOST);
        assert.equal(onHost.status, 404);
        assert.doesNotMatch(onHost.text, /North street party/);
        const withdraw = await viaHost(t, `/events/submit/status/${token}`, SOUTH_HOST, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: '_action=withdraw',
        });
        assert.equal(withdraw.status, 404);
        // Still pending, with its title, in north.
        const mine = await t.api.get(sub('/c/north', `/submissions/${token}`));
        assert.equal(mine.status, 200, mine.text);
        assert.equal(mine.body.status, 'pending');
        assert.equal(mine.body.event.title, 'North street party');
      });

      it('a submission to south naming north’s venue, organizer or categories is refused, and nothing of north is linked', async () => {
        const venue = await t.api.post(events('/c/north', '/venues'), { as: 'admin', json: { venue: 'North hall', status: 'publish' } });
        const organizer = await t.api.post(events('/c/north', '/organizers'), { as: 'admin', json: { organizer: 'North club', status: 'publish' } });
        const category = await t.api.post(events('/c/north', '/categories'), { as: 'admin', json: { name: 'North music' } });
        for (const [field, value] of [
          ['venue', venue.body.id],
          ['organizer', organizer.body.id],
          ['categories', [category.body.id]],
        ] as const) {
          const res = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: `South with ${field}`, [field]: value } });
          assert.equal(res.status, 400, `${field}: ${res.status} ${res.text}`);
          assert.equal(res.body.code, 'rest_invalid_param', res.text);
        }
        // The form offers south's own records only.
        const form = await viaHost(t, '/events/submit/', SOUTH_HOST);
        assert.equal(form.status, 200);
        for (const name of ['North hall', 'North club', 'North music']) assert.ok(!form.text.includes(name), `south’s form offers ${name}`);
        const queue = await t.api.get(mod('/c/south', '/submissions'), { as: 'sid:sid-pw', query: { status: 'any' } });
        assert.equal(queue.body.length, 0, queue.text);
      });

      it('a moderator of south approving south’s submission cannot merge it into north’s venue or organizer, nor edit in north’s category', async () => {
        const made = await t.api.post(sub('/c/south', '/submissions'), {
          json: { ...EVENT, title: 'South fair', venue: { venue: 'South square' }, organizer: { organizer: 'South friends' } },
        });
        assert.equal(made.status, 201, made.text);
        const northVenue = (await t.api.get(events('/c/north', '/venues'), { as: 'admin' })).body.venues[0].id as number;
        const northOrganizer = (await t.api.get(events('/c/north', '/organizers'), { as: 'admin' })).body.organizers[0].id as number;
        const northCategory = (await t.api.get(events('/c/north', '/categories'), { as: 'admin', query: { hide_empty: 'false' } })).body.categories[0].id as number;
        for (const json of [{ merge_venue: northVenue }, { merge_organizers: [northOrganizer] }, { event: { categories: [northCategory] } }, { event: { venue: northVenue } }]) {
          const res = await t.api.post(mod('/c/south', `/submissions/${made.body.id}/approve`), { as: 'sid:sid-pw', json });
          assert.equal(res.status, 400, `${JSON.stringify(json)}: ${res.status} ${res.text}`);
        }
        const still = await t.api.get(mod('/c/south', `/submissions/${made.body.id}`), { as: 'sid:sid-pw' });
        assert.equal(still.body.status, 'pending', still.text);
        // North's venue and organizer were not touched (not trashed, not merged into).
        const venue = await t.api.get(events('/c/north', `/venues/${northVenue}`), { as: 'admin' });
        assert.equal(venue.body.status, 'publish');
      });

      it('a submission naming an existing venue or organizer of its calendar (by name) does not let a merge trash that record', async () => {
        // Published records of south, each used by an event of south already.
        const hall = await t.api.post(events('/c/south', '/venues'), { as: 'admin', json: { venue: 'South town hall', status: 'publish' } });
        const band = await t.api.post(events('/c/south', '/organizers'), { as: 'admin', json: { organizer: 'South brass band', status: 'publish' } });
        const used = await t.api.post(events('/c/south', '/events'), {
          as: 'admin',
          json: { title: 'South concert', start_date: '2031-09-01 20:00', end_date: '2031-09-01 22:00', status: 'publish', venue: hall.body.id, organizer: [band.body.id] },
        });
        assert.equal(used.status, 201, used.text);
        const other = await t.api.post(events('/c/south', '/venues'), { as: 'admin', json: { venue: 'South park', status: 'publish' } });
        const otherBand = await t.api.post(events('/c/south', '/organizers'), { as: 'admin', json: { organizer: 'South choir', status: 'publish' } });
        // A submitter types the same names as new records.
        const made = await t.api.post(sub('/c/south', '/submissions'), {
          json: { ...EVENT, title: 'South brass evening', venue: { venue: 'South town hall', city: 'Elsewhere' }, organizer: { organizer: 'South brass band' } },
        });
        assert.equal(made.status, 201, made.text);
        // The queue calls new only what the submission made (pending), never the calendar's records of the same name.
        const queued = await t.api.get(mod('/c/south', `/submissions/${made.body.id}`), { as: 'sid:sid-pw' });
        assert.notEqual(queued.body.new_venue_id, hall.body.id, queued.text);
        assert.ok(!queued.body.new_organizer_ids.includes(band.body.id), queued.text);
        assert.equal(queued.body.event.venue.status, 'pending', queued.text);
        const approved = await t.api.post(mod('/c/south', `/submissions/${made.body.id}/approve`), {
          as: 'sid:sid-pw',
          json: { merge_venue: other.body.id, merge_organizers: [otherBand.body.id] },
        });
        assert.equal(approved.status, 200, approved.text);
        // The merge put the chosen records on the event, and trashed nothing that was not the submission's own.
        const venue = await t.api.get(events('/c/south', `/venues/${hall.body.id}`), { as: 'admin' });
        assert.equal(venue.body.status, 'publish', `a merge trashed south's own venue: ${venue.text}`);
        const organizer = await t.api.get(events('/c/south', `/organizers/${band.body.id}`), { as: 'admin' });
        assert.equal(organizer.body.status, 'publish', `a merge trashed south's own organizer: ${organizer.text}`);
        const concert = await t.api.get(events('/c/south', `/events/${used.body.id}`));
        assert.equal(concert.body.venue?.id, hall.body.id, concert.text);
        assert.deepEqual(
          concert.body.organizer.map((o: { id: number }) => o.id),
          [band.body.id],
        );
      });

      it('a submission naming a venue mirrored from a followed calendar does not let a merge take it off the follow’s copies', async () => {
        const harbour = await t.api.post(events('/c/north', '/venues'), { as: 'admin', json: { venue: 'North harbour', status: 'publish' } });
        const sail = await t.api.post(events('/c/north', '/events'), {
          as: 'admin',
          json: { title: 'North sail day', start_date: '2031-09-10 10:00', end_date: '2031-09-10 16:00', status: 'publish', venue: harbour.body.id },
        });
        assert.equal(sail.status, 201, sail.text);
        const follow = await t.api.post(`${t.origin}/c/south${t.config.restRoot}/calendar/network/v1/follows`, { as: 'admin', json: { calendar: 'north' } });
        assert.ok(follow.status === 201 || follow.status === 200, follow.text);
        const copies = await t.api.get(events('/c/south', '/events'), { query: { search: 'North sail day', start_date: '2031-01-01', end_date: '2031-12-31' } });
        const copy = copies.body.events.find((e: { title: string }) => e.title === 'North sail day');
        assert.ok(copy?.venue?.id, copies.text);
        const mirror = copy.venue.id as number;
        const park = (await t.api.get(events('/c/south', '/venues'), { as: 'admin', query: { search: 'South park' } })).body.venues[0].id as number;
        const made = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'Harbour picnic', venue: { venue: 'North harbour' } } });
        assert.equal(made.status, 201, made.text);
        const approved = await t.api.post(mod('/c/south', `/submissions/${made.body.id}/approve`), { as: 'sid:sid-pw', json: { merge_venue: park } });
        assert.equal(approved.status, 200, approved.text);
        const kept = await t.api.get(events('/c/south', `/venues/${mirror}`), { as: 'admin' });
        assert.equal(kept.body.status, 'publish', `the mirrored venue was trashed by a submission's merge: ${kept.text}`);
        const still = await t.api.get(events('/c/south', `/events/${copy.id}`));
        assert.equal(still.body.venue?.id, mirror, still.text);
        assert.equal((await t.api.delete(`${t.origin}/c/south${t.config.restRoot}/calendar/network/v1/follows/north`, { as: 'admin' })).status, 200);
      });

      it('ids beyond an integer column are refused as any unknown id, on both stores (a category id was a 500 on PostgreSQL, a bulk id its raw error)', async () => {
        const big = '2147483648';
        for (const categories of [[big], big, ['9999999999']]) {
          const res = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'South big ids', categories } });
          assert.equal(res.status, 400, `${JSON.stringify(categories)}: ${res.text}`);
          assert.equal(res.body.code, 'rest_invalid_param', res.text);
          assert.ok(res.body.data.params.categories, res.text);
        }
        const made = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'South fine ids' } });
        assert.equal(made.status, 201, made.text);
        const edited = await t.api.put(sub('/c/south', `/submissions/${made.body.token}`), { json: { categories: [big] } });
        assert.equal(edited.status, 400, edited.text);
        const approve = await t.api.post(mod('/c/south', `/submissions/${made.body.id}/approve`), { as: 'sid:sid-pw', json: { event: { categories: [big] } } });
        assert.equal(approve.status, 400, approve.text);
        assert.equal(approve.body.code, 'rest_invalid_param', approve.text);
        const bulk = await t.api.post(mod('/c/south', '/submissions/bulk'), { as: 'sid:sid-pw', json: { ids: [big, made.body.id], action: 'request_changes', reason: 'Which hall?' } });
        assert.equal(bulk.status, 200, bulk.text);
        assert.deepEqual(bulk.body[0], { id: Number(big), ok: false, error: { code: 'submission_not_found', message: bulk.body[0].error.message } }, bulk.text);
        assert.deepEqual(bulk.body[1], { id: made.body.id, ok: true, status: 'changes_requested' }, bulk.text);
      });

      it('one submitter cannot rewrite, read or trash the new venue and organizer another submitter is proposing', async () => {
        const first = await t.api.post(sub('/c/south', '/submissions'), {
          json: {
            ...EVENT,
            title: 'Jazz at the quay',
            venue: { venue: 'Quay stage', address: '1 Private lane' },
            organizer: { organizer: 'Quay jazz club', email: 'club@quay.example', website: 'https://quay.example' },
          },
        });
        assert.equal(first.status, 201, first.text);
        // Another anonymous submitter names the same venue and organizer, with details of their own.
        const second = await t.api.post(sub('/c/south', '/submissions'), {
          json: {
            ...EVENT,
            title: 'Not jazz at the quay',
            email: 'mallory@example.org',
            venue: { venue: 'Quay stage', address: '2 Elsewhere' },
            organizer: { organizer: 'Quay jazz club', email: 'mallory@example.org', website: 'https://mallory.example' },
          },
        });
        assert.equal(second.status, 201, second.text);
        const mine = await t.api.get(sub('/c/south', `/submissions/${first.body.token}`));
        assert.equal(mine.body.event.venue.address, '1 Private lane', `another submitter rewrote the venue: ${mine.text}`);
        assert.equal(mine.body.event.organizer[0].email, 'club@quay.example', `another submitter rewrote the organizer: ${mine.text}`);
        assert.equal(mine.body.event.organizer[0].website, 'https://quay.example', mine.text);
        const theirs = await t.api.get(sub('/c/south', `/submissions/${second.body.token}`));
        assert.ok(!theirs.text.includes('1 Private lane') && !theirs.text.includes('club@quay.example'), `another submitter reads the first one's records: ${theirs.text}`);
        // Rejecting the second leaves the first's records pending, and approving the first publishes them as sent.
        assert.equal((await t.api.post(mod('/c/south', `/submissions/${second.body.id}/reject`), { as: 'sid:sid-pw', json: { reason: 'Duplicate' } })).status, 200);
        const approved = await t.api.post(mod('/c/south', `/submissions/${first.body.id}/approve`), { as: 'sid:sid-pw', json: {} });
        assert.equal(approved.status, 200, approved.text);
        const event = await t.api.get(events('/c/south', `/events/${approved.body.event_id}`));
        assert.equal(event.body.venue?.venue, 'Quay stage', event.text);
        assert.equal(event.body.venue?.address, '1 Private lane', event.text);
        assert.equal(event.body.organizer?.[0]?.website, 'https://quay.example', event.text);
      });

      it('a moderator who gives a new venue and organizer while approving publishes them with the event', async () => {
        const made = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'South lantern walk' } });
        assert.equal(made.status, 201, made.text);
        const approved = await t.api.post(mod('/c/south', `/submissions/${made.body.id}/approve`), {
          as: 'sid:sid-pw',
          json: { event: { venue: { venue: 'Lantern square' }, organizer: { organizer: 'Lantern friends' } } },
        });
        assert.equal(approved.status, 200, approved.text);
        const event = await t.api.get(events('/c/south', `/events/${approved.body.event_id}`));
        assert.equal(event.status, 200, event.text);
        assert.equal(event.body.venue?.venue, 'Lantern square', `the event is public, its venue not: ${event.text}`);
        assert.equal(event.body.organizer?.[0]?.organizer, 'Lantern friends', event.text);
      });

      it('a suspended calendar takes no submission and shows no form or status page (503), and is proposed nothing', async () => {
        await t.built.services.calendars.create({ slug: 'east', name: 'East side' });
        await t.built.services.users.add({ login: 'eve', role: 'subscriber', password: 'eve-pw' });
        await t.built.services.calendars.setRole('eve', 'east', 'editor');
        const made = await t.api.post(sub('/c/east', '/submissions'), { json: { ...EVENT, title: 'East party' } });
        assert.equal(made.status, 201, made.text);
        const northEvent = await t.api.post(events('/c/north', '/events'), {
          as: 'admin',
          json: { title: 'North concert', start_date: '2031-07-01 20:00', end_date: '2031-07-01 22:00', status: 'publish' },
        });
        assert.equal(northEvent.status, 201, northEvent.text);
        await t.built.services.calendars.update('east', { status: 'suspended' });
        for (const [method, path] of [
          ['GET', '/c/east/events/submit/'],
          ['POST', '/c/east/events/submit/'],
          ['GET', `/c/east/events/submit/status/${made.body.token}`],
          ['GET', `/c/east${t.config.restRoot}/calendar/submissions/v1/submissions/${made.body.token}`],
          ['POST', `/c/east${t.config.restRoot}/calendar/submissions/v1/submissions`],
        ] as const) {
          const res = await fetch(`${t.origin}${path}`, {
            method,
            ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...EVENT, title: 'While suspended' }) } : {}),
          });
          assert.equal(res.status, 503, `${method} ${path}: ${res.status}`);
          assert.doesNotMatch(await res.text(), /East party/);
        }
        const proposed = await t.api.post(`${t.origin}/c/north${t.config.restRoot}/calendar/network/v1/proposals`, { as: 'admin', json: { event: northEvent.body.id, to: 'east' } });
        assert.equal(proposed.status, 409, proposed.text);
        assert.equal(proposed.body.code, 'network_calendar_suspended');
        await t.built.services.calendars.update('east', { status: 'active' });
        const queue = await t.api.get(mod('/c/east', '/submissions'), { as: 'eve:eve-pw', query: { status: 'any' } });
        assert.deepEqual(
          queue.body.map((s: { event: { title: string } }) => s.event.title),
          ['East party'],
        );
      });

      it('tells a new submission to its own calendar’s moderators only, with its own name and links', async () => {
        smtp.messages.length = 0;
        const made = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'South night market', name: 'Ned Submitter', email: 'ned@example.org' } });
        assert.equal(made.status, 201, made.text);
        const [mail] = await smtp.waitFor((m) => m.subject.includes('to moderate'));
        // South's editor and the network's administrators (none here has an address): not north's, not the default calendar's editor.
        assert.deepEqual(
          mail!.to,
          ['sid@south.example', 'sal@south.example'].filter((a) => mail!.to.includes(a)),
        );
        assert.ok(mail!.to.includes('sid@south.example'), JSON.stringify(mail!.to));
        for (const other of ['nora@north.example', 'dean@default.example']) assert.ok(!mail!.to.includes(other), `told ${other}: ${JSON.stringify(mail!.to)}`);
        assert.match(mail!.subject, /^\[South side\]/);
        assert.match(mail!.text, /South night market/);
        assert.doesNotMatch(mail!.text, /North street party/);
        assert.match(mail!.text, new RegExp(`https?://${SOUTH_HOST.replace(/\./g, '\\.')}/`));
        // The submitter's receipt links to south's status page.
        const [receipt] = await smtp.waitFor((m) => m.to.includes('ned@example.org'));
        assert.match(receipt!.text, new RegExp(`${SOUTH_HOST.replace(/\./g, '\\.')}/events/submit/status/${made.body.token}`));
      });

      it('south’s SUBMISSIONS_NOTIFY_TO is south’s alone: north’s submissions are not told to it', async () => {
        const set = await t.api.patch(mod('/c/south', '/settings'), { as: 'sal:sal-pw', json: { SUBMISSIONS_NOTIFY_TO: 'south-desk@example.org' } });
        assert.equal(set.status, 200, set.text);
        smtp.messages.length = 0;
        const made = await t.api.post(sub('/c/north', '/submissions'), { json: { ...EVENT, title: 'North regatta', email: 'rita@example.org' } });
        assert.equal(made.status, 201, made.text);
        const [mail] = await smtp.waitFor((m) => m.subject.includes('to moderate'));
        assert.ok(mail!.to.includes('nora@north.example'), JSON.stringify(mail!.to));
        assert.ok(!mail!.to.includes('south-desk@example.org'), JSON.stringify(mail!.to));
        await sleep(200);
        assert.ok(!smtp.messages.some((m) => m.to.includes('south-desk@example.org')), 'south’s desk heard of north’s submission');
      });

      it('a picture sent with south’s form is south’s: north’s prefix and host serve none of its files', async () => {
        const formPage = await viaHost(t, '/events/submit/', SOUTH_HOST);
        const stamp = /name="_started" value="([^"]*)"/.exec(formPage.text)![1]!;
        const body = new FormData();
        for (const [k, v] of Object.entries({
          title: 'South pictured',
          start_date: '2031-07-14',
          start_time: '20:00',
          end_date: '2031-07-14',
          end_time: '22:00',
          timezone: 'Europe/Paris',
          name: 'Pia',
          email: 'pia@example.org',
          homepage: '',
          _started: stamp,
        }))
          body.append(k, v);
        body.append('picture', new Blob([new Uint8Array(await plainImage(64, 48))], { type: 'image/png' }), 'p.png');
        const res = await fetch(`${t.origin}/c/south/events/submit/`, { method: 'POST', redirect: 'manual', body });
        assert.equal(res.status, 303, await res.text());
        const queue = await t.api.get(mod('/c/south', '/submissions'), { as: 'sid:sid-pw' });
        const pictured = queue.body.find((s: { event: { title: string } }) => s.event.title === 'South pictured');
        const url = String(pictured.event.image);
        assert.ok(url.includes('/c/south/media/') || url.includes(SOUTH_HOST), JSON.stringify(pictured));
        const file = new URL(url).pathname.replace(/^\/c\/south/, '');
        assert.equal((await fetch(`${t.origin}/c/south${file}`)).status, 200);
        assert.equal((await fetch(`${t.origin}/c/north${file}`)).status, 404);
        assert.equal((await fetch(`${t.origin}${file}`)).status, 404);
        assert.equal((await viaHost(t, file, NORTH_HOST)).status, 404);
        // North's media library lists nothing of it.
        const library = await t.api.get(mod('/c/north', '/media'), { as: 'admin' });
        assert.ok(!JSON.stringify(library.body).includes(file.split('/')[2]!), library.text);
      });
    });
  }
});

describe('probes: each calendar’s own notification setting', () => {
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startSmtp();
  });
  after(async () => {
    await smtp?.close();
  });

  for (const kind of STORES) {
    describe(`[${kind.name}]`, () => {
      let t: TestServer;
      const sub = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/submissions/v1${path}`;
      const mod = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
      const moderation = (m: { subject: string }) => m.subject.includes('to moderate');

      before(async () => {
        // The installation's default: immediate (SUBMISSIONS_NOTIFY unset, so each calendar may choose).
        t = await startServer(kind, { ...OPEN, SMTP_URL: smtp.url });
        await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
        await t.built.services.calendars.create({ slug: 'south', name: 'South side' });
        await t.built.services.users.add({ login: 'nora', role: 'subscriber', password: 'nora-pw', email: 'nora@north.example' });
        await t.built.services.users.add({ login: 'sid', role: 'subscriber', password: 'sid-pw', email: 'sid@south.example' });
        await t.built.services.calendars.setRole('nora', 'north', 'editor');
        await t.built.services.calendars.setRole('sid', 'south', 'administrator');
      });
      after(async () => {
        await t?.close();
      });

      it('a calendar that chose a daily digest gets one (the installation’s immediate does not leave its moderators untold)', async () => {
        const set = await t.api.patch(mod('/c/south', '/settings'), { as: 'sid:sid-pw', json: { SUBMISSIONS_NOTIFY: 'daily' } });
        assert.equal(set.status, 200, set.text);
        smtp.messages.length = 0;
        const south = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'South digest item', email: 'sue@example.org' } });
        assert.equal(south.status, 201, south.text);
        const north = await t.api.post(sub('/c/north', '/submissions'), { json: { ...EVENT, title: 'North at once', email: 'nat@example.org' } });
        assert.equal(north.status, 201, north.text);
        // North (immediate) is told at once; south (daily) not yet.
        await smtp.waitFor((m) => moderation(m) && m.to.includes('nora@north.example'));
        await smtp.waitFor((m) => m.to.includes('sue@example.org'));
        assert.equal(smtp.messages.filter((m) => m.to.includes('sid@south.example')).length, 0, 'south was told at once though it chose a digest');
        const digest = t.built.submissionJobs?.digest;
        assert.ok(digest, 'no digest job: a calendar that chose SUBMISSIONS_NOTIFY=daily is never told of its submissions');
        const run = await digest.runOnce();
        assert.equal(run.value, 1, 'south’s one submission, not north’s (told already)');
        const [mail] = await smtp.waitFor((m) => moderation(m) && m.to.includes('sid@south.example'));
        assert.match(mail!.subject, /^\[South side\] 1 new event to moderate$/);
        assert.match(mail!.text, /South digest item/);
        assert.doesNotMatch(mail!.text, /North at once/);
        assert.equal(smtp.messages.filter((m) => moderation(m) && m.to.includes('nora@north.example')).length, 1, 'north was told twice');
        assert.equal((await digest.runOnce()).value, 0);
      });

      it('a calendar that turned its notifications off after choosing a digest is sent none', async () => {
        smtp.messages.length = 0;
        const south = await t.api.post(sub('/c/south', '/submissions'), { json: { ...EVENT, title: 'South quiet item', email: 'sue@example.org' } });
        assert.equal(south.status, 201, south.text);
        assert.equal((await t.api.patch(mod('/c/south', '/settings'), { as: 'sid:sid-pw', json: { SUBMISSIONS_NOTIFY: 'off' } })).status, 200);
        assert.equal((await t.built.submissionJobs!.digest!.runOnce()).value, 0);
        await sleep(200);
        assert.equal(smtp.messages.filter(moderation).length, 0, JSON.stringify(smtp.messages.map((m) => [m.to, m.subject])));
      });

      it('a proposal from another calendar is told to the receiving calendar’s moderators, as a submission is', async () => {
        const made = await t.api.post(`${t.origin}/c/north${t.config.restRoot}/calendar/events/v1/events`, {
          as: 'admin',
          json: { title: 'North proposes', start_date: '2031-08-01 20:00', end_date: '2031-08-01 22:00', status: 'publish' },
        });
        assert.equal(made.status, 201, made.text);
        // Back to immediate in south.
        assert.equal((await t.api.patch(mod('/c/south', '/settings'), { as: 'sid:sid-pw', json: { SUBMISSIONS_NOTIFY: 'immediate' } })).status, 200);
        smtp.messages.length = 0;
        const proposed = await t.api.post(`${t.origin}/c/north${t.config.restRoot}/calendar/network/v1/proposals`, { as: 'nora:nora-pw', json: { event: made.body.id, to: 'south' } });
        assert.equal(proposed.status, 201, proposed.text);
        const [mail] = await smtp.waitFor((m) => moderation(m) && m.to.includes('sid@south.example'), 1, 5_000);
        assert.match(mail!.text, /North proposes/);
        // Told to south's moderators only, not to north's.
        assert.ok(!mail!.to.includes('nora@north.example'), JSON.stringify(mail!.to));
      });
    });
  }
});

const FEDERATION = { FEDERATION: 'true', FEDERATION_HANDLE: 'calendar', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true', FEDERATION_RETRY_SCHEDULE: '300ms,300ms,300ms' };
const AP = { accept: 'application/activity+json' };

forEachStore(
  'probes: federation across calendars',
  (t) => {
    const peers: IndependentFollower[] = [];
    const admin = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
    const events = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;
    const actorsOf = (body: any) => (Array.isArray(body) ? body : (body.items ?? body.followers)).map((f: any) => f.actor).sort();
    let host: string;
    let northActor: any;
    let southActor: any;
    let ivy: IndependentFollower;
    let ivyNorthFollow: string;

    before(async () => {
      host = new URL(t.origin).host;
      await t.built.services.calendars.create({ slug: 'north', name: 'North side', host: NORTH_HOST });
      await t.built.services.calendars.create({ slug: 'south', name: 'South side', host: SOUTH_HOST });
      await t.built.services.users.add({ login: 'nora', role: 'subscriber', password: 'nora-pw' });
      await t.built.services.calendars.setRole('nora', 'north', 'editor');
      ivy = await startIndependentFollower('ivy', { host: '127.0.0.181' });
      peers.push(ivy);
      northActor = await ivy.lookUp(`acct:north@${host}`, t.origin);
      southActor = await ivy.lookUp(`acct:south@${host}`, t.origin);
      await hostKnown(t, SOUTH_HOST, 'south');
    });
    after(async () => {
      for (const p of peers) await p.close();
    });

    it('a Follow of north sent to south’s inbox makes no follower of either; south’s own Follow does', async () => {
      const misaimed = await ivy.send(southActor.inbox, { id: `${ivy.origin}/follows/misaimed`, type: 'Follow', object: northActor.id });
      assert.ok(misaimed >= 200 && misaimed < 300, String(misaimed));
      // A Follow of south then, through the same queue: once accepted, the first was handled too.
      await ivy.follow(southActor);
      await ivy.waitFor((a) => a.type === 'Accept' && a.json.actor === southActor.id);
      await sleep(300);
      assert.ok(!ivy.received.some((a) => a.type === 'Accept' && a.json.actor === northActor.id), 'north accepted a Follow sent to south’s inbox');
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/north', '/federation/followers'), { as: 'admin' })).body), []);
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/south', '/federation/followers'), { as: 'admin' })).body), [ivy.actorId]);
      const accept = ivy.received.find((a) => a.type === 'Accept' && a.json.actor === southActor.id)!;
      assert.notEqual(accept.json.object?.id ?? accept.json.object, `${ivy.origin}/follows/misaimed`, 'south accepted the Follow of north');
    });

    it('an Undo of the Follow of north sent to south’s inbox leaves both follows; north’s own inbox ends north’s alone', async () => {
      ivyNorthFollow = await ivy.follow(northActor);
      await ivy.waitFor((a) => a.type === 'Accept' && a.json.actor === northActor.id);
      const undo = { id: `${ivy.origin}/undo/1`, type: 'Undo', object: { id: ivyNorthFollow, type: 'Follow', actor: ivy.actorId, object: northActor.id } };
      const status = await ivy.send(southActor.inbox, undo);
      assert.ok(status >= 200 && status < 300, String(status));
      await sleep(1_500);
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/south', '/federation/followers'), { as: 'admin' })).body), [ivy.actorId], 'south lost its follower');
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/north', '/federation/followers'), { as: 'admin' })).body), [ivy.actorId], 'north lost its follower through south’s inbox');
      // The same Undo sent to north's inbox ends north's follow, and north's alone.
      assert.ok((await ivy.send(northActor.inbox, { ...undo, id: `${ivy.origin}/undo/2` })) < 300);
      for (let i = 0; i < 200 && actorsOf((await t.api.get(admin('/c/north', '/federation/followers'), { as: 'admin' })).body).length > 0; i++) await sleep(50);
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/north', '/federation/followers'), { as: 'admin' })).body), []);
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/south', '/federation/followers'), { as: 'admin' })).body), [ivy.actorId]);
      // North is followed again for what follows.
      await ivy.follow(northActor);
      await ivy.waitFor((a) => a.type === 'Accept' && a.json.actor === northActor.id && a !== ivy.received.find((b) => b.type === 'Accept' && b.json.actor === northActor.id));
    });

    it('north’s follower gets north’s public events only: none of south’s, none of north’s drafts, private, pending, scheduled, hidden or protected ones', async () => {
      const publish = (prefix: string, title: string, extra: Record<string, unknown> = {}) =>
        t.api.post(events(prefix, '/events'), { as: 'admin', json: { title, start_date: '2031-05-14 19:30', end_date: '2031-05-14 22:00', status: 'publish', ...extra } });
      for (const [title, extra] of [
        ['North draft', { status: 'draft' }],
        ['North private', { status: 'private' }],
        ['North pending', { status: 'pending' }],
        ['North scheduled', { date: '2035-01-01 12:00:00' }],
        ['North hidden', { hide_from_listings: true }],
        ['North protected', { password: 'secret' }],
      ] as const)
        assert.equal((await publish('/c/north', title, extra)).status, 201, title);
      const southPublic = await publish('/c/south', 'South public');
      const northPublic = await publish('/c/north', 'North public');
      await ivy.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'North public');
      await ivy.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'South public');
      await sleep(1_000);
      const fromNorth = ivy.received.filter((a) => a.json.actor === northActor.id && a.type === 'Create').map((a) => a.json.object.name);
      assert.deepEqual(fromNorth, ['North public']);
      const fromSouth = ivy.received.filter((a) => a.json.actor === southActor.id && a.type === 'Create').map((a) => a.json.object.name);
      assert.deepEqual(fromSouth, ['South public']);
      // Each outbox lists its own calendar's public events only.
      const northOutbox = await (await fetch(`${northActor.outbox}?page=1`, { headers: AP })).json();
      assert.deepEqual(
        northOutbox.orderedItems.map((a: any) => a.object.name),
        ['North public'],
      );
      const homeOutbox = await (await fetch(`${t.origin}/federation/actors/calendar/outbox?page=1`, { headers: AP })).json();
      assert.deepEqual(homeOutbox.orderedItems, []);
      // South's object is none of north's, nor the default calendar's.
      for (const path of [`/federation/actors/north/events/${southPublic.body.id}`, `/federation/events/${southPublic.body.id}`, `/federation/actors/south/events/${northPublic.body.id}`]) {
        const res = await fetch(`${t.origin}${path}`, { headers: AP });
        assert.equal(res.status, 404, path);
        await res.arrayBuffer();
      }
    });

    it('an inbox request to north’s actor path on south’s host or under south’s prefix is not found, and follows nothing', async () => {
      const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://x.example/f', type: 'Follow', actor: ivy.actorId, object: northActor.id });
      for (const path of ['/federation/actors/north/inbox', '/federation/inbox']) {
        const res = await viaHost(t, path, SOUTH_HOST, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
        assert.equal(res.status, 404, `${path} on south's host: ${res.text}`);
        const prefixed = await fetch(`${t.origin}/c/south${path}`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
        assert.equal(prefixed.status, 404, `${path} under south's prefix`);
        await prefixed.arrayBuffer();
      }
      for (const path of ['/federation/actors/north', '/federation/actors/north/outbox', '/federation/actors/north/followers']) {
        assert.equal((await viaHost(t, path, SOUTH_HOST, { headers: AP })).status, 404, path);
      }
      // WebFinger on south's host knows south's actor alone.
      for (const resource of [`acct:north@${SOUTH_HOST}`, `acct:north@${host}`, `${t.origin}/federation/actors/north`]) {
        const res = await viaHost(t, `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`, SOUTH_HOST);
        assert.equal(res.status, 404, `${resource}: ${res.text}`);
      }
      const own = await viaHost(t, `/.well-known/webfinger?resource=${encodeURIComponent(`acct:south@${SOUTH_HOST}`)}`, SOUTH_HOST);
      assert.equal(own.status, 200, own.text);
    });

    it('north’s editor manages north’s followers only: south’s by id are not found and stay', async () => {
      const south = await t.api.get(admin('/c/south', '/federation/followers'), { as: 'admin' });
      const southFollower = (Array.isArray(south.body) ? south.body : south.body.items)[0].id as number;
      for (const [method, path] of [
        ['GET', `/federation/followers/${southFollower}`],
        ['POST', `/federation/followers/${southFollower}/accept`],
        ['POST', `/federation/followers/${southFollower}/reject`],
        ['DELETE', `/federation/followers/${southFollower}`],
      ] as const) {
        const res = await t.api.request(method, admin('/c/north', path), { as: 'nora:nora-pw' });
        assert.ok(res.status === 404 || res.status === 409, `${method} ${path}: ${res.status} ${res.text}`);
      }
      assert.deepEqual(actorsOf((await t.api.get(admin('/c/south', '/federation/followers'), { as: 'admin' })).body), [ivy.actorId]);
      const deliveries = await t.api.get(admin('/c/north', '/federation/deliveries'), { as: 'nora:nora-pw', query: { per_page: 100 } });
      assert.equal(deliveries.status, 200, deliveries.text);
      assert.ok(!deliveries.text.includes('/federation/actors/south'), deliveries.text);
    });

    it('odd actor identifiers are not found, never a 500', async () => {
      for (const id of ['%2e%2e', 'c', 'north%2Fevents', 'NORTH', 'north%00', '%E0%A4%A', 'calendar%2F..%2Fnorth', 'x'.repeat(300)]) {
        for (const suffix of ['', '/outbox?page=1', '/followers', '/events/1', '/activities/1']) {
          const res = await fetch(`${t.origin}/federation/actors/${id}${suffix}`, { headers: AP });
          assert.ok(res.status < 500, `${id}${suffix}: ${res.status}`);
          await res.arrayBuffer();
        }
        const inbox = await fetch(`${t.origin}/federation/actors/${id}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: '{}' });
        assert.ok(inbox.status < 500, `${id}/inbox: ${inbox.status}`);
        await inbox.arrayBuffer();
      }
    });
  },
  FEDERATION,
);
