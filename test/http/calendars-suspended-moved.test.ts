/**
 * What a hostile review of the read faces of many calendars (CalDAV, feeds, pages, the embed,
 * federation) found, each a test that failed before its fix:
 *
 * - A suspended calendar shows nothing: under a slug it had before, its paths answer 503
 *   `calendar_suspended` as under its slug now, not a redirect that names its slug now (the
 *   redirect tells anyone holding an old link which calendar it became while suspended).
 * - No request answers 500 for its input: the embed's month view of December 9999 (a month its
 *   options accept) does, where the pages' month view of the same month answers 200.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

const when = { start_date: '2030-06-01 20:00', end_date: '2030-06-01 22:00' };

forEachStore('calendars: a suspended calendar under a former slug, the embed at the last month', (t) => {
  const rest = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;

  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
    const r = await t.api.post(rest('/c/north', '/events'), { as: 'admin', json: { ...when, title: 'North pub', status: 'publish' } });
    assert.equal(r.status, 201, r.text);
  });

  it('a suspended calendar answers 503 under a slug it had before, not a redirect naming its slug now', async () => {
    await t.built.services.calendars.create({ slug: 'sleepy', name: 'Sleepy side' });
    const made = await t.api.post(rest('/c/sleepy', '/events'), { as: 'admin', json: { ...when, title: 'Sleepy fair', status: 'publish' } });
    assert.equal(made.status, 201, made.text);
    await t.built.services.calendars.update('sleepy', { status: 'suspended' });
    await t.built.services.calendars.update('sleepy', { slug: 'drowsy' });
    // Under its slug now: 503, as documented.
    const now = await fetch(`${t.origin}/c/drowsy/events/`, { redirect: 'manual' });
    assert.equal(now.status, 503);
    await now.arrayBuffer();
    // Under its former slug: the same 503, and nothing that names where it went.
    for (const path of [
      '/c/sleepy/events/',
      `/c/sleepy/event/${made.body.slug}/`,
      '/c/sleepy/events.ics',
      '/c/sleepy/dav/public/calendars/events/',
      `/c/sleepy${t.config.restRoot}/calendar/events/v1/events`,
    ]) {
      const res = await fetch(`${t.origin}${path}`, { redirect: 'manual' });
      const text = await res.text();
      assert.equal(res.status, 503, `${path}: ${res.status} location=${res.headers.get('location')} ${text.slice(0, 200)}`);
      assert.equal(res.headers.get('location'), null, `${path} names the suspended calendar's slug now`);
      assert.equal((JSON.parse(text) as { code: string }).code, 'calendar_suspended');
    }
  });

  it('answers the embed’s month view of December 9999 without a 500, as the pages’ month view does', async () => {
    for (const prefix of ['', '/c/north']) {
      const page = await fetch(`${t.origin}${prefix}/events/month/9999-12/`);
      assert.equal(page.status, 200, `${prefix}/events/month/9999-12/`);
      await page.arrayBuffer();
      const embed = await fetch(`${t.origin}${prefix}/embed/?view=month&month=9999-12`);
      const text = await embed.text();
      assert.ok(embed.status < 500, `${prefix}/embed/?view=month&month=9999-12 answered ${embed.status}: ${text.slice(0, 300)}`);
    }
  });
});
