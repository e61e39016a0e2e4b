/**
 * Two generators of one series at once (the horizon job and an import, or two servers' jobs):
 * each step locks the series' row on PostgreSQL, so the second reads how far the first got instead
 * of inserting the same occurrences and losing a race on their slugs until its retries run out
 * (seen in CI: `import ics` of a biweekly series failed with `posts_type_slug_unique`). On SQLite
 * writers run one at a time; the test runs there too.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { generateSeries } from '../../src/domain/series-generation.js';

forEachStore('generating one series from several places at once', (t) => {
  it('four concurrent generators of a pending series all succeed and leave each occurrence once', async () => {
    // A daily series of 1,500: its write generates the first 100, the rest is pending.
    const created = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Daily race', status: 'publish', start_date: '2027-01-01 09:00', end_date: '2027-01-01 10:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=1500'] },
    });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const id = created.body.id as number;
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => generateSeries(t.built.services, id)));
    const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    assert.deepEqual(failed, []);
    const list = await t.api.get('/events', { as: 'admin', query: { post_parent: id, per_page: 1, start_date: '2027-01-01', end_date: '2032-01-01' } });
    assert.equal(list.status, 200, list.text.slice(0, 300));
    assert.equal(list.headers.get('x-wp-total'), '1500');
  });
});
