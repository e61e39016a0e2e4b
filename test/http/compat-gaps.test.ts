/**
 * Issue 14, the last compatibility gaps, each with the original's (WordPress') answer as the
 * expected value: the publication `date` in the site time zone, duplicate avoidance of venues and
 * organizers ignoring case in names and descriptions, and slugs of non-Latin titles kept
 * percent-encoded (by-slug routes accepting the encoded and the decoded form). Relative dates are
 * covered by the date parser's table tests (test/unit/dates.test.ts).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

const KONTSERT = '%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82'; // WordPress' slug of "Концерт"

forEachStore('publication date on a UTC site', (t) => {
  it('date is site time whatever the event time zone (WordPress: 2017-01-05 14:23:36 stays)', async () => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Dated', date: '2017-01-05 14:23:36', timezone: 'America/New_York', start_date: '2027-01-05 20:00:00', end_date: '2027-01-05 21:00:00' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.date, '2017-01-05 14:23:36');
    assert.equal(res.body.date_utc, '2017-01-05 14:23:36');
    // The event's own zone still applies to its start and end.
    assert.equal(res.body.utc_start_date, '2027-01-06 01:00:00');
  });
});

forEachStore(
  'publication date on a Europe/Rome site',
  (t) => {
    it('date is Rome time, date_utc derived; with both, date wins (as WordPress)', async () => {
      const base = { title: 'Rome dated', timezone: 'America/New_York', start_date: '2027-01-05 20:00:00', end_date: '2027-01-05 21:00:00' };
      const res = await t.api.post('/events', { as: 'admin', json: { ...base, date: '2017-01-05 14:23:36' } });
      assert.equal(res.body.date, '2017-01-05 14:23:36');
      assert.equal(res.body.date_utc, '2017-01-05 13:23:36');
      const both = await t.api.post('/events', { as: 'admin', json: { ...base, title: 'Both', date: '2017-07-05 14:23:36', date_utc: '2001-01-01 00:00:00' } });
      assert.equal(both.body.date, '2017-07-05 14:23:36');
      assert.equal(both.body.date_utc, '2017-07-05 12:23:36');
      const utcOnly = await t.api.post('/events', { as: 'admin', json: { ...base, title: 'UTC only', date_utc: '2017-01-05 14:23:36' } });
      assert.equal(utcOnly.body.date, '2017-01-05 15:23:36');
      assert.equal(utcOnly.body.date_utc, '2017-01-05 14:23:36');
      // On update too, and a change of the event's zone does not move it.
      const updated = await t.api.post(`/events/${res.body.id}`, { as: 'admin', json: { date: '2018-03-01 09:00:00', timezone: 'Asia/Tokyo' } });
      assert.equal(updated.body.date, '2018-03-01 09:00:00');
      assert.equal(updated.body.date_utc, '2018-03-01 08:00:00');
    });
  },
  { CALENDAR_TIMEZONE: 'Europe/Rome' },
);

forEachStore('duplicate avoidance ignores case (MySQL collation)', (t) => {
  it('a venue with a venue description is A venue with A venue description', async () => {
    const first = await t.api.post('/venues', { as: 'admin', json: { venue: 'A venue', description: 'A venue description' } });
    assert.equal(first.status, 201);
    const second = await t.api.post('/venues', { as: 'admin', json: { venue: 'a venue', description: 'a venue description', city: 'Turin' } });
    assert.equal(second.status, 201);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.body.city, 'Turin');
    const other = await t.api.post('/venues', { as: 'admin', json: { venue: 'A VENUE', description: 'another description' } });
    assert.notEqual(other.body.id, first.body.id);
  });

  it('beyond ASCII too: École Ünïon is école ünïon', async () => {
    const first = await t.api.post('/venues', { as: 'admin', json: { venue: 'École Ünïon', description: 'Salle Élysée' } });
    assert.equal(first.status, 201);
    const second = await t.api.post('/venues', { as: 'admin', json: { venue: 'école ünïon', description: 'salle élysée' } });
    assert.equal(second.body.id, first.body.id);
    const third = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'МУЗЕЙ Города' } });
    const fourth = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'музей города' } });
    assert.equal(fourth.body.id, third.body.id);
  });

  it('organizers and inline entries on events too', async () => {
    const first = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Jazz Society', description: 'Friends Of Jazz' } });
    const again = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'JAZZ SOCIETY', description: 'friends of jazz' } });
    assert.equal(again.body.id, first.body.id);
    const event = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Dup inline', start_date: '2027-02-01 20:00', end_date: '2027-02-01 21:00', organizer: [{ organizer: 'jazz society', description: 'FRIENDS OF JAZZ' }] },
    });
    assert.equal(event.body.organizer[0].id, first.body.id);
  });
});

forEachStore('slugs of non-Latin titles (WordPress sanitize_title)', (t) => {
  it('events keep the percent-encoded slug and answer by-slug to both forms', async () => {
    const mk = () => t.api.post('/events', { as: 'admin', json: { title: 'Концерт', start_date: '2027-03-01 20:00', end_date: '2027-03-01 22:00' } });
    const first = await mk();
    assert.equal(first.body.slug, KONTSERT);
    assert.equal(first.body.url, `${t.origin}/event/${KONTSERT}/`);
    const second = await mk();
    assert.equal(second.body.slug, `${KONTSERT}-2`);
    for (const path of [
      `/events/by-slug/${KONTSERT}`,
      `/events/by-slug/${KONTSERT.toUpperCase()}`,
      `/events/by-slug/${encodeURIComponent('Концерт')}`,
      `/events/by-slug/${encodeURIComponent(KONTSERT)}`,
    ]) {
      const res = await t.api.get(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.body.id, first.body.id, path);
    }
    const res2 = await t.api.get(`/events/by-slug/${encodeURIComponent('Концерт-2')}`);
    assert.equal(res2.body.id, second.body.id);
    // A slug sent as text is stored encoded too; writes by slug address the record.
    const renamed = await t.api.post(`/events/by-slug/${encodeURIComponent('концерт-2')}`, { as: 'admin', json: { slug: 'Джаз' } });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.slug, '%d0%b4%d0%b6%d0%b0%d0%b7');
  });

  it('venues and organizers too', async () => {
    const v = await t.api.post('/venues', { as: 'admin', json: { venue: 'Концерт' } });
    assert.equal(v.body.slug, KONTSERT);
    const o = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Концерт' } });
    assert.equal(o.body.slug, KONTSERT);
    for (const plural of ['venues', 'organizers']) {
      for (const slug of [KONTSERT, encodeURIComponent('Концерт')]) {
        const res = await t.api.get(`/${plural}/by-slug/${slug}`);
        assert.equal(res.status, 200, `${plural} ${slug}`);
      }
    }
  });

  it('categories and tags get WordPress slugs and are found by either form', async () => {
    const c = await t.api.post('/categories', { as: 'admin', json: { name: 'Концерт' } });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal(c.body.slug, KONTSERT);
    const e = await t.api.post('/events', { as: 'admin', json: { title: 'Tagged', start_date: '2027-03-02 20:00', end_date: '2027-03-02 22:00', categories: [c.body.id], status: 'publish' } });
    assert.equal(e.status, 201);
    for (const ref of [KONTSERT, 'концерт']) {
      const list = await t.api.get('/events', { query: { categories: ref, start_date: '2027-03-01', end_date: '2027-03-03' } });
      assert.equal(list.status, 200, ref);
      assert.deepEqual(
        (list.body.events as any[]).map((x) => x.id),
        [e.body.id],
        ref,
      );
    }
    const bySlug = await t.api.get('/categories', { query: { slug: 'Концерт' } });
    assert.deepEqual(
      (bySlug.body.categories as any[]).map((x) => x.id),
      [c.body.id],
    );
  });
});
