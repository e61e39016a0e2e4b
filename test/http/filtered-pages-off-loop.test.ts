/**
 * A list page whose filter may match few events spread over the whole listing (a venue, an
 * organizer, a category, a tag, a place, featured events) is read on the background reader (SQLite
 * files), as counts and searches are: such a page walks the listing index until it fills, and at
 * 1,000,000 events a venue's page held the event loop about 2 s of CPU, an organizer's 3.4 s
 * (bench/RESULTS.md, growing-reads); so is a deep page (page 5,000 of the default list held it
 * 190 ms). The first pages of the plain lists (the upcoming window, a date range) stay on the loop. The pages answer the same events either way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/harness.js';
import { backgroundReaderOf } from '../../src/store/handle.js';

const dir = mkdtempSync(join(tmpdir(), 'calendar-filtered-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('filtered list pages are read off the event loop [sqlite file]', () => {
  let t: TestServer;
  let asked: string[] = [];
  const made: Record<string, number> = {};
  before(async () => {
    t = await startServer({ name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` });
    for (let i = 0; i < 12; i++) {
      const day = `2031-05-${String(i + 1).padStart(2, '0')}`;
      const res = await t.api.post('/events', {
        as: 'admin',
        json: {
          title: `Event ${i}`,
          start_date: `${day} 10:00`,
          end_date: `${day} 11:00`,
          ...(i % 4 === 0 ? { venue: { venue: `Hall ${i}`, city: 'Lyon' }, organizer: [{ organizer: `Org ${i}` }], categories: ['Rare'], tags: ['seldom'], featured: true } : {}),
        },
      });
      assert.equal(res.status, 201, res.text);
      if (i === 4) {
        made.event = res.body.id;
        made.venue = res.body.venue.id;
        made.organizer = res.body.organizer[0].id;
      }
    }
    const reader = backgroundReaderOf(t.built.store.db);
    assert.ok(reader, 'a SQLite file has a background reader');
    const all = reader.all.bind(reader);
    reader.all = ((text: string, params: readonly unknown[]) => {
      asked.push(text);
      return all(text, params);
    }) as typeof reader.all;
  });
  after(async () => t?.close());

  const pageRead = () => asked.some((q) => /\blimit\b/i.test(q) && /order by/i.test(q));

  for (const [name, query] of [
    ['a venue', () => ({ venue: String(made.venue) })],
    ['an organizer', () => ({ organizer: String(made.organizer) })],
    ['a category', () => ({ categories: 'rare' })],
    ['a tag', () => ({ tags: 'seldom' })],
    ['featured events', () => ({ featured: 'true' })],
  ] as const) {
    it(`a page of ${name}: read off the loop, the same events`, async () => {
      asked = [];
      const res = await t.api.get('/events', { query: { ...query(), start_date: '2031-05-01', end_date: '2031-05-31', per_page: '2' } });
      assert.equal(res.status, 200, res.text);
      assert.ok(
        res.body.events.some((e: { id: number }) => e.id === made.event),
        JSON.stringify(res.body.events.map((e: { title: string }) => e.title)),
      );
      assert.ok(pageRead(), `the page was read on the background reader: ${asked.join('\n')}`);
    });
  }

  it('a deep page (5,000 rows before it or more) is read off the loop too', async () => {
    asked = [];
    const res = await t.api.get('/events', { query: { start_date: '2031-05-01', end_date: '2031-05-31', per_page: '50', page: '101' } });
    assert.ok(res.status === 200 || res.status === 404, res.text);
    assert.ok(pageRead(), `the page was read on the background reader: ${asked.join('\n')}`);
  });

  it('a plain page (a date range) stays on the loop', async () => {
    asked = [];
    const res = await t.api.get('/events', { query: { start_date: '2031-05-01', end_date: '2031-05-31', per_page: '5', page: '2' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.events.length, 5);
    assert.ok(!pageRead(), `no page statement off the loop: ${asked.join('\n')}`);
  });
});
