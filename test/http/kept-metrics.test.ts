/**
 * Issue 24: whether kept state is bounded is visible from outside. After ordinary traffic (reads
 * of events, lists, terms, venues; an authenticated create; a conditional read), `/metrics` has
 * `calendar_kept_entries{kind}` and `calendar_kept_entries_max{kind}` for every kind of structure
 * the service keeps across requests, each size within its bound (and `calendar_kept_bytes` within
 * `calendar_kept_bytes_max` for those bounded in bytes too).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

/** The kinds every store reports once such traffic has been served. */
const KINDS = [
  'public_events',
  'event_records',
  'event_term_filters',
  'event_totals',
  'event_pages',
  'term_rows',
  'term_pages',
  'term_refs',
  'venue_records',
  'organizer_records',
  'image_records',
  'venue_representations',
  'linked_pages',
  'versions',
  'viewers',
  'verified_passwords',
  'feed_transitions',
  'feed_listeners',
  'autop_memo',
  'iso_memo',
  'utc_memo',
  'zone_abbreviation_memo',
  'parsed_dates',
  'known_zones',
  'etag_hashes',
];
const BYTES_KINDS = ['public_events', 'event_records', 'venue_records', 'feed_transitions'];

function gauges(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}\\{kind="([^"]+)"\\} (\\S+)$`, 'gm'))) out.set(m[1]!, Number(m[2]));
  return out;
}

forEachStore('kept structures in /metrics', (t) => {
  it('every kind of kept structure reports its size and bound, the size within the bound', async () => {
    const created = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Kept', status: 'publish', start_date: '2030-02-01 10:00', end_date: '2030-02-01 12:00', categories: ['Kept category'], tags: ['Kept tag'], venue: { venue: 'Kept hall' } },
    });
    assert.equal(created.status, 201);
    const id = created.body.id;
    const first = await t.api.get(`/events/${id}`);
    await t.api.get(`/events/${id}`, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
    await t.api.get('/events', { query: { start_date: '2030-01-01', end_date: '2030-12-31', per_page: 1 } });
    await t.api.get('/events', { query: { categories: 'kept-category', start_date: '2030-01-01', end_date: '2030-12-31' } });
    await t.api.get('/categories', { query: { hide_empty: 'false' } });
    await t.api.get('/venues');
    await t.api.get('/events', { as: 'admin', query: { per_page: 1 } });

    const text = await (await fetch(`${t.origin}/metrics`)).text();
    const entries = gauges(text, 'calendar_kept_entries');
    const max = gauges(text, 'calendar_kept_entries_max');
    const missing = [...KINDS, t.config.databaseUrl.startsWith('sqlite') ? 'sqlite_statements' : 'postgres_statement_names'].filter((k) => !entries.has(k) || !max.has(k));
    assert.deepEqual(missing, [], 'every kind reports its size and bound');
    for (const [kind, n] of entries) {
      assert.ok(max.has(kind), `${kind} has a bound`);
      assert.ok(n >= 0 && n <= max.get(kind)!, `${kind}: ${n} within ${max.get(kind)}`);
    }
    assert.ok(entries.get('public_events')! >= 1 && entries.get('event_records')! >= 1, 'what was read is kept');
    const bytes = gauges(text, 'calendar_kept_bytes');
    const maxBytes = gauges(text, 'calendar_kept_bytes_max');
    for (const kind of BYTES_KINDS) {
      assert.ok(bytes.has(kind) && maxBytes.has(kind), `${kind} reports its bytes and their bound`);
      assert.ok(bytes.get(kind)! <= maxBytes.get(kind)!, `${kind}: ${bytes.get(kind)} within ${maxBytes.get(kind)}`);
    }
  });
});
