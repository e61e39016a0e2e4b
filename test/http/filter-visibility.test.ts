/**
 * Issue 24, items 4 and 5: inline venues and organizers in event writes obey the rules of the
 * direct routes (the same validators and the same permission, so the same errors), and arguments
 * that name a record (`event`, `post`, `post_parent`, `venue`, `organizer`, write references)
 * answer for a record the caller may not read exactly as for a missing one (docs/security.md "Who may do what").
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';

type Json = Record<string, any>;

const DATES = { start_date: '2099-06-01 10:00', end_date: '2099-06-01 12:00' };
const WINDOW = { start_date: '2099-01-01', end_date: '2099-12-31' };
const MISSING = 999999;

async function create(t: TestServer, plural: string, json: Json, as: string | null = 'admin'): Promise<Json> {
  const res = await t.api.post(`/${plural}`, { as, json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Every venue or organizer whose name is this (any status, as the administrator sees them). */
async function named(t: TestServer, plural: 'venues' | 'organizers', name: string): Promise<Json[]> {
  const res = await t.api.get(`/${plural}`, { as: 'admin', query: { search: name, status: 'publish,draft,pending,private,future', per_page: 50 } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body[plural] as Json[]).filter((r) => r[plural === 'venues' ? 'venue' : 'organizer'] === name);
}

/** Status and body of an answer, for comparing two answers. */
const answer = (res: ApiResponse) => ({ status: res.status, body: res.body });

forEachStore('inline venues and organizers obey the direct routes', (t) => {
  let adminId: number;
  let authorId: number;
  let adminVenue: Json;
  let adminDraftVenue: Json;
  before(async () => {
    authorId = (await t.user('author')).id;
    await t.user('contributor');
    await t.user('editor');
    adminVenue = await create(t, 'venues', { venue: 'Admin Hall' });
    adminId = Number(adminVenue.author);
    adminDraftVenue = await create(t, 'venues', { venue: 'Admin Draft Hall', status: 'draft' });
  });

  describe('author naming another user', () => {
    it('an inline venue naming the administrator is 403 rest_forbidden, as POST /venues is, and creates nothing', async () => {
      const direct = await t.api.post('/venues', { as: 'author', json: { venue: 'Direct Stolen Hall', author: adminId } });
      assert.equal(direct.status, 403);
      const inline = await t.api.post('/events', { as: 'author', json: { title: 'Inline stolen', ...DATES, venue: { venue: 'Inline Stolen Hall', author: adminId } } });
      assert.deepEqual(answer(inline), answer(direct));
      assert.deepEqual(await named(t, 'venues', 'Inline Stolen Hall'), []);
    });

    it('an inline organizer naming the administrator is 403 rest_forbidden, as POST /organizers is', async () => {
      const direct = await t.api.post('/organizers', { as: 'author', json: { organizer: 'Direct Stolen Org', author: String(adminId) } });
      assert.equal(direct.status, 403);
      const inline = await t.api.post('/events', {
        as: 'author',
        json: { title: 'Inline stolen org', ...DATES, organizer: [{ organizer: 'Own Org' }, { organizer: 'Inline Stolen Org', author: String(adminId) }] },
      });
      assert.deepEqual(answer(inline), answer(direct));
      assert.deepEqual(await named(t, 'organizers', 'Inline Stolen Org'), []);
      assert.deepEqual(await named(t, 'organizers', 'Own Org'), []);
    });

    it('the same inline venue on an update is 403 and changes nothing', async () => {
      const event = await create(t, 'events', { title: 'Author event', ...DATES }, 'author');
      const res = await t.api.post(`/events/${event.id}`, { as: 'author', json: { title: 'Changed', venue: { venue: 'Update Stolen Hall', author: adminId } } });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'rest_forbidden');
      assert.deepEqual(await named(t, 'venues', 'Update Stolen Hall'), []);
      const after = await t.api.get(`/events/${event.id}`, { as: 'author' });
      assert.equal(after.body.title, 'Author event');
    });

    it('naming oneself is fine, and an editor may name another user, as on the direct route', async () => {
      const own = await create(t, 'events', { title: 'Own venue', ...DATES, venue: { venue: 'Own Named Hall', author: authorId } }, 'author');
      assert.equal(own.venue.author, String(authorId));
      const byEditor = await create(t, 'events', { title: 'Editor venue', ...DATES, venue: { venue: 'Given Hall', author: authorId } }, 'editor');
      assert.equal(byEditor.venue.author, String(authorId));
    });
  });

  describe('validation', () => {
    it('an unknown author is refused with the direct route error inside the venue parameter, and creates nothing', async () => {
      const direct = await t.api.post('/venues', { as: 'author', json: { venue: 'Nobody Hall', author: MISSING } });
      assert.equal(direct.status, 400);
      assert.equal(direct.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(direct.body.data.params), ['author']);
      for (const as of ['author', 'admin']) {
        const inline = await t.api.post('/events', { as, json: { title: 'Nobody', ...DATES, venue: { venue: 'Nobody Hall', author: MISSING } } });
        assert.equal(inline.status, 400, JSON.stringify(inline.body));
        assert.equal(inline.body.code, 'rest_invalid_param');
        assert.deepEqual(Object.keys(inline.body.data.params), ['venue']);
        assert.deepEqual(inline.body.data.details.venue, direct.body);
        assert.equal(inline.body.data.params.venue, direct.body.message);
      }
      assert.deepEqual(await named(t, 'venues', 'Nobody Hall'), []);
      const organizer = await t.api.post('/events', { as: 'admin', json: { title: 'Nobody', ...DATES, organizer: [{ organizer: 'Nobody Org', author: MISSING }] } });
      assert.equal(organizer.status, 400);
      assert.deepEqual(Object.keys(organizer.body.data.params), ['organizer']);
      assert.deepEqual(organizer.body.data.details.organizer.data.params, { author: 'Invalid parameter.' });
    });

    it('an unknown status or a bad date is refused as on the direct route', async () => {
      for (const field of [{ status: 'bogus' }, { date: 'not a date' }]) {
        const direct = await t.api.post('/venues', { as: 'admin', json: { venue: 'Bad Field Hall', ...field } });
        assert.equal(direct.status, 400);
        const inline = await t.api.post('/events', { as: 'admin', json: { title: 'Bad field', ...DATES, venue: { venue: 'Bad Field Hall', ...field } } });
        assert.equal(inline.status, 400);
        assert.deepEqual(inline.body.data.details.venue, direct.body);
      }
      assert.deepEqual(await named(t, 'venues', 'Bad Field Hall'), []);
    });
  });

  describe('status', () => {
    it("a contributor's inline publish becomes pending, as on the direct route", async () => {
      const direct = await create(t, 'venues', { venue: 'Contributor Direct Hall', status: 'publish' }, 'contributor');
      const event = await create(t, 'events', { title: 'Contributor event', ...DATES, venue: { venue: 'Contributor Inline Hall', status: 'publish' } }, 'contributor');
      assert.equal(direct.status, 'pending');
      assert.equal(event.venue.status, direct.status);
      const organizer = await create(t, 'events', { title: 'Contributor org event', ...DATES, organizer: [{ organizer: 'Contributor Inline Org', status: 'private' }] }, 'contributor');
      assert.equal(organizer.organizer[0].status, 'pending');
    });
  });

  describe('references by id', () => {
    it("the fields of an inline entry with an id are ignored: an author cannot rename the administrator's venue", async () => {
      const event = await create(t, 'events', { title: 'By id', ...DATES, venue: { id: adminVenue.id, venue: 'Renamed Hall', author: authorId } }, 'author');
      assert.equal(event.venue.id, adminVenue.id);
      const venue = await t.api.get(`/venues/${adminVenue.id}`);
      assert.equal(venue.body.venue, 'Admin Hall');
      assert.equal(venue.body.author, String(adminId));
    });

    it('a venue the caller may not read is refused as an unknown one, by id and as {id}', async () => {
      for (const ref of [adminDraftVenue.id, { id: adminDraftVenue.id }]) {
        const hidden = await t.api.post('/events', { as: 'author', json: { title: 'Hidden venue', ...DATES, venue: ref } });
        const missing = await t.api.post('/events', { as: 'author', json: { title: 'Hidden venue', ...DATES, venue: typeof ref === 'number' ? MISSING : { id: MISSING } } });
        assert.equal(missing.status, 400);
        assert.deepEqual(answer(hidden), answer(missing));
      }
      const organizer = await create(t, 'organizers', { organizer: 'Admin Draft Org', status: 'draft' });
      const hidden = await t.api.post('/events', { as: 'author', json: { title: 'Hidden org', ...DATES, organizer: [organizer.id] } });
      const missing = await t.api.post('/events', { as: 'author', json: { title: 'Hidden org', ...DATES, organizer: [MISSING] } });
      assert.equal(missing.status, 400);
      assert.deepEqual(answer(hidden), answer(missing));
      // The editor may read it: linked.
      const linked = await create(t, 'events', { title: 'Editor links draft', ...DATES, venue: adminDraftVenue.id }, 'editor');
      assert.equal(linked.venue.id, adminDraftVenue.id);
    });
  });
});

