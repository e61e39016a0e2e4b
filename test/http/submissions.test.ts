/**
 * Issue 29: community submissions. The form without JavaScript (HTTP form posts), the API route,
 * each abuse defence (rate limits per address and per e-mail, honeypot, fill time, size, links,
 * duplicates flagged), each moderation action and its log, the private link (status, edit,
 * withdraw, a wrong token 404), SUBMISSIONS=off (404 everywhere) and =registered.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { EVENT, MOD, OPEN, SUB, form, formFields, page, submit } from '../support/submissions.js';

for (const kind of STORES) {
  describe(`community submissions [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { ...OPEN, SUBMISSIONS_MAX_LINKS: '2', SUBMISSIONS_MAX_DESCRIPTION: '2000' });
      await t.user('editor');
      await t.user('author');
    });
    after(async () => {
      await t.close();
    });

    it('the API takes a submission: pending event, private token, sanitised description, declared in the namespace index and /doc', async () => {
      const res = await submit(t);
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(res.body.link, `${t.config.siteUrl}/events/submit/status/${res.body.token}`);
      assert.equal(res.body.status, 'pending');
      assert.equal(res.body.event.title, 'Street party');
      assert.doesNotMatch(res.body.event.description, /script|img/);
      assert.match(res.body.event.description, /<strong>all night<\/strong>/);
      const index = await t.api.get(SUB);
      assert.equal(index.status, 200);
      assert.ok(Object.keys(index.body.routes).includes('/calendar/submissions/v1/submissions'));
      assert.ok(Object.keys(index.body.routes).includes('/calendar/submissions/v1/submissions/(?P<token>[^/]+)') || Object.keys(index.body.routes).some((r) => r.includes('token')));
      const admin = await t.api.get(MOD, { as: 'admin' });
      assert.ok(Object.keys(admin.body.routes).some((r) => r.endsWith('/submissions/(?P<id>[\\d]+)/approve') || r.includes('/approve')));
      const doc = await t.api.get(`${SUB}/doc`);
      assert.equal(doc.status, 200);
      assert.ok(JSON.stringify(doc.body).includes('/submissions'));
    });

    it('checks the fields: required ones, e-mail, dates, unknown venue', async () => {
      const res = await submit(t, { title: '', start_date: '', end_date: '', email: 'nope', name: '' });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'rest_invalid_param');
      // Every error at once: the submitter's fields and the event's together.
      assert.deepEqual(Object.keys(res.body.data.params).sort(), ['email', 'end_date', 'name', 'start_date', 'title']);
      const fields = await submit(t, { ...EVENT, title: '', start_date: '' });
      assert.equal(fields.status, 400);
      assert.ok(fields.body.data.params.title && fields.body.data.params.start_date);
      // Hostile shapes are 400 naming the field, never a 500 and never silently dropped.
      for (const [field, value] of [
        ['title', ['a']],
        ['title', { x: 1 }],
        ['venue', [1, 2]],
        ['venue', { venue: { a: 1 } }],
        ['organizer', [{ organizer: 'x' }]],
        ['categories', { a: 1 }],
        ['timezone', 'Mars/Base'],
        ['start_date', 'garbage'],
        ['image', 'javascript:alert(1)'],
      ] as const) {
        const r = await submit(t, { ...EVENT, [field]: value });
        assert.equal(r.status, 400, `${field}: ${JSON.stringify(value)} ${r.text}`);
        assert.equal(r.body.code, 'rest_invalid_param');
      }
      const venue = await submit(t, { ...EVENT, venue: 999999 });
      assert.equal(venue.status, 400);
      assert.ok(venue.body.data.params.venue);
    });

    it('refuses more links than SUBMISSIONS_MAX_LINKS and descriptions over SUBMISSIONS_MAX_DESCRIPTION', async () => {
      const links = await submit(t, { ...EVENT, description: 'see https://a.example https://b.example and www.c.example' });
      assert.equal(links.status, 400);
      assert.equal(links.body.code, 'submission_too_many_links');
      const ok = await submit(t, { ...EVENT, title: 'Two links', description: 'see https://a.example and https://b.example' });
      assert.equal(ok.status, 201);
      const long = await submit(t, { ...EVENT, description: 'x'.repeat(2001) });
      assert.equal(long.status, 400);
      assert.ok(long.body.data.params.description);
    });

    it('flags likely duplicates (same title and start) for the moderator', async () => {
      const first = await submit(t, { ...EVENT, title: 'Duplicate Fair', start_date: '2031-09-01 10:00', end_date: '2031-09-01 12:00' });
      const second = await submit(t, { ...EVENT, title: 'duplicate fair', start_date: '2031-09-01 10:00', end_date: '2031-09-01 12:00' });
      assert.equal(second.status, 201);
      const mine = await t.api.get(`${MOD}/submissions/${second.body.id}`, { as: 'editor' });
      const theirs = await t.api.get(`${MOD}/submissions/${first.body.id}`, { as: 'editor' });
      assert.deepEqual(mine.body.flags, { duplicates: [theirs.body.event_id] });
      assert.deepEqual(theirs.body.flags, {});
      const flagged = await t.api.get(`${MOD}/submissions`, { as: 'editor', query: { flagged: true } });
      assert.ok(flagged.body.some((s: any) => s.id === second.body.id));
      assert.ok(!flagged.body.some((s: any) => s.id === first.body.id));
    });

    it('the private link: status, edit while pending, withdraw; a wrong token is 404', async () => {
      const made = await submit(t, { ...EVENT, title: 'Editable' });
      const token = made.body.token;
      const seen = await t.api.get(`${SUB}/submissions/${token}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.status, 'pending');
      assert.equal(seen.body.editable, true);
      const edited = await t.api.put(`${SUB}/submissions/${token}`, { json: { title: 'Edited title', cost: '5' } });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.body.event.title, 'Edited title');
      // A new venue, then an existing one instead: the new one is trashed, not left pending.
      const withVenue = await t.api.put(`${SUB}/submissions/${token}`, { json: { venue: { venue: 'Short-lived hall' } } });
      const shortLived = withVenue.body.event.venue.id;
      const hall = await t.api.post('/venues', { as: 'admin', json: { venue: 'Known hall', status: 'publish' } });
      const switched = await t.api.put(`${SUB}/submissions/${token}`, { json: { venue: hall.body.id } });
      assert.equal(switched.body.event.venue.id, hall.body.id);
      assert.equal((await t.api.get(`/venues/${shortLived}`, { as: 'admin' })).body.status, 'trash');
      assert.equal((await t.api.get(`${MOD}/submissions/${made.body.id}`, { as: 'editor' })).body.new_venue_id, null);
      const wrong = await t.api.get(`${SUB}/submissions/${'x'.repeat(43)}`);
      assert.equal(wrong.status, 404);
      assert.equal(wrong.body.code, 'submission_not_found');
      const wrongPage = await page(t, `/events/submit/status/${'y'.repeat(43)}`);
      assert.equal(wrongPage.status, 404);
      const gone = await t.api.delete(`${SUB}/submissions/${token}`);
      assert.equal(gone.status, 200);
      assert.equal(gone.body.status, 'withdrawn');
      const eventId = (await t.api.get(`${MOD}/submissions/${made.body.id}`, { as: 'editor' })).body.event_id;
      assert.equal((await t.built.services.events.findById(eventId))!.status, 'trash');
      const again = await t.api.put(`${SUB}/submissions/${token}`, { json: { title: 'Too late' } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'submission_not_editable');
    });

    it('moderation: the queue needs an editor; approve publishes the event and its new venue and organizer; the log says who, what, why', async () => {
      const made = await submit(t, { ...EVENT, title: 'To approve', venue: { venue: 'New Hall', city: 'Paris' }, organizer: { organizer: 'New Org', email: 'org@example.org' } });
      assert.equal(made.status, 201, made.text);
      assert.equal((await t.api.get(`${MOD}/submissions`)).status, 401);
      assert.equal((await t.api.get(`${MOD}/submissions`, { as: 'author' })).status, 403);
      const queue = await t.api.get(`${MOD}/submissions`, { as: 'editor' });
      assert.equal(queue.status, 200);
      const item = queue.body.find((s: any) => s.id === made.body.id);
      assert.equal(item.submitter.email, 'ann@example.org');
      assert.equal(item.submitter.name, 'Ann Submitter');
      assert.equal(item.submitter.ip, '127.0.0.1');
      assert.equal(item.event.status, 'pending');
      assert.equal(item.event.venue.status, 'pending');
      assert.equal(Number(queue.headers.get('x-tec-total')) >= 1, true);
      const approved = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'editor', json: { reason: 'Looks good' } });
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.body.status, 'approved');
      assert.equal(approved.body.event.status, 'publish');
      const pub = await t.api.get(`/events/${approved.body.event_id}`);
      assert.equal(pub.status, 200);
      assert.equal(pub.body.venue.status ?? 'publish', 'publish');
      assert.equal((await t.api.get(`/venues/${approved.body.new_venue_id}`)).status, 200);
      assert.equal((await t.api.get(`/organizers/${approved.body.new_organizer_ids[0]}`)).status, 200);
      const log = approved.body.log as any[];
      assert.equal(log[0].action, 'approved');
      assert.equal(log[0].actor, 'editor');
      assert.equal(log[0].reason, 'Looks good');
      assert.equal(log.at(-1).action, 'received');
      const twice = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'editor' });
      assert.equal(twice.status, 409);
      const status = await t.api.get(`${SUB}/submissions/${made.body.token}`);
      assert.equal(status.body.status, 'approved');
      assert.equal(status.body.url, pub.body.url);
    });

    it('moderation: approve at a time schedules the event; edit then approve changes it first', async () => {
      const made = await submit(t, { ...EVENT, title: 'Later' });
      const badEdit = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'editor', json: { event: { timezone: 'Mars/Base' } } });
      assert.equal(badEdit.status, 400);
      assert.equal(badEdit.body.code, 'rest_invalid_param');
      const badTime = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'editor', json: { publish_at: 'someday' } });
      assert.equal(badTime.status, 400);
      assert.ok(badTime.body.data.params.publish_at);
      const later = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'editor', json: { publish_at: '2030-01-01 09:00', event: { title: 'Later, edited' } } });
      assert.equal(later.status, 200, later.text);
      assert.equal(later.body.event.status, 'future');
      assert.equal(later.body.event.title, 'Later, edited');
      assert.equal(later.body.publish_at, '2030-01-01T09:00:00Z');
      assert.equal(later.body.log[0].action, 'edited_and_approved');
      assert.equal((await t.api.get(`/events/${later.body.event_id}`)).status, 403);
    });

    it('moderation: a new venue and organizer merged into existing ones', async () => {
      const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Old Hall', status: 'publish' } });
      const org = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Old Org', status: 'publish' } });
      const made = await submit(t, { ...EVENT, title: 'Merge', venue: { venue: 'Old hall (dup)' }, organizer: { organizer: 'Old org (dup)' } });
      const detail = await t.api.get(`${MOD}/submissions/${made.body.id}`, { as: 'editor' });
      const merged = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'editor', json: { merge_venue: venue.body.id, merge_organizers: [org.body.id] } });
      assert.equal(merged.status, 200, merged.text);
      assert.equal(merged.body.event.venue.id, venue.body.id);
      assert.deepEqual(
        merged.body.event.organizer.map((o: any) => o.id),
        [org.body.id],
      );
      assert.equal((await t.api.get(`/venues/${detail.body.new_venue_id}`, { as: 'admin' })).body.status, 'trash');
      assert.equal((await t.api.get(`/organizers/${detail.body.new_organizer_ids[0]}`, { as: 'admin' })).body.status, 'trash');
      assert.equal(merged.body.log[0].detail.venue_merged_into, venue.body.id);
    });

    it('moderation: reject with a reason (seen through the link), ask for changes then resubmit, bulk actions, the log', async () => {
      const a = await submit(t, { ...EVENT, title: 'Reject me' });
      const missing = await t.api.post(`${MOD}/submissions/${a.body.id}/reject`, { as: 'editor' });
      assert.equal(missing.status, 400);
      const rejected = await t.api.post(`${MOD}/submissions/${a.body.id}/reject`, { as: 'editor', json: { reason: 'Not in our area' } });
      assert.equal(rejected.status, 200);
      assert.equal(rejected.body.status, 'rejected');
      assert.equal(rejected.body.event.status, 'trash');
      const seen = await t.api.get(`${SUB}/submissions/${a.body.token}`);
      assert.equal(seen.body.reason, 'Not in our area');
      assert.equal(seen.body.editable, false);
      const statusPage = await page(t, `/events/submit/status/${a.body.token}`);
      assert.match(statusPage.text, /Not in our area/);

      const b = await submit(t, { ...EVENT, title: 'Change me' });
      const asked = await t.api.post(`${MOD}/submissions/${b.body.id}/request-changes`, { as: 'editor', json: { reason: 'Add the end time' } });
      assert.equal(asked.body.status, 'changes_requested');
      const fixed = await t.api.put(`${SUB}/submissions/${b.body.token}`, { json: { end_date: '2031-06-21 23:30' } });
      assert.equal(fixed.body.status, 'pending');
      const entries = (await t.api.get(`${MOD}/submissions/log`, { as: 'editor', query: { submission: b.body.id } })).body;
      assert.deepEqual(
        entries.map((e: any) => e.action),
        ['resubmitted', 'changes_requested', 'received'],
      );
      assert.equal(entries[1].reason, 'Add the end time');

      const c = await submit(t, { ...EVENT, title: 'Bulk one' });
      const d = await submit(t, { ...EVENT, title: 'Bulk two' });
      const bulk = await t.api.post(`${MOD}/submissions/bulk`, { as: 'editor', json: { ids: [c.body.id, d.body.id, a.body.id], action: 'reject', reason: 'Spam' } });
      assert.equal(bulk.status, 200, bulk.text);
      assert.deepEqual(
        bulk.body.map((r: any) => [r.id, r.ok]),
        [
          [c.body.id, true],
          [d.body.id, true],
          [a.body.id, false],
        ],
      );
      assert.equal(bulk.body[2].error.code, 'submission_not_pending');
      const bulkApprove = await t.api.post(`${MOD}/submissions/bulk`, { as: 'editor', json: { ids: [b.body.id], action: 'approve' } });
      assert.equal(bulkApprove.body[0].status, 'approved');
      const all = await t.api.get(`${MOD}/submissions/log`, { as: 'editor', query: { per_page: 100 } });
      assert.ok(all.body.some((e: any) => e.action === 'rejected' && e.reason === 'Spam' && e.actor === 'editor'));
      const rejectedOnly = await t.api.get(`${MOD}/submissions`, { as: 'editor', query: { status: 'rejected', per_page: 2 } });
      assert.equal(rejectedOnly.body.length, 2);
      assert.ok(rejectedOnly.body.every((s: any) => s.status === 'rejected'));
      assert.equal(rejectedOnly.headers.get('x-tec-totalpages'), '2');
    });

    it('the form without JavaScript: GET in English or French, POST 303 to the status page, errors in place, edit and withdraw through forms', async () => {
      const en = await page(t, '/events/submit/');
      assert.equal(en.status, 200);
      assert.match(en.text, /<html lang="en">/);
      assert.match(en.text, /<label for="f-title">Title \*<\/label>/);
      assert.match(en.res.headers.get('content-security-policy')!, /script-src 'self'/);
      const fr = await page(t, '/events/submit/', { 'accept-language': 'fr-CA,fr;q=0.9' });
      assert.match(fr.text, /<html lang="fr">.*Proposer un événement/s);

      const bad = await form(t, '/events/submit/', await formFields(t, { title: '', email: 'not-an-address' }), { 'accept-language': 'fr' });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /role="alert"/);
      assert.match(bad.text, /href="#f-email"/);
      assert.match(bad.text, /aria-invalid="true"/);
      assert.match(bad.text, /value="Bob Form"/);

      const sent = await form(t, '/events/submit/', await formFields(t));
      assert.equal(sent.status, 303, sent.text);
      const location = sent.res.headers.get('location')!;
      assert.match(location, /^\/events\/submit\/status\/[A-Za-z0-9_-]{43}\?sent=1$/);
      const status = await page(t, location);
      assert.equal(status.status, 200);
      assert.match(status.text, /Thank you! Your proposal was received./);
      assert.match(status.text, /Waiting for a moderator/);
      assert.match(status.text, /Jazz by the river/);
      assert.match(status.text, /value="River Stage"/);
      const token = location.split('/').pop()!.split('?')[0]!;
      const api = await t.api.get(`${SUB}/submissions/${token}`);
      assert.equal(api.body.event.start_date, '2031-07-14 20:00:00');
      assert.equal(api.body.event.timezone, 'Europe/Paris');
      assert.equal(api.body.event.venue.venue, 'River Stage');
      assert.equal(api.body.event.organizer[0].organizer, 'River Jazz Club');

      const path = location.split('?')[0]!;
      const edited = await form(t, path, {
        _action: 'edit',
        title: 'Jazz by the Rhône',
        start_date: '2031-07-14',
        start_time: '20:00',
        end_date: '2031-07-14',
        end_time: '23:00',
        timezone: 'Europe/Paris',
        'venue[venue]': 'River Stage',
      });
      assert.equal(edited.status, 200, edited.text);
      assert.match(edited.text, /Your changes were saved./);
      assert.equal((await t.api.get(`${SUB}/submissions/${token}`)).body.event.title, 'Jazz by the Rhône');
      const withdrawn = await form(t, path, { _action: 'withdraw' });
      assert.equal(withdrawn.status, 200);
      assert.match(withdrawn.text, /Your proposal was withdrawn./);
      assert.doesNotMatch(withdrawn.text, /id="edit-form"/);
    });

    it('the honeypot and the fill time refuse robots', async () => {
      const trap = await form(t, '/events/submit/', await formFields(t, { homepage: 'http://spam.example' }));
      assert.equal(trap.status, 400);
      assert.match(trap.text, /could not be accepted/);
      const api = await submit(t, { ...EVENT, title: 'Trap via API' });
      assert.equal(api.status, 201);
      const slow = await startServer(kind, { ...OPEN, SUBMISSIONS_MIN_FILL: '1h' });
      try {
        const fast = await form(slow, '/events/submit/', await formFields(slow));
        assert.equal(fast.status, 400);
        assert.match(fast.text, /sent too quickly/);
        const forged = await form(slow, '/events/submit/', await formFields(slow, { _started: '1000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }));
        assert.equal(forged.status, 400);
        assert.match(forged.text, /sent too quickly/);
      } finally {
        await slow.close();
      }
    });
  });

  describe(`submission limits and modes [${kind.name}]`, () => {
    it('SUBMISSIONS=off (the default): every submission route is 404', async () => {
      const t = await startServer(kind);
      try {
        assert.equal((await submit(t)).status, 404);
        assert.equal((await t.api.get(SUB)).status, 404);
        assert.equal((await t.api.get(`${MOD}/submissions`, { as: 'admin' })).status, 404);
        assert.equal((await page(t, '/events/submit/')).status, 404);
        assert.equal((await page(t, `/events/submit/status/${'a'.repeat(43)}`)).status, 404);
      } finally {
        await t.close();
      }
    });

    it('SUBMISSIONS=registered: anonymous submitters are refused, users submit as themselves', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS: 'registered' });
      try {
        const anon = await submit(t);
        assert.equal(anon.status, 401);
        assert.equal(anon.body.code, 'submission_login_required');
        assert.match((await page(t, '/events/submit/')).text, /Sign in to propose an event/);
        // A user without an e-mail address must give one.
        const noEmail = await t.api.post(`${SUB}/submissions`, { as: 'admin', json: { ...EVENT, name: undefined, email: undefined } });
        assert.equal(noEmail.status, 400);
        assert.ok(noEmail.body.data.params.email);
        await t.built.services.users.add({ login: 'sub', role: 'subscriber', password: 'sub-password', email: 'sub@example.org' });
        const mine = await t.api.post(`${SUB}/submissions`, { as: 'sub:sub-password', json: { ...EVENT, name: undefined, email: undefined } });
        assert.equal(mine.status, 201, mine.text);
        const seen = await t.api.get(`${MOD}/submissions/${mine.body.id}`, { as: 'admin' });
        assert.equal(seen.body.submitter.email, 'sub@example.org');
        assert.equal(seen.body.submitter.user_id > 0, true);
        assert.equal(seen.body.event.status, 'pending');
      } finally {
        await t.close();
      }
    });

    it('the form for a signed-in user (SUBMISSIONS=registered): their session and the form nonce, their name and e-mail', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS: 'registered' });
      try {
        await t.built.services.users.add({ login: 'writer', role: 'subscriber', password: 'writer-password', email: 'writer@example.org', name: 'Wendy Writer' });
        const login = await page(t, '/admin/login');
        const loginCookie = (login.res.headers.get('set-cookie') ?? '').split(';')[0]!;
        const signed = await form(
          t,
          '/admin/login',
          { log: 'writer', pwd: 'writer-password', _wpnonce: /name="_wpnonce" value="([^"]+)"/.exec(login.text)?.[1] ?? '' },
          loginCookie ? { cookie: loginCookie } : {},
        );
        assert.equal(signed.status, 303, signed.text);
        const cookie = (signed.res.headers.get('set-cookie') ?? '').split(';')[0]!;
        const p = await page(t, '/events/submit/', { cookie });
        assert.equal(p.status, 200);
        assert.doesNotMatch(p.text, /id="f-email"/, 'no identity fields: they come from the account');
        const nonce = /name="_wpnonce" value="([^"]+)"/.exec(p.text)![1]!;
        const stamp = /name="_started" value="([^"]*)"/.exec(p.text)![1]!;
        const fields = { title: 'Members night', start_date: '2031-11-05', start_time: '19:00', end_date: '2031-11-05', end_time: '21:00', _started: stamp };
        // Without the nonce the cookie does not count: anonymous, refused.
        assert.equal((await form(t, '/events/submit/', fields, { cookie })).status, 401);
        const sent = await form(t, '/events/submit/', { ...fields, _wpnonce: nonce }, { cookie });
        assert.equal(sent.status, 303, sent.text);
        const queue = (await t.api.get(`${MOD}/submissions`, { as: 'admin' })).body as any[];
        const mine = queue.find((s) => s.event.title === 'Members night');
        assert.equal(mine.submitter.email, 'writer@example.org');
        assert.equal(mine.submitter.name, 'Wendy Writer');
        assert.ok(mine.submitter.user_id > 0);
      } finally {
        await t.close();
      }
    });

    it('rate limits per address and per e-mail address (429 with Retry-After)', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_MAX_PER_ADDRESS: '3', SUBMISSIONS_MAX_PER_EMAIL: '2' });
      try {
        assert.equal((await submit(t, { ...EVENT, email: 'one@example.org' })).status, 201);
        assert.equal((await submit(t, { ...EVENT, email: 'one@example.org' })).status, 201);
        const byEmail = await submit(t, { ...EVENT, email: 'ONE@example.org' });
        assert.equal(byEmail.status, 429);
        assert.equal(byEmail.body.code, 'submission_rate_limited');
        assert.ok(Number(byEmail.headers.get('retry-after')) > 3000);
        assert.equal((await submit(t, { ...EVENT, email: 'two@example.org' })).status, 201);
        const byAddress = await submit(t, { ...EVENT, email: 'three@example.org' });
        assert.equal(byAddress.status, 429);
        const viaForm = await form(t, '/events/submit/', await formFields(t, { email: 'four@example.org' }));
        assert.equal(viaForm.status, 429);
        assert.match(viaForm.text, /Too many submissions/);
      } finally {
        await t.close();
      }
    });
  });
}
