/**
 * Issue 45, item 5: what the reads by range cost before and after they found long events wherever
 * they began (`src/store/event-overlaps.ts`). Two builds serve two copies of one seeded database
 * (the after build adds its index to its copy at start); every read is sent to both in turn, the
 * order alternating, and every read is one not asked before (another month, range, day or page),
 * so no answer comes from kept pages: what is timed is the read itself. Per kind of read: median,
 * 90th percentile and mean milliseconds, and the events answered (the same but for the long events
 * the before build leaves out).
 *
 * Usage:
 *   node --import tsx bench/src/long-events.ts BEFORE_CLI BEFORE_DATABASE_URL AFTER_CLI AFTER_DATABASE_URL
 * Settings (environment): LONG_READS (comma-separated kinds below, default all), LONG_COUNT (reads
 * of each kind, default 24), LONG_JSON (also write the rows as JSON to this file).
 *
 * @example
 *   node --import tsx bench/src/long-events.ts /tmp/base/dist/cli/main.js sqlite:/tmp/b.db dist/cli/main.js sqlite:/tmp/a.db
 */
import { writeFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { startChild, type Child } from './processes.js';

const [beforeCli, beforeUrl, afterCli, afterUrl] = process.argv.slice(2);
if (!beforeCli || !beforeUrl || !afterCli || !afterUrl) {
  console.error('usage: long-events.ts BEFORE_CLI BEFORE_DATABASE_URL AFTER_CLI AFTER_DATABASE_URL');
  process.exit(2);
}
const count = Number(process.env.LONG_COUNT ?? 24);
const today = DateTime.utc().startOf('day');

/** The i-th read of each kind: a path (and a method and body for CalDAV), and how to count its events. */
interface Read {
  path: string;
  method?: string;
  body?: string;
  events(text: string): number;
}
const timeRange = (start: DateTime, end: DateTime) =>
  `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${start.toFormat("yyyyMMdd'T'HHmmss'Z'")}" end="${end.toFormat("yyyyMMdd'T'HHmmss'Z'")}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
const KINDS: Record<string, (i: number) => Read> = {
  // Months from eleven months ago on (the seed spans a year either side of today).
  month: (i) => ({ path: `/events/month/${today.minus({ months: 11 }).plus({ months: i }).toFormat('yyyy-MM')}/`, events: (t) => t.split('<li><a href=').length - 1 }),
  // FullCalendar's month grid (six weeks), a day later each time.
  fullcalendar: (i) => {
    const start = today.minus({ days: 300 }).plus({ days: i * 13 });
    return { path: `/wp-json/calendar/embed/v1/fullcalendar?start=${start.toISODate()}&end=${start.plus({ days: 42 }).toISODate()}&timeZone=UTC`, events: (t) => (JSON.parse(t) as unknown[]).length };
  },
  day: (i) => ({
    path: `/events/${today
      .minus({ days: 200 })
      .plus({ days: i * 17 })
      .toISODate()}/`,
    events: (t) => t.split('<article class="event').length - 1,
  }),
  // The upcoming list, page by page (each page a distinct read).
  list: (i) => ({ path: `/events/list/page/${i + 1}/`, events: (t) => t.split('<article class="event').length - 1 }),
  caldav: (i) => {
    const start = today.minus({ days: 250 }).plus({ days: i * 19, hours: 10 });
    return { path: '/dav/public/calendars/events/', method: 'REPORT', body: timeRange(start, start.plus({ hours: 6 })), events: (t) => t.split('<d:response>').length - 1 };
  },
};
const kinds = process.env.LONG_READS ? process.env.LONG_READS.split(',') : Object.keys(KINDS);

async function timed(child: Child, read: Read): Promise<{ ms: number; status: number; events: number }> {
  const t = performance.now();
  const res = await fetch(child.origin + read.path, read.method ? { method: read.method, body: read.body, headers: { depth: '1', 'content-type': 'application/xml' } } : {});
  const text = await res.text();
  return { ms: performance.now() - t, status: res.status, events: read.events(text) };
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p90: at(0.9), mean: s.reduce((a, b) => a + b, 0) / s.length };
};

const servers: Array<{ name: 'before' | 'after'; child: Child }> = [];
try {
  for (const [name, cli, url] of [
    ['before', beforeCli, beforeUrl],
    ['after', afterCli, afterUrl],
  ] as const) {
    const started = performance.now();
    const child = await startChild(name, [cli, 'serve'], { DATABASE_URL: url, LOG_LEVEL: 'warn' }, { readyPath: '/readyz', timeoutMs: 1_800_000 });
    console.log(`${name}: ready in ${Math.round(performance.now() - started)} ms`);
    servers.push({ name, child });
  }
  const rows: Array<{ kind: string; i: number; server: string; ms: number; status: number; events: number }> = [];
  for (const kind of kinds) {
    for (let i = 0; i < count; i++) {
      const read = KINDS[kind]!(i);
      const order = i % 2 === 0 ? servers : [...servers].reverse();
      for (const { name, child } of order) rows.push({ kind, i, server: name, ...(await timed(child, read)) });
    }
    for (const name of ['before', 'after']) {
      const mine = rows.filter((r) => r.kind === kind && r.server === name);
      const s = stats(mine.map((r) => r.ms));
      const statuses = [...new Set(mine.map((r) => r.status))].join('/');
      const events = mine.reduce((a, r) => a + r.events, 0);
      console.log(
        `${kind.padEnd(12)} ${name.padEnd(6)} median ${s.median.toFixed(1).padStart(8)} ms  p90 ${s.p90.toFixed(1).padStart(8)} ms  mean ${s.mean.toFixed(1).padStart(8)} ms  status ${statuses}  events ${events}`,
      );
    }
  }
  if (process.env.LONG_JSON) writeFileSync(process.env.LONG_JSON, JSON.stringify(rows, null, 1));
} finally {
  for (const { child } of servers) await child.stop();
}