forEachStore('arguments naming a record reveal nothing the caller may not read', (t) => {
  let draft: Json;
  let published: Json;
  let draftVenue: Json;
  let draftOrganizer: Json;
  let venue: Json;
  let organizer: Json;
  let category: Json;
  let tag: Json;
  before(async () => {
    await t.user('author');
    await t.user('author', 'other');
    await t.user('editor');
    category = await create(t, 'categories', { name: 'Secret Category' });
    tag = await create(t, 'tags', { name: 'secret-tag' });
    venue = await create(t, 'venues', { venue: 'Secret Venue' }, 'author');
    organizer = await create(t, 'organizers', { organizer: 'Secret Organizer' }, 'author');
    draftVenue = await create(t, 'venues', { venue: 'Draft Venue', status: 'draft' }, 'author');
    draftOrganizer = await create(t, 'organizers', { organizer: 'Draft Organizer', status: 'draft' }, 'author');
    draft = await create(t, 'events', { title: 'Draft', status: 'draft', ...DATES, venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id] }, 'author');
    published = await create(t, 'events', { title: 'Published', ...DATES, venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id] }, 'author');
    // A published event linking the draft venue and organizer (the author may read them).
    await create(t, 'events', { title: 'Published with drafts', ...DATES, venue: draftVenue.id, organizer: [draftOrganizer.id] }, 'author');
  });

  /** The queries naming a record, each with the record the caller may not read. */
  const cases = () => [
    { path: '/venues', arg: 'event', id: draft.id },
    { path: '/organizers', arg: 'event', id: draft.id },
    { path: '/categories', arg: 'post', id: draft.id },
    { path: '/categories', arg: 'event', id: draft.id },
    { path: '/tags', arg: 'post', id: draft.id },
    { path: '/tags', arg: 'event', id: draft.id },
    { path: '/events', arg: 'post_parent', id: draft.id },
    { path: '/events', arg: 'venue', id: draftVenue.id },
    { path: '/events', arg: 'organizer', id: draftOrganizer.id },
  ];

  for (const as of [null, 'other']) {
    it(`${as ?? 'anonymous'}: a record it may not read answers exactly as a missing one`, async () => {
      for (const c of cases()) {
        const hidden = await t.api.get(c.path, { as, query: { [c.arg]: c.id, hide_empty: c.path === '/categories' || c.path === '/tags' ? 'false' : undefined } });
        const missing = await t.api.get(c.path, { as, query: { [c.arg]: MISSING, hide_empty: c.path === '/categories' || c.path === '/tags' ? 'false' : undefined } });
        assert.equal(missing.status, 400, `${c.path}?${c.arg}`);
        assert.deepEqual(answer(hidden), answer(missing), `${c.path}?${c.arg}`);
      }
    });
  }

  it('the same filters on a published record answer as before', async () => {
    const venues = await t.api.get('/venues', { query: { event: published.id } });
    assert.deepEqual(
      venues.body.venues.map((v: Json) => v.id),
      [venue.id],
    );
    const organizers = await t.api.get('/organizers', { query: { event: published.id } });
    assert.deepEqual(
      organizers.body.organizers.map((o: Json) => o.id),
      [organizer.id],
    );
    const categories = await t.api.get('/categories', { query: { post: published.id } });
    assert.deepEqual(
      categories.body.categories.map((c: Json) => c.id),
      [category.id],
    );
    const children = await t.api.get('/events', { query: { post_parent: published.id } });
    assert.equal(children.status, 200);
    assert.equal(children.body.total, 0);
  });

  for (const as of ['author', 'editor']) {
    it(`${as} (who may read the draft) gets the real answer`, async () => {
      const venues = await t.api.get('/venues', { as, query: { event: draft.id } });
      assert.equal(venues.status, 200);
      assert.deepEqual(
        venues.body.venues.map((v: Json) => v.id),
        [venue.id],
      );
      const organizers = await t.api.get('/organizers', { as, query: { event: draft.id } });
      assert.deepEqual(
        organizers.body.organizers.map((o: Json) => o.id),
        [organizer.id],
      );
      const categories = await t.api.get('/categories', { as, query: { post: draft.id, hide_empty: 'false' } });
      assert.deepEqual(
        categories.body.categories.map((c: Json) => c.id),
        [category.id],
      );
      const tags = await t.api.get('/tags', { as, query: { event: draft.id, hide_empty: 'false' } });
      assert.deepEqual(
        tags.body.tags.map((x: Json) => x.id),
        [tag.id],
      );
      const children = await t.api.get('/events', { as, query: { post_parent: draft.id } });
      assert.equal(children.status, 200);
      const byVenue = await t.api.get('/events', { as, query: { venue: draftVenue.id, ...WINDOW } });
      assert.equal(byVenue.status, 200);
      assert.deepEqual(
        byVenue.body.events.map((e: Json) => e.title),
        ['Published with drafts'],
      );
      const byOrganizer = await t.api.get('/events', { as, query: { organizer: draftOrganizer.id, ...WINDOW } });
      assert.equal(byOrganizer.body.total, 1);
    });
  }
});
