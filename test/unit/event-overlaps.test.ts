/**
 * "The events overlapping [from, until]" (`EventRange.overlaps`, `store/event-overlaps.ts`), on both
 * stores: every event that overlaps the range whatever its length (60 days, 400 days, all-day) and
 * none other, in start order, paged at every page size exactly as one list (across the long and
 * recent parts), descending too, with the right total; the kept pages follow a long event that is
 * added, moved or hidden; the long part is read through `events_long` (the planner proves the
 * partial index usable only from its condition as written) and the recent part through the
 * start-date index; and the window's arithmetic.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { ANONYMOUS, type Viewer } from '../../src/domain/permissions.js';
import type { EventRange } from '../../src/domain/events/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { eventPageStatements } from '../../src/store/event-pages.js';
import { LONG_EVENTS_INDEX, lookbackStart } from '../../src/store/event-overlaps.js';
import { STORES } from '../support/harness.js';

describe('lookbackStart', () => {
  it('is 31 calendar days before, the time kept; across months, years and leap days', () => {
    assert.equal(lookbackStart('2031-03-01 00:00:00'), '2031-01-29 00:00:00');
    assert.equal(lookbackStart('2031-01-10 12:30:00'), '2030-12-10 12:30:00');
    assert.equal(lookbackStart('2032-03-31 23:59:59'), '2032-02-29 23:59:59');
    assert.equal(lookbackStart('2031-06-15'), '2031-05-15');
    assert.equal(lookbackStart('not a date'), '', 'before every start: the recent part is the whole list');
  });
});

interface Made {
  id: number;
  title: string;
  start: string;
  end: string;
}

for (const kind of STORES) {
  describe(`events overlapping a range [${kind.name}]`, () => {
    let store: Store;
    let services: Services;
    let admin: Viewer;
    const made: Made[] = [];

    const create = async (title: string, start: string, end: string, extra: Record<string, unknown> = {}) => {
      const e = await services.events.create(admin, { title, start_date: start, end_date: end, timezone: 'UTC', ...extra });
      const m = { id: Number(e.id), title, start: e.start_local, end: e.end_local };
      if (extra.status === undefined && extra.hide_from_listings === undefined) made.push(m);
      return m;
    };
    const list = async (range: EventRange, page: number, perPage: number, counted = true) =>
      services.events.list(ANONYMOUS, { page, per_page: perPage, range, ...(counted ? {} : { countTotal: false as const }) }, services.links);
    /** What the range must hold: every published, listed event overlapping it, by start then id. */
    const expected = (from: string, until: string, descending = false) => {
      const out = made.filter((m) => m.start <= until && m.end >= from).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id - b.id));
      return (descending ? out.reverse() : out).map((m) => m.title);
    };
    const titles = (page: { events: Record<string, unknown>[] }) => page.events.map((e) => String(e.title));

    before(async () => {
      const schema = kind.name === 'postgres' ? `t_ovl_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
      await services.users.ensureAdmin('admin', 'a long enough password');
      admin = (await services.users.authenticate('Basic ' + Buffer.from('admin:a long enough password').toString('base64')))!;
      // March 2031: from 2031-03-01 00:00:00, the start-date window from 2031-01-29 00:00:00.
      await create('Sixty days', '2031-01-15 10:00:00', '2031-03-16 18:00:00'); // began 45 days before March
      await create('Four hundred days', '2030-05-05 09:00:00', '2031-06-09 17:00:00'); // 300 days before March
      await create('Long all-day', '2030-12-01', '2031-03-04', { all_day: true });
      await create('At the window', '2031-01-29 00:00:00', '2031-03-01 00:00:00'); // recent part, ends at `from`
      await create('Just before the window', '2031-01-28 23:59:59', '2031-03-01 00:00:00'); // long part, ends at `from`
      await create('Ended before', '2031-01-28 23:59:59', '2031-02-28 23:59:59');
      await create('Long, ended before', '2030-10-01 10:00:00', '2031-02-20 10:00:00');
      await create('Long, later', '2031-04-02 10:00:00', '2031-08-01 10:00:00');
      await create('Short in March', '2031-03-10 19:00:00', '2031-03-10 21:00:00');
      await create('Starts at the end', '2031-03-31 23:59:59', '2031-04-01 01:00:00');
      await create('April', '2031-04-01 00:00:00', '2031-04-01 02:00:00');
      await create('Three days over the month', '2031-02-27 10:00:00', '2031-03-02 10:00:00');
      await create('Year across', '2030-12-09 10:00:00', '2031-01-11 10:00:00'); // long, for a range from 2031-01-10
      for (let i = 0; i < 6; i++) await create(`Early March ${i}`, `2031-03-0${i + 1} 09:00:00`, `2031-03-0${i + 1} 10:00:00`);
      // Not listed for anyone anonymous: a draft and a hidden long event.
      await create('Long draft', '2030-11-01 10:00:00', '2031-05-01 10:00:00', { status: 'draft' });
      await create('Long hidden', '2030-11-01 10:00:00', '2031-05-01 10:00:00', { hide_from_listings: true });
    });
    after(async () => {
      await store?.close();
    });

    it('holds every overlapping event whatever its length, and none other, in start order', async () => {
      const march = { overlaps: { from: '2031-03-01 00:00:00', until: '2031-03-31 23:59:59' } };
      const page = await list(march, 1, 100);
      assert.deepEqual(titles(page), expected(march.overlaps.from, march.overlaps.until));
      for (const t of ['Sixty days', 'Four hundred days', 'Long all-day', 'Just before the window', 'At the window']) assert.ok(titles(page).includes(t), t);
      for (const t of ['Ended before', 'Long, ended before', 'Long, later', 'April', 'Long draft', 'Long hidden']) assert.ok(!titles(page).includes(t), t);
      assert.equal(page.total, titles(page).length);
      // A day 300 days into the long one, a range across the new year, a range open at its end.
      for (const [from, until] of [
        ['2031-03-02 00:00:00', '2031-03-02 23:59:59'],
        ['2031-01-10 00:00:00', '2031-01-10 23:59:59'],
        ['2030-07-04 00:00:00', '2030-07-04 23:59:59'],
        ['2031-05-01 00:00:00', '2031-05-31 23:59:59'],
      ] as const) {
        assert.deepEqual(titles(await list({ overlaps: { from, until } }, 1, 100)), expected(from, until), `${from}..${until}`);
      }
      assert.ok(titles(await list({ overlaps: { from: '2031-01-10 00:00:00', until: '2031-01-10 23:59:59' } }, 1, 100)).includes('Year across'));
      const open = await list({ overlaps: { from: '2031-03-20 00:00:00' } }, 1, 100);
      assert.deepEqual(titles(open), expected('2031-03-20 00:00:00', '9999-12-31 23:59:59'), 'open at its end');
      const openStart = await list({ overlaps: { until: '2030-06-01 00:00:00' } }, 1, 100);
      assert.deepEqual(titles(openStart), expected('0000-01-01 00:00:00', '2030-06-01 00:00:00'), 'open at its start');
    });

    it('pages as one list across its two parts, at every page size, counted or not, and descending', async () => {
      const from = '2031-03-01 00:00:00';
      const until = '2031-03-31 23:59:59';
      const all = expected(from, until);
      assert.ok(all.length > 8);
      for (const counted of [true, false]) {
        for (let perPage = 1; perPage <= all.length + 1; perPage++) {
          const seen: string[] = [];
          for (let page = 1; ; page++) {
            const r = await list({ overlaps: { from, until } }, page, perPage, counted);
            seen.push(...titles(r));
            if (counted) assert.equal(r.total, all.length, `total, ${perPage} a page`);
            if (page >= r.totalPages) break;
          }
          assert.deepEqual(seen, all, `${perPage} a page${counted ? '' : ', uncounted'}`);
        }
      }
      // A page past the long part alone (the long part counted to place the recent part's offset).
      assert.deepEqual(titles(await list({ overlaps: { from, until } }, 3, 4)), all.slice(8, 12));
      const desc = await list({ overlaps: { from, until }, descending: true }, 1, 100);
      assert.deepEqual(titles(desc), expected(from, until, true), 'latest first');
      const descPaged: string[] = [];
      for (let page = 1; page <= Math.ceil(all.length / 3); page++) descPaged.push(...titles(await list({ overlaps: { from, until }, descending: true }, page, 3)));
      assert.deepEqual(descPaged, expected(from, until, true));
    });

    it('keeps its pages current: a long event added, moved out, hidden, and back', async () => {
      const april = { overlaps: { from: '2031-04-10 00:00:00', until: '2031-04-30 23:59:59' } };
      const before = titles(await list(april, 1, 100, false));
      assert.deepEqual(titles(await list(april, 1, 100, false)), before, 'read again (kept)');
      const late = await create('Added long', '2031-02-01 10:00:00', '2031-04-15 10:00:00');
      assert.ok(titles(await list(april, 1, 100, false)).includes('Added long'), 'added');
      const update = async (input: Record<string, unknown>) => services.events.update(admin, (await services.events.findById(late.id))!, input);
      await update({ end_date: '2031-04-05 10:00:00' });
      assert.ok(!titles(await list(april, 1, 100, false)).includes('Added long'), 'moved out');
      await update({ end_date: '2031-04-20 10:00:00' });
      assert.ok(titles(await list(april, 1, 100, false)).includes('Added long'), 'back');
      await update({ hide_from_listings: true });
      assert.ok(!titles(await list(april, 1, 100, false)).includes('Added long'), 'hidden');
      made.splice(
        made.findIndex((m) => m.id === late.id),
        1,
      );
    });

    it('reads the long part through events_long and the recent part through the start-date index', async () => {
      const filter = { statuses: ['publish'], order: 'start' as const, overlaps: { from: '2031-03-01 00:00:00', until: '2031-03-31 23:59:59' } };
      const [long, recent] = eventPageStatements(store.db, store.dialect, filter, { limit: 101, offset: 0 });
      const plan = async (q: { sql: string; parameters: readonly unknown[] }) => {
        if (store.dialect === 'sqlite') {
          const r = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
          return r.rows.map((row) => row.detail).join('\n');
        }
        // A tiny table is cheapest read whole: ask PostgreSQL which index it would read.
        return store.db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
          return r.rows.map((row) => row['QUERY PLAN']).join('\n');
        });
      };
      const longPlan = await plan(long!);
      assert.match(longPlan, new RegExp(`\\b${LONG_EVENTS_INDEX}\\b`), longPlan);
      assert.doesNotMatch(longPlan, /events_listing/, longPlan);
      const recentPlan = await plan(recent!);
      assert.match(recentPlan, /events_listing/, recentPlan);
    });
  });
}
