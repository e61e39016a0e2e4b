/**
 * A CalDAV client's first sync of a large calendar: an initial sync-collection REPORT with
 * `getetag` only (DAVx5, tsdav), a `PROPFIND Depth: 1` of `getetag` and `resourcetype` (Apple
 * Calendar, Thunderbird), both answered from ids and versions, and a `calendar-query` with
 * `calendar-data` over the range of the first 1,000 upcoming events. Per request: wall-clock time,
 * members, bytes, and the longest hold of the server's event loop meanwhile (its own loop watch, CPU
 * time). The server runs in this process (`buildApp`), with `CALDAV_MAX_EVENTS` above the size, on
 * a database seeded here (SQLite in a temporary file, BENCH_EVENTS events) or on DATABASE_URL as it is
 * (seeded beforehand, e.g. `events-calendar seed --events 1000000`). The bound: each listing
 * within 2 s at 20,000 events, and no hold of 100 ms.
 *
 * @example BENCH_EVENTS=20000 node --import tsx bench/src/caldav-first-sync.ts
 * @example DATABASE_URL=sqlite:/data/million.sqlite BENCH_ROUNDS=2 node --import tsx bench/src/caldav-first-sync.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/db.js';
import { seedCalendar } from '../../src/seed/calendar.js';

const env = process.env;
const EVENTS = Number(env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
/** The public tree's site calendar (BENCH_CALDAV_PATH: another, e.g. `/dav/calendars/events/` on a build from before the public tree). */
const CAL = env.BENCH_CALDAV_PATH ?? '/dav/public/calendars/events/';

async function main(): Promise<void> {
  const dir = env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'caldav-first-sync-'));
  const url = env.DATABASE_URL ?? `sqlite:${join(dir!, 'bench.sqlite')}`;
  const store = await openStore(url, {});
  try {
    if (dir) {
      const started = Date.now();
      await seedCalendar(store, { events: EVENTS, authorId: 1, timezone: 'UTC', batchSize: 1000 });
      console.error(`seeded ${EVENTS} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: url, LOG_LEVEL: 'silent', CALDAV_MAX_EVENTS: String(Math.max(EVENTS * 2, 2_000_000)), SLOW_REQUEST_LOG_MS: '100000' });
    const built = await buildApp(config, { store, logger: false });
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    const address = built.app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    /** One request: wall time, the loop's longest hold meanwhile (CPU ms), members, bytes. */
    const measure = async (method: string, path: string, body: string, headers: Record<string, string>) => {
      const started = performance.now();
      const res = await fetch(origin + path, { method, headers: { 'content-type': 'application/xml; charset=utf-8', 'accept-encoding': 'identity', ...headers }, body });
      const chunks: Uint8Array[] = [];
      const reader = res.body!.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        chunks.push(next.value);
      }
      const ms = performance.now() - started;
      const held = built.loopWatch.heldSince(started);
      const text = Buffer.concat(chunks).toString('utf8');
      return { status: res.status, ms, heldCpuMs: held.cpuMs, heldMs: held.ms, members: text.split('<d:response>').length - 1, bytes: text.length };
    };

    // The range of the first 1,000 upcoming events (the REST list, 50 a page).
    const startOf = async (page: number) => {
      const r = await fetch(`${origin}${config.restRoot}/calendar/events/v1/events?per_page=50&page=${page}`);
      const j = (await r.json()) as { events: Array<{ utc_start_date: string }> };
      return j.events[page === 1 ? 0 : j.events.length - 1]?.utc_start_date;
    };
    const from = await startOf(1);
    const to = await startOf(20);
    const stamp = (s: string | undefined) => (s ?? '20990101 000000').replace(/[-:]/g, '').replace(' ', 'T') + 'Z';

    const kinds: Array<[string, () => Promise<Awaited<ReturnType<typeof measure>>>]> = [
      [
        'first sync-collection (getetag)',
        () => measure('REPORT', CAL, '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>', {}),
      ],
      ['PROPFIND Depth 1 (getetag, resourcetype)', () => measure('PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>', { depth: '1' })],
      [
        'calendar-query with calendar-data, first 1,000 upcoming',
        () =>
          measure(
            'REPORT',
            CAL,
            `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${stamp(from)}" end="${stamp(to)}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`,
            { depth: '1' },
          ),
      ],
    ];
    console.log(`| request (${store.dialect}, ${EVENTS} events seeded here or DATABASE_URL) | round | status | members | MB | time s | loop held ms (CPU) |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [label, run] of kinds) {
        const r = await run();
        console.log(`| ${label} | ${round} | ${r.status} | ${r.members} | ${(r.bytes / 1e6).toFixed(2)} | ${(r.ms / 1000).toFixed(2)} | ${Math.round(r.heldMs)} (${Math.round(r.heldCpuMs)}) |`);
      }
    }
    await built.app.close();
  } finally {
    await store.close().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
