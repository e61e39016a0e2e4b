/**
 * `tec/v1` events, the original's Event_Test and Events_Test ported (its tests, rest_tec_v1_integration):
 * the entity's shape against its snapshots, reads by every role (with and without the password of a
 * protected event), creates, updates property by property, deletes; then the collection's parameters,
 * paging headers and errors, the acknowledgement rule, and the two namespaces as faces of one record.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { as, comparable, createEventTestData, EEA, ensureRoles, fromNow, ROLES, snapshot, tecClient, type RoleName } from '../support/tec-v1.js';

/** The original's site formats (WordPress' date_format and time_format defaults), so the schedule details compare. */
const WP_FORMATS = { CALENDAR_DATE_FORMAT: 'F j, Y', CALENDAR_TIME_FORMAT: 'g:i a' };

/** The fields of an entity that do not depend on when the test runs. */
const TIMELESS = [
  'id',
  'guid',
  'slug',
  'status',
  'type',
  'link',
  'title',
  'content',
  'excerpt',
  'author',
  'featured_media',
  'template',
  'tags',
  'tribe_events_cat',
  'class_list',
  'timezone',
  'all_day',
  'featured',
  'sticky',
  'cost',
  'organizer_names',
  'organizers',
  'venues',
];
const pick = (o: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

/** Who may read a record of this status authored by the administrator (WordPress' read_post). */
function mayRead(role: RoleName, status: string): boolean {
  if (status === 'publish') return true;
  return role === 'editor' || role === 'administrator';
}

forEachStore(
  "tec/v1 events: the original's Event_Test",
  (t) => {
    let data: Awaited<ReturnType<typeof createEventTestData>>;
    const tec = tecClient(t);
    before(async () => {
      await ensureRoles(t);
      data = await createEventTestData(t);
    });

    it('formats every event as the original does (test_get_formatted_entity)', async () => {
      const snap = snapshot('Event_Test__test_get_formatted_entity__0');
      const ours = [];
      for (const id of data.events) {
        const res = await tec.get(`/events/${id}`, { as: 'admin' });
        assert.equal(res.status, 200, res.text);
        ours.push(res.body);
      }
      assert.equal(ours.length, snap.length);
      ours.forEach((entity, i) => {
        assert.deepEqual(Object.keys(entity), Object.keys(snap[i]), entity.title.rendered);
        assert.deepEqual(entity.title, snap[i].title);
      });
      // The past event does not move with the clock: all of it as the original's.
      assert.deepEqual(comparable(ours[0], t.origin), comparable(snap[0], 'http://wordpress.test'));
      // The protected event, its password not given: all of it withheld as the original's.
      assert.deepEqual(comparable(ours[11], t.origin), comparable(snap[11], 'http://wordpress.test'));
      // The others as the original's where the clock does not matter.
      // (The original links a private event by its id when a guest formats it; we keep its permalink.)
      const timeless = (e: any, origin: string) => pick({ ...comparable(e, origin), ...(e.status === 'private' ? { link: undefined } : {}) }, TIMELESS);
      for (const i of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) assert.deepEqual(timeless(ours[i], t.origin), timeless(snap[i], 'http://wordpress.test'), snap[i].slug);
      assert.equal(ours[3].multiday, 4);
      assert.equal(ours[10].multiday, 3);
      assert.equal(ours[1].is_now, true);
      assert.equal(ours[2].is_past, false);
      assert.equal(ours[0].duration, '28800');
    });

    for (const role of ROLES) {
      it(`reads every event as the ${role ?? 'guest'} (test_read_responses)`, async () => {
        const shown: string[] = [];
        for (const [i, id] of data.events.entries()) {
          const status = i === 5 ? 'private' : i === 6 ? 'draft' : 'publish';
          const res = await tec.get(`/events/${id}`, { as: as(role) });
          const expected = mayRead(role, status) ? 200 : role === null ? 401 : 403;
          assert.equal(res.status, expected, `${role} ${status}`);
          if (expected === 200) shown.push(res.body.slug);
          else assert.equal(res.body.code, 'rest_forbidden');
        }
        const snap = snapshot(`Event_Test__test_read_responses__${ROLES.indexOf(role)}__0`);
        assert.deepEqual(
          shown,
          snap.map((e: any) => e.slug),
        );
        const locked = (await tec.get(`/events/${data.events[11]}`, { as: as(role) })).body;
        assert.deepEqual(comparable(locked, t.origin), comparable(snap[snap.length - 1], 'http://wordpress.test'));
      });

      it(`reads every event as the ${role ?? 'guest'} with the password (test_read_responses_with_password)`, async () => {
        const snap = snapshot('Event_Test__test_read_responses_with_password__0__0');
        const res = await tec.get(`/events/${data.events[11]}`, { as: as(role), query: { password: 'password123' } });
        assert.equal(res.status, 200);
        const ours = comparable(res.body, t.origin);
        const theirs = comparable(snap[snap.length - 1], 'http://wordpress.test');
        assert.deepEqual(Object.keys(ours), Object.keys(theirs));
        assert.deepEqual(pick(ours, [...TIMELESS, 'schedule_details', 'short_schedule_details']), pick(theirs, [...TIMELESS, 'schedule_details', 'short_schedule_details']));
        // A wrong password opens nothing.
        const wrong = await tec.get(`/events/${data.events[11]}`, { as: as(role), query: { password: 'nope' } });
        assert.equal(wrong.body.content.rendered, 'Password protected');
      });
    }

    it('editors see a protected event with context=edit, as WordPress lets them', async () => {
      const res = await tec.get(`/events/${data.events[11]}`, { as: 'editor', query: { context: 'edit' } });
      assert.equal(res.body.content.protected, true);
      const author = await tec.get(`/events/${data.events[11]}`, { as: 'author', query: { context: 'edit' } });
      assert.equal(author.body.content.rendered, 'Password protected');
    });

    const example = () => ({
      date: '2025-06-04T23:36:56+01:00',
      date_gmt: '2025-06-04T22:36:56Z',
      slug: 'my-awesome-title',
      status: 'publish',
      title: 'My Awesome Title',
      content: 'This is the content...',
      excerpt: 'This is the excerpt...',
      author: 1,
      comment_status: 'open',
      ping_status: 'open',
      format: 'standard',
      sticky: false,
      template: 'templates-full.php',
      tags: [] as number[],
      tribe_events_cat: [] as number[],
      start_date: '2025-06-05 12:00:00',
      start_date_utc: '2025-06-05 09:00:00',
      end_date: '2025-06-05 16:00:00',
      end_date_utc: '2025-06-05 13:00:00',
      timezone: 'Europe/Athens',
      duration: 14400,
      all_day: false,
      featured: false,
      cost: '$10',
      organizers: [data.organizers[0]!, data.organizers[1]!],
      venues: [data.venues[0]!],
    });

    for (const role of [...ROLES, 'subscriber'] as const) {
      it(`creates events as the ${role ?? 'guest'} (test_create_responses)`, async () => {
        const canCreate = role !== null && role !== 'subscriber';
        const expected = canCreate ? 201 : role === null ? 401 : 403;
        // The example's author is the administrator: others name themselves (naming another needs edit_others).
        const own = role === 'contributor' || role === 'author' ? { author: undefined } : {};
        const full = await tec.post('/events', { as: as(role as RoleName), json: { ...example(), ...own } });
        assert.equal(full.status, expected, full.text);
        if (canCreate) {
          assert.equal(full.body.title.rendered, 'My Awesome Title');
          assert.equal(full.body.start_date, '2025-06-05 12:00:00');
          assert.equal(full.body.start_date_utc, '2025-06-05 09:00:00');
          assert.equal(full.body.timezone, 'Europe/Athens');
          assert.deepEqual(
            full.body.organizers.map((o: any) => o.id),
            [data.organizers[0], data.organizers[1]],
          );
          assert.deepEqual(
            full.body.venues.map((v: any) => v.id),
            [data.venues[0]],
          );
          // Contributors' events wait for review, as WordPress makes them.
          assert.equal(full.body.status, role === 'contributor' ? 'pending' : 'publish');
        }
        const minimal = await tec.post('/events', { as: as(role as RoleName), json: { title: 'Minimal', start_date: '2025-06-05 12:00:00', end_date: '2025-06-05 13:00:00' } });
        assert.equal(minimal.status, expected);
      });
    }

    it('refuses a create without what an event needs (title, dates) with 400, never a 500', async () => {
      const res = await tec.post('/events', { as: 'admin', json: { content: 'no title' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'rest_missing_callback_param');
      assert.deepEqual(res.body.data.params, ['title', 'start_date', 'end_date']);
      const bad = await tec.post('/events', { as: 'admin', json: { title: 'x', start_date: 'not a date', end_date: '2025-06-05 13:00:00' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'rest_invalid_param');
      // A duration stands for the end.
      const byDuration = await tec.post('/events', { as: 'admin', json: { title: 'Two hours', start_date: '2025-06-05 12:00:00', duration: 7200 } });
      assert.equal(byDuration.status, 201);
      assert.equal(byDuration.body.end_date, '2025-06-05 14:00:00');
    });

    it('updates each property with PUT and PATCH, and only for who may (test_update_responses)', async () => {
      const created = await tec.post('/events', { as: 'admin', json: example() });
      const id = created.body.id;
      const changes: Array<[string, unknown, (e: any) => unknown]> = [
        ['end_date', '2025-06-08 20:09:00', (e) => e.end_date],
        ['start_date', '2025-06-08 16:09:00', (e) => e.start_date],
        ['slug', 'my-awpsomp-titlp', (e) => e.slug],
        ['status', 'private', (e) => e.status],
        ['title', 'My Awpsomp Titlp', (e) => e.title.rendered],
        ['content', 'This is thp contpnt', (e) => e.content.rendered],
        ['excerpt', 'This is thp pxcprpt', (e) => e.excerpt.rendered],
        ['sticky', true, (e) => e.sticky],
        ['featured', true, (e) => e.featured],
        ['cost', '$13', (e) => e.cost],
        ['organizers', [data.organizers[2]], (e) => e.organizers.map((o: any) => o.id)],
        ['venues', [data.venues[1]], (e) => e.venues.map((v: any) => v.id)],
        ['all_day', true, (e) => e.all_day],
        ['timezone', 'Europe/Berlin', (e) => e.timezone],
      ];
      for (const [property, value, read] of changes) {
        for (const role of [null, 'contributor', 'author'] as const) {
          const refused = await tec.put(`/events/${id}`, { as: as(role), json: { [property]: value } });
          assert.equal(refused.status, role === null ? 401 : 403, `${role} ${property}`);
        }
        const res = await tec.request(property === 'cost' ? 'PATCH' : 'PUT', `/events/${id}`, { as: 'editor', json: { [property]: value } });
        assert.equal(res.status, 200, `${property}: ${res.text}`);
        const expected = property === 'content' || property === 'excerpt' ? `<p>${value as string}</p>\n` : value;
        assert.deepEqual(read(res.body), expected, property);
        assert.deepEqual(read((await tec.get(`/events/${id}`, { as: 'admin' })).body), expected, property);
      }
      // POST on an entity is not a route of the original (WordPress' EDITABLE is PUT and PATCH).
      const post = await tec.post(`/events/${id}`, { as: 'admin', json: { title: 'x' } });
      assert.equal(post.status, 404);
      assert.equal(post.body.code, 'rest_no_route');
    });

    for (const role of ROLES) {
      it(`deletes events as the ${role ?? 'guest'} (test_delete_responses)`, async () => {
        const created = await tec.post('/events', { as: 'admin', json: example() });
        const id = created.body.id;
        const canDelete = role === 'editor' || role === 'administrator';
        const res = await tec.delete(`/events/${id}`, { as: as(role), query: { force: 'true' } });
        assert.equal(res.status, canDelete ? 200 : role === null ? 401 : 403);
        const after = await t.api.get(`/events/${id}`, { as: 'admin' });
        assert.equal(after.status, canDelete ? 404 : 200);
      });
    }

    it('trashes without force, then answers 410 for the trashed event, and unknown ids as a refused permission', async () => {
      const created = await tec.post('/events', { as: 'admin', json: example() });
      const res = await tec.delete(`/events/${created.body.id}`, { as: 'admin' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, []);
      assert.equal((await tec.get(`/events/${created.body.id}`, { as: 'admin' })).body.status, 'trash');
      const again = await tec.delete(`/events/${created.body.id}`, { as: 'admin' });
      assert.equal(again.status, 410);
      assert.deepEqual(again.body, { error: 'The entity has already been trashed.' });
      for (const role of [null, 'administrator'] as const) {
        const unknown = await tec.get('/events/999999', { as: as(role) });
        assert.equal(unknown.status, role === null ? 401 : 403);
      }
      // A venue's id is not an event's.
      assert.equal((await tec.get(`/events/${data.venues[0]}`)).status, 401);
    });
  },
  WP_FORMATS,
);

forEachStore("tec/v1 events: the collection (the original's Events_Test and its parameters)", (t) => {
  const tec = tecClient(t);
  let data: Awaited<ReturnType<typeof createEventTestData>>;
  before(async () => {
    await ensureRoles(t);
    data = await createEventTestData(t);
  });

  it('lists published events of every date, by start date, with X-WP-Total, X-WP-TotalPages and Link', async () => {
    const res = await tec.get('/events', { query: { per_page: 4 } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-wp-total'), '10');
    assert.equal(res.headers.get('x-wp-totalpages'), '3');
    assert.equal(res.body.length, 4);
    assert.equal(res.body[0].slug, 'past-conference-2023');
    const starts = res.body.map((e: any) => e.start_date_utc);
    assert.deepEqual(starts, [...starts].sort());
    const link = res.headers.get('link')!;
    assert.ok(link.includes(`<${t.origin}/wp-json/tec/v1/events?per_page=4&page=2>; rel="next"`), link);
    assert.ok(!link.includes('rel="prev"'));
    const second = await tec.get('/events', { query: { per_page: 4, page: 2 } });
    const link2 = second.headers.get('link')!;
    assert.ok(link2.includes(`<${t.origin}/wp-json/tec/v1/events?per_page=4&page=3>; rel="next"`), link2);
    assert.ok(link2.includes(`<${t.origin}/wp-json/tec/v1/events?per_page=4&page=1>; rel="prev"`), link2);
    const past = await tec.get('/events', { query: { per_page: 4, page: 4 } });
    assert.equal(past.status, 404);
    assert.deepEqual(past.body, { code: 'tec_rest_organizers_page_not_found', message: 'The requested page was not found.' });
  });

  it('shows other statuses only to those who may edit events', async () => {
    const anon = await tec.get('/events', { query: { status: 'draft,private', per_page: 50 } });
    assert.ok(anon.body.every((e: any) => e.status === 'publish'));
    const editor = await tec.get('/events', { as: 'editor', query: { status: 'draft,private' } });
    assert.deepEqual(editor.body.map((e: any) => e.title.rendered).sort(), ['Planning Stage Event', 'VIP Dinner Gala']);
    // A draft has no slug yet, as in WordPress.
    assert.equal(editor.body.find((e: any) => e.status === 'draft').slug, '');
    const bad = await tec.get('/events', { query: { status: 'publish,trash' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
  });

  it('filters by search, dates, venue, organizer, featured, categories and tags', async () => {
    const slugs = async (query: Record<string, string | number | boolean>) => {
      const res = await tec.get('/events', { query: { per_page: 50, ...query } });
      assert.equal(res.status, 200, res.text);
      return res.body.map((e: any) => e.slug);
    };
    assert.deepEqual(await slugs({ search: 'Bootcamp' }), ['web-development-bootcamp']);
    assert.deepEqual(await slugs({ ends_before: '2024-01-01' }), ['past-conference-2023']);
    assert.ok(!(await slugs({ starts_after: fromNow(0) })).includes('past-conference-2023'));
    assert.deepEqual(await slugs({ venue: data.venues[2]!, featured: true }), ['web-development-bootcamp', 'future-tech-summit']);
    assert.deepEqual((await slugs({ organizer: data.organizers[2]! })).sort(), ['cafe-code-developers-meetup', 'music-festival-2024']);
    assert.deepEqual(await slugs({ ticketed: true }), []);
    const unknownVenue = await tec.get('/events', { query: { venue: 999999 } });
    assert.equal(unknownVenue.status, 400);
    const cat = await t.api.post('/categories', { as: 'admin', json: { name: 'Jazz' } });
    const tag = await t.api.post('/tags', { as: 'admin', json: { name: 'Outdoor' } });
    const tagged = await tec.post('/events', {
      as: 'admin',
      json: { title: 'Tagged', start_date: fromNow(86_400_000), end_date: fromNow(90_000_000), status: 'publish', tribe_events_cat: [cat.body.id], tags: [tag.body.id] },
    });
    assert.deepEqual(tagged.body.tribe_events_cat, [cat.body.id]);
    assert.deepEqual(tagged.body.tags, [tag.body.id]);
    assert.ok(tagged.body.class_list.includes('tribe_events_cat-jazz') && tagged.body.class_list.includes('tag-outdoor'));
    assert.deepEqual(await slugs({ categories: cat.body.id }), ['tagged']);
    assert.deepEqual(await slugs({ tags: tag.body.id }), ['tagged']);
    const desc = await slugs({ order: 'DESC' });
    assert.equal(desc[desc.length - 1], 'past-conference-2023');
  });

  it('asks for the acknowledgement header after the permission, as the original, and not for /docs', async () => {
    const none = await tec.get('/events', { headers: { 'x-tec-eea': '' } });
    assert.equal(none.status, 400);
    assert.deepEqual(none.body, { code: 'missing_experimental_endpoint_acknowledgement', message: 'Experimental endpoint requires acknowledgement header.', data: { status: 400 } });
    const wrong = await tec.get('/events', { headers: { 'x-tec-eea': 'yes' } });
    assert.equal(wrong.body.message, 'Experimental endpoint requires appropriate acknowledgement header.');
    const shouted = await tec.get('/events', { headers: { 'x-tec-eea': `  ${EEA.toUpperCase()} ` } });
    assert.equal(shouted.status, 200);
    // A guest who may not create is told so first.
    const anonymousCreate = await tec.post('/events', { headers: { 'x-tec-eea': '' }, json: { title: 'x' } });
    assert.equal(anonymousCreate.status, 401);
    const docs = await tec.get('/docs', { headers: { 'x-tec-eea': '' } });
    assert.equal(docs.status, 200);
    // The Allow header still names what the caller may do.
    assert.equal(none.headers.get('allow'), 'GET');
  });

  it('is one record with the legacy namespaces: the same write seen at once, the same version in the ETag, If-Match across both', async () => {
    const token = (await t.api.get('/events')).headers.get('x-sync-token')!;
    const created = await tec.post('/events', { as: 'admin', json: { title: 'Both Faces', start_date: fromNow(86_400_000), end_date: fromNow(90_000_000), status: 'publish', cost: '12' } });
    assert.equal(created.status, 201);
    const id = created.body.id;
    const legacy = await t.api.get(`/events/${id}`);
    assert.equal(legacy.status, 200);
    assert.equal(legacy.body.title, 'Both Faces');
    const alias = await t.api.get(`${t.origin}/wp-json/tribe/events/v1/events/${id}`);
    assert.equal(alias.body.id, id);
    const tecRead = await tec.get(`/events/${id}`);
    const version = (etag: string | null) => etag!.split('.').slice(0, 3).join('.');
    assert.equal(version(tecRead.headers.get('etag')), version(legacy.headers.get('etag')));
    // A 304 for the same version.
    const again = await tec.get(`/events/${id}`, { headers: { 'if-none-match': tecRead.headers.get('etag')! } });
    assert.equal(again.status, 304);
    // The legacy ETag names the version tec/v1 writes against.
    const ok = await tec.put(`/events/${id}`, { as: 'admin', headers: { 'if-match': legacy.headers.get('etag')! }, json: { title: 'Both Faces Again' } });
    assert.equal(ok.status, 200);
    const stale = await tec.put(`/events/${id}`, { as: 'admin', headers: { 'if-match': legacy.headers.get('etag')! }, json: { title: 'Lost Update' } });
    assert.equal(stale.status, 412);
    assert.equal((await t.api.get(`/events/${id}`)).body.title, 'Both Faces Again');
    // The legacy list's incremental sync reports the tec/v1 writes, the trash included.
    const synced = await t.api.get('/events', { query: { sync_token: token } });
    assert.deepEqual(
      synced.body.events.map((e: any) => [e.id, e.title]),
      [[id, 'Both Faces Again']],
    );
    await tec.delete(`/events/${id}`, { as: 'admin' });
    const afterTrash = await t.api.get('/events', { query: { sync_token: token } });
    assert.deepEqual(afterTrash.body.events, [{ id, status: 'trash' }]);
    // And the change log saw the tec/v1 write (the admin's change feed lists it).
    const changes = await t.api.get(`${t.origin}/api/calendar/admin/v1/changes`, { as: 'admin' });
    assert.equal(changes.status, 200);
    assert.ok(JSON.stringify(changes.body).includes(String(id)));
  });
});

forEachStore(
  'tec/v1 events: webhooks',
  (t) => {
    let r: Receiver;
    before(async () => {
      r = await startReceiver();
    });
    after(async () => r?.close());

    it('delivers a tec/v1 write to the webhooks, as a legacy write', async () => {
      r.respond = () => 200;
      const hook = await t.api.post('/api/calendar/admin/v1/webhooks', { as: 'admin', json: { url: r.url } });
      assert.equal(hook.status, 201, hook.text);
      const tec = tecClient(t);
      const created = await tec.post('/events', { as: 'admin', json: { title: 'Hooked Through tec/v1', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish' } });
      assert.equal(created.status, 201);
      const [delivery] = await r.waitFor((m) => m.body?.type === 'event.created' && m.body?.data?.id === created.body.id, 1);
      assert.equal(delivery!.body.data.title, 'Hooked Through tec/v1');
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms', WEBHOOKS_TIMEOUT: '2s' },
);
