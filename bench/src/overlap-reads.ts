/**
 * Issue 45, item 5, the store alone: the events overlapping a month, read as the faces read them
 * before (a start-date window from 31 days before the month, which leaves out longer events; and
 * CalDAV's range without a lower bound, which holds them but reads every event that began before
 * the range's end) and as they read them now (`EventListFilter.overlaps`: the same window plus the
 * long events' own index). One process, one database (migrated), the three shapes in turn on each
 * month, each month asked once per shape (nothing kept answers it). Prints per shape the median
 * and the 90th percentile in milliseconds, and the ids found.
 *
 * Usage: node --import tsx bench/src/overlap-reads.ts DATABASE_URL [MONTHS (24)]
 */
import { DateTime } from 'luxon';
import { openStore } from '../../src/store/db.js';
import { findEventPageIds } from '../../src/store/event-pages.js';
import type { EventListFilter } from '../../src/store/event-list-results.js';
import { lookbackStart } from '../../src/store/event-overlaps.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: overlap-reads.ts DATABASE_URL [MONTHS]');
  process.exit(2);
}
const months = Number(process.argv[3] ?? 24);
const store = await openStore(url);
const base = { statuses: ['publish'], order: 'start' as const };
type Shape = 'window (before)' | 'unbounded (CalDAV before)' | 'overlaps (after)';
const shapes: Record<Shape, (from: string, until: string) => EventListFilter> = {
  'window (before)': (from, until) => ({ ...base, startFrom: lookbackStart(from), startUntil: until, endFrom: from }),
  'unbounded (CalDAV before)': (from, until) => ({ ...base, startUntil: until, endFrom: from }),
  'overlaps (after)': (from, until) => ({ ...base, overlaps: { from, until } }),
};
const times = new Map<Shape, number[]>();
const found = new Map<Shape, number>();
const first = DateTime.utc().startOf('month').minus({ months: 11 });
try {
  for (let i = 0; i < months; i++) {
    const m = first.plus({ months: i });
    const from = `${m.toFormat('yyyy-MM-dd')} 00:00:00`;
    const until = `${m.endOf('month').toFormat('yyyy-MM-dd')} 23:59:59`;
    const order = (Object.keys(shapes) as Shape[]).slice(i % 3).concat((Object.keys(shapes) as Shape[]).slice(0, i % 3));
    for (const shape of order) {
      const t = performance.now();
      // The month page's read: the first 1,001, not counted.
      const r = await findEventPageIds(store.db, store.dialect, shapes[shape](from, until), { limit: 1001, offset: 0, count: false });
      times.set(shape, [...(times.get(shape) ?? []), performance.now() - t]);
      found.set(shape, (found.get(shape) ?? 0) + r.ids.length);
    }
  }
  for (const [shape, xs] of times) {
    const s = [...xs].sort((a, b) => a - b);
    const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
    console.log(`${shape.padEnd(26)} median ${at(0.5).toFixed(2).padStart(9)} ms  p90 ${at(0.9).toFixed(2).padStart(9)} ms  ids ${found.get(shape)}`);
  }
} finally {
  await store.close();
}
