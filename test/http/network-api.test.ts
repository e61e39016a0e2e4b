/**
 * The network's administration over HTTP (`calendar/network/v1`): calendars created, listed,
 * renamed, suspended and resumed, deleted only when forced; members given a role by login; only
 * network administrators manage (a calendar's own administrator does not); any signed-in user
 * lists the calendars they have a role in; the same answers under `/c/{slug}/`.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

const N = '/api/calendar/network/v1';

forEachStore('network API: calendars over HTTP', (t) => {
  const under = (slug: string, path: string) => `${t.origin}/c/${slug}${N}${path}`;

  it('declares the namespace: its index and its document', async () => {
    const index = await t.api.get(N);
    assert.equal(index.status, 200, index.text);
    assert.equal(index.body.namespace, 'calendar/network/v1');
    assert.ok(index.body.routes['/calendar/network/v1/calendars'], Object.keys(index.body.routes).join(', '));
    assert.ok(index.body.routes['/calendar/network/v1/calendars/(?P<id>\\d+)/members']);
    const doc = await t.api.get(`${N}/doc`);
    assert.equal(doc.status, 200);
    assert.ok(Object.keys(doc.body.paths).some((p) => p.includes('/calendars')));
  });

  it('creates, lists (search, paging), reads, renames, suspends, resumes and deletes a calendar', async () => {
    const made = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'north', name: 'North side', quotas: { events: 100 } } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.slug, 'north');
    assert.equal(made.body.name, 'North side');
    assert.equal(made.body.status, 'active');
    assert.deepEqual(made.body.quotas, { events: 100 });
    assert.equal(made.body.url, `${t.config.siteUrl}/c/north`);
    assert.equal(made.headers.get('location'), `${t.origin}${N}/calendars/${made.body.id}`.replace(t.origin, new URL(t.config.siteUrl).origin));
    const id = made.body.id as number;
    await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'south', name: 'South side' } });

    const all = await t.api.get(`${N}/calendars`, { as: 'admin' });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.map((c: { slug: string }) => c.slug),
      ['default', 'north', 'south'],
    );
    assert.equal(all.headers.get('x-wp-total'), '3');
    const paged = await t.api.get(`${N}/calendars`, { as: 'admin', query: { per_page: 2, page: 2 } });
    assert.equal(paged.headers.get('x-wp-totalpages'), '2');
    assert.deepEqual(
      paged.body.map((c: { slug: string }) => c.slug),
      ['south'],
    );
    const found = await t.api.get(`${N}/calendars`, { as: 'admin', query: { search: 'north' } });
    assert.deepEqual(
      found.body.map((c: { slug: string }) => c.slug),
      ['north'],
    );

    assert.equal((await t.api.get(`${N}/calendars/${id}`, { as: 'admin' })).body.name, 'North side');
    const renamed = await t.api.patch(`${N}/calendars/${id}`, { as: 'admin', json: { name: 'Northern', slug: 'northern', quotas: { events: 5 } } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.slug, 'northern');
    assert.deepEqual(renamed.body.quotas, { events: 5 });
    const events = (slug: string) => `${t.origin}/c/${slug}/api/calendar/events/v1/events`;
    // Its name is its site's name (the REST index, the pages, the admin app's top bar).
    assert.equal((await t.api.get(`${t.origin}/c/northern/api`)).body.name, 'Northern');
    // Twice: an anonymous answer given twice is kept and replayed below the server, until the
    // change log moves; a suspension moves it.
    assert.equal((await t.api.get(events('northern'))).status, 200);
    assert.equal((await t.api.get(events('northern'))).status, 200);

    const suspended = await t.api.post(`${N}/calendars/${id}`, { as: 'admin', json: { status: 'suspended' } });
    assert.equal(suspended.body.status, 'suspended');
    const closed = await t.api.get(events('northern'));
    assert.equal(closed.status, 503);
    assert.equal(closed.body.code, 'calendar_suspended');
    await t.api.post(`${N}/calendars/${id}`, { as: 'admin', json: { status: 'active' } });
    assert.equal((await t.api.get(events('northern'))).status, 200);

    const unforced = await t.api.delete(`${N}/calendars/${id}`, { as: 'admin' });
    assert.equal(unforced.status, 501);
    assert.equal(unforced.body.code, 'calendar_trash_not_supported');
    assert.equal((await t.api.get(`${N}/calendars/${id}`, { as: 'admin' })).status, 200);
    const deleted = await t.api.delete(`${N}/calendars/${id}`, { as: 'admin', query: { force: 'true' } });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.deleted, true);
    assert.equal(deleted.body.previous.slug, 'northern');
    const gone = await t.api.get(`${N}/calendars/${id}`, { as: 'admin' });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'calendar_not_found');
    assert.equal((await t.api.get(events('northern'))).status, 404);
  });

  it('gives and removes roles by login: the member then enters the calendar, and lists only their calendars', async () => {
    const east = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'east', name: 'East' } });
    const west = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'west', name: 'West' } });
    await t.user('subscriber', 'mira');
    const given = await t.api.post(`${N}/calendars/${east.body.id}/members`, { as: 'admin', json: { login: 'mira', role: 'editor' } });
    assert.equal(given.status, 200, given.text);
    assert.deepEqual(
      given.body.map((m: { login: string; role: string }) => [m.login, m.role]),
      [['mira', 'editor']],
    );
    assert.deepEqual((await t.api.get(`${N}/calendars/${east.body.id}/members`, { as: 'admin' })).body, given.body);
    assert.deepEqual((await t.api.get(`${N}/calendars/${west.body.id}/members`, { as: 'admin' })).body, []);

    const mine = await t.api.get(`${N}/calendars`, { as: 'mira' });
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(
      mine.body.map((c: { slug: string; role: string }) => [c.slug, c.role]),
      [
        ['default', 'subscriber'],
        ['east', 'editor'],
      ],
    );
    assert.equal(mine.headers.get('x-wp-total'), '2');
    // The same answer under a calendar's prefix: the network is one.
    assert.deepEqual((await t.api.get(under('east', '/calendars'), { as: 'mira' })).body, mine.body);

    const write = (slug: string) =>
      t.api.post(`${t.origin}/c/${slug}/api/calendar/events/v1/events`, { as: 'mira', json: { title: 'Mira’s', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00' } });
    assert.equal((await write('east')).status, 201);
    assert.equal((await write('west')).status, 403);

    const removed = await t.api.post(`${N}/calendars/${east.body.id}/members`, { as: 'admin', json: { login: 'mira', role: '' } });
    assert.deepEqual(removed.body, []);
    assert.deepEqual(
      (await t.api.get(`${N}/calendars`, { as: 'mira' })).body.map((c: { slug: string }) => c.slug),
      ['default'],
    );
    assert.equal((await write('east')).status, 403);
  });

  it('lets only network administrators manage: anonymous 401, editors and a calendar’s own administrator 403', async () => {
    const made = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'guarded', name: 'Guarded' } });
    await t.user('editor', 'edna');
    await t.user('subscriber', 'carl');
    await t.api.post(`${N}/calendars/${made.body.id}/members`, { as: 'admin', json: { login: 'carl', role: 'administrator' } });
    assert.equal((await t.api.get(`${N}/calendars`)).status, 401);
    assert.equal((await t.api.post(`${N}/calendars`, { json: { slug: 'x', name: 'X' } })).status, 401);
    assert.equal((await t.api.get(`${N}/calendars/${made.body.id}`)).status, 401);
    for (const who of ['edna', 'carl']) {
      for (const path of [N, under('guarded', '')]) {
        const create = await t.api.post(`${path}/calendars`, { as: who, json: { slug: 'mine', name: 'Mine' } });
        assert.equal(create.status, 403, `${who} at ${path}: ${create.text}`);
        assert.equal(create.body.code, 'rest_forbidden');
        assert.equal((await t.api.patch(`${path}/calendars/${made.body.id}`, { as: who, json: { name: 'Taken' } })).status, 403);
        assert.equal((await t.api.delete(`${path}/calendars/${made.body.id}`, { as: who, query: { force: 'true' } })).status, 403);
        assert.equal((await t.api.get(`${path}/calendars/${made.body.id}/members`, { as: who })).status, 403);
        assert.equal((await t.api.post(`${path}/calendars/${made.body.id}/members`, { as: who, json: { login: who, role: 'editor' } })).status, 403);
      }
    }
    // The editor of the default calendar lists the one calendar they have a role in.
    assert.deepEqual(
      (await t.api.get(`${N}/calendars`, { as: 'edna' })).body.map((c: { slug: string }) => c.slug),
      ['default'],
    );
    // The network administrator manages the same from within another calendar.
    const there = await t.api.patch(under('guarded', `/calendars/${made.body.id}`), { as: 'admin', json: { name: 'Guarded still' } });
    assert.equal(there.status, 200, there.text);
    assert.equal(there.body.name, 'Guarded still');
    const list = await t.api.get(under('guarded', '/calendars'), { as: 'admin' });
    assert.ok(list.body.some((c: { slug: string }) => c.slug === 'default'));
  });

  it('refuses bad input with the catalogued errors', async () => {
    const bad = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'Not A Slug', name: 'Bad' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.ok(bad.body.data.params.slug);
    const reserved = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'admin', name: 'Admin' } });
    assert.equal(reserved.body.code, 'rest_invalid_param');
    const missing = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'nameless' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const quota = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'q', name: 'Q', quotas: { events: -1 } } });
    assert.equal(quota.body.code, 'rest_invalid_param');
    // The refusal names its quota (the admin app shows it at that quota's field).
    assert.match(quota.body.data.params.quotas, /"events"/);
    assert.deepEqual(quota.body.data.details.quotas.data, { status: 400, quota: 'events' });

    const first = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'taken', name: 'Taken' } });
    assert.equal(first.status, 201);
    const second = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'taken', name: 'Taken again' } });
    assert.equal(second.status, 400);
    assert.equal(second.body.code, 'calendar_exists');
    const other = await t.api.post(`${N}/calendars`, { as: 'admin', json: { slug: 'other', name: 'Other' } });
    const clash = await t.api.patch(`${N}/calendars/${other.body.id}`, { as: 'admin', json: { slug: 'taken' } });
    assert.equal(clash.body.code, 'calendar_exists');
    const status = await t.api.patch(`${N}/calendars/${other.body.id}`, { as: 'admin', json: { status: 'closed' } });
    assert.equal(status.body.code, 'rest_invalid_param');
    const bytes = await t.api.patch(`${N}/calendars/${other.body.id}`, { as: 'admin', json: { quotas: { events: 2, media_bytes: 1.5 } } });
    assert.equal(bytes.status, 400);
    assert.equal(bytes.body.data.details.quotas.data.quota, 'media_bytes');

    for (const [method, path] of [
      ['GET', '/calendars/9999'],
      ['PATCH', '/calendars/9999'],
      ['DELETE', '/calendars/9999?force=true'],
      ['GET', '/calendars/9999/members'],
    ] as const) {
      const r = await t.api.request(method, `${N}${path}`, { as: 'admin', ...(method === 'PATCH' ? { json: { name: 'X' } } : {}) });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.code, 'calendar_not_found');
    }

    const home = await t.api.delete(`${N}/calendars/1`, { as: 'admin', query: { force: 'true' } });
    assert.equal(home.status, 400);
    assert.equal(home.body.code, 'calendar_default');
    const homeSuspend = await t.api.patch(`${N}/calendars/1`, { as: 'admin', json: { status: 'suspended' } });
    assert.equal(homeSuspend.body.code, 'rest_invalid_param');
    const nobody = await t.api.post(`${N}/calendars/${other.body.id}/members`, { as: 'admin', json: { login: 'nobody-here', role: 'editor' } });
    assert.equal(nobody.status, 400);
    assert.equal(nobody.body.code, 'rest_invalid_param');
    const king = await t.api.post(`${N}/calendars/${other.body.id}/members`, { as: 'admin', json: { login: 'admin', role: 'king' } });
    assert.equal(king.body.code, 'rest_invalid_param');
    const homeRole = await t.api.post(`${N}/calendars/1/members`, { as: 'admin', json: { login: 'admin', role: 'editor' } });
    assert.equal(homeRole.body.code, 'rest_invalid_param');
  });
});
