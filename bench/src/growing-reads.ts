/**
 * Issue 44: the anonymous reads whose cost grows with the data, each kind sent so that nothing
 * kept from an earlier request can answer it (a new search term, filter value, window or page per
 * request): searches (the event list, the list page, venues), filters (categories, tags, venue,
 * organizer, geolocation, featured), deep pages, wide date ranges, month pages (the pages face and
 * the embed's month view), FullCalendar ranges, CalDAV calendar-query time ranges and syncs, and
 * the iCalendar feeds of a month and of a window.
 *
 * Per kind: latency p50, p99 and max (requests one at a time, or BENCH_GROWING_CONCURRENCY at once),
 * the longest hold of the server's event loop during them (the server's own loop watch: its
 * `request held the event loop` log lines, SLOW_REQUEST_LOG_MS low), and the longest answer of a
 * `/livez` ping sent in a loop meanwhile (what a health check waited). The issue's bound: no
 * request holds the loop 100 ms or more, and a new search answers within 200 ms, at 1,000,000 events.
 *
 * Selected with `BENCH_SCENARIOS=growing-reads`; run on a server of its own,
 * started for it on the seeded database before the other scenarios (run.ts).
 *
 * @example BENCH_SIZES=1000000 BENCH_SCENARIOS=growing-reads npm run bench
 * @example BENCH_SIZES=20000 BENCH_SCENARIOS=growing-reads BENCH_GROWING_REQUESTS=10 BENCH_GROWING_KINDS=search,geo npm run bench
 */
import type { GrowingReadRun } from './results.js';
import { quantile } from './stats.js';
import { ADJECTIVES, BASE_TAGS, CATEGORY_TREE, CITIES, PERFORMERS, VENUE_FIRST } from '../../src/seed/vocabulary.js';
import { CALDAV_CALENDAR } from './caldav.js';

/** Settings of the server this measurement runs on: every request that holds the loop 5 ms or more is logged. */
export const GROWING_READS_ENV = { SLOW_REQUEST_LOG_MS: '5', LOG_LEVEL: 'warn' };

export interface GrowingReadsOptions {
  /** requests per kind (BENCH_GROWING_REQUESTS, 30) */
  requests: number;
  /** requests of a kind in flight at once (BENCH_GROWING_CONCURRENCY, 1) */
  concurrency: number;
  /** only these kinds (BENCH_GROWING_KINDS: keys or prefixes, comma-separated; default all) */
  kinds?: string[];
}

/** A request of a kind: the n-th one. */
interface Request {
  method: 'GET' | 'REPORT';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Kind {
  key: string;
  label: string;
  request(n: number): Request;
}

/** What the kinds address, found through the API before measuring (not measured). */
interface Discovered {
  origin: string;
  base: string;
  categories: string[];
  tags: number[];
  venues: number[];
  organizers: number[];
  /** events in the default (upcoming) list */
  listTotal: number;
}

/** A held-loop line of the server's log (web/loop-delay.ts). */
interface HoldLine {
  at: number;
  url: string;
  heldMs: number;
  cpuMs: number;
}

/** The server's log, line by line: the holds it reports (the rest is ignored). */
export function holdCollector(): { onOutput(chunk: string): void; since(t: number, until: number): HoldLine[] } {
  const holds: HoldLine[] = [];
  let partial = '';
  return {
    onOutput(chunk) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('request held the event loop')) continue;
        try {
          const j = JSON.parse(line) as { url?: string; heldMs?: number; cpuMs?: number };
          holds.push({ at: performance.now(), url: String(j.url ?? ''), heldMs: Number(j.heldMs ?? 0), cpuMs: Number(j.cpuMs ?? 0) });
        } catch {
          /* not a JSON line */
        }
      }
      if (holds.length > 100_000) holds.splice(0, holds.length - 50_000);
    },
    since: (t, until) => holds.filter((h) => h.at >= t && h.at <= until),
  };
}

/** A deterministic pseudo-random sequence (the same requests on every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, days: number) => new Date(d.getTime() + days * 86_400_000);

/**
 * Search terms never sent before in this run: pieces (3 to 8 letters) of the words the seed's
 * titles, venues and performers are made of (most match some events), and a share of letter
 * strings that match none (a scan that finds nothing reads everything).
 */
function searchTerms(seed: number): (n: number) => string {
  const rand = random(seed);
  const words = [...CATEGORY_TREE.flatMap(([c, subs]) => [c, ...subs.flatMap(([s, phrases]) => [s, ...phrases])]), ...BASE_TAGS, ...ADJECTIVES, ...PERFORMERS, ...VENUE_FIRST]
    .flatMap((w) => w.split(/[^A-Za-z]+/))
    .filter((w) => w.length >= 3);
  const used = new Set<string>();
  return (n) => {
    for (let tries = 0; tries < 50; tries++) {
      let term: string;
      if (n % 4 === 3) term = Array.from({ length: 4 + Math.floor(rand() * 4) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
      else {
        const w = words[Math.floor(rand() * words.length)]!;
        const len = Math.min(w.length, 3 + Math.floor(rand() * 6));
        const at = Math.floor(rand() * (w.length - len + 1));
        term = w.slice(at, at + len).toLowerCase();
      }
      if (!used.has(term)) {
        used.add(term);
        return term;
      }
    }
    return `zq${n.toString(36)}x`;
  };
}

function kinds(d: Discovered): Kind[] {
  const rand = random(44);
  const today = new Date();
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)]!;
  /** A day within the seed's spread (two years around today), new per call. */
  const day = () => addDays(today, Math.floor(rand() * 730) - 365);
  const month = () => ymd(day()).slice(0, 7);
  const term = searchTerms(7);
  const pageTerm = searchTerms(8);
  const venueTerm = searchTerms(9);
  const api = (path: string): Request => ({ method: 'GET', url: `${d.base}${path}` });
  const pages = Math.max(1, Math.ceil(d.listTotal / 10));
  // Deep pages: around page 5000 when the list has that many, else the last thousand pages.
  const deepFrom = pages > 6000 ? 4000 : Math.max(1, pages - 1000);
  const deepTo = pages > 6000 ? 6000 : pages;
  const calendarQuery = (from: Date, days: number) =>
    `<?xml version="1.0" encoding="utf-8"?><c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${ymd(from).replace(/-/g, '')}T000000Z" end="${ymd(addDays(from, days)).replace(/-/g, '')}T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
  const dav = (body: string, depth = '1'): Request => ({
    method: 'REPORT',
    url: `${d.origin}${CALDAV_CALENDAR}`,
    headers: { depth, 'content-type': 'application/xml; charset=utf-8' },
    body,
  });
  const list: Kind[] = [
    { key: 'search', label: 'event list, a new search term per request (`/events?search=`)', request: (n) => api(`/events?search=${encodeURIComponent(term(n))}`) },
    {
      key: 'search-page',
      label: 'list page, a new search term (`/events/list/?tribe-bar-search=`)',
      request: (n) => ({ method: 'GET', url: `${d.origin}/events/list/?tribe-bar-search=${encodeURIComponent(pageTerm(n))}` }),
    },
    { key: 'search-venues', label: 'venue list, a new search term (`/venues?search=`)', request: (n) => api(`/venues?search=${encodeURIComponent(venueTerm(n))}`) },
    {
      key: 'filter-category',
      label: 'event list by category, from a new day (`categories=` and `start_date=`)',
      request: () => api(`/events?categories=${encodeURIComponent(pick(d.categories))}&start_date=${ymd(day())}`),
    },
    { key: 'filter-tag', label: 'event list by tag, from a new day (`tags=` and `start_date=`)', request: () => api(`/events?tags=${pick(d.tags)}&start_date=${ymd(day())}`) },
    { key: 'filter-venue', label: 'event list by venue, from a new day (`venue=`)', request: () => api(`/events?venue=${pick(d.venues)}&start_date=${ymd(day())}`) },
    { key: 'filter-organizer', label: 'event list by organizer, from a new day (`organizer=`)', request: () => api(`/events?organizer=${pick(d.organizers)}&start_date=${ymd(day())}`) },
    {
      key: 'filter-geo',
      label: 'event list within a new circle (`geoloc_lat`, `geoloc_lng`, `geoloc_radius` 5-200 km)',
      request: () => {
        const city = pick([...CITIES]);
        const lat = (city[5] + (rand() - 0.5) * 0.5).toFixed(4);
        const lng = (city[6] + (rand() - 0.5) * 0.5).toFixed(4);
        return api(`/events?geoloc_lat=${lat}&geoloc_lng=${lng}&geoloc_radius=${5 + Math.floor(rand() * 195)}&geoloc_unit=km`);
      },
    },
    { key: 'filter-featured', label: 'featured events, from a new day (`featured=true&start_date=`)', request: () => api(`/events?featured=true&start_date=${ymd(day())}`) },
    { key: 'deep-page', label: `a deep page of the default list (pages ${deepFrom}-${deepTo})`, request: () => api(`/events?page=${deepFrom + Math.floor(rand() * (deepTo - deepFrom + 1))}`) },
    {
      key: 'wide-range',
      label: 'every event from 2000 to 2099, a new page (`start_date`, `end_date`, `page` 1-200)',
      request: () => api(`/events?start_date=2000-01-01&end_date=2099-12-31&page=${1 + Math.floor(rand() * 200)}`),
    },
    { key: 'month-page', label: 'month page (HTML, `/events/month/YYYY-MM/`), a month of the seed', request: () => ({ method: 'GET', url: `${d.origin}/events/month/${month()}/` }) },
    { key: 'embed-month', label: "embed's month view (`/embed/?view=month&month=`)", request: () => ({ method: 'GET', url: `${d.origin}/embed/?view=month&month=${month()}` }) },
    {
      key: 'fullcalendar',
      label: 'FullCalendar source, a new range of 1 to 400 days (`calendar/embed/v1/fullcalendar`)',
      request: () => {
        const from = day();
        return { method: 'GET', url: `${d.origin}/api/calendar/embed/v1/fullcalendar?start=${ymd(from)}&end=${ymd(addDays(from, 1 + Math.floor(rand() * 400)))}&timeZone=UTC` };
      },
    },
    { key: 'caldav-query', label: 'CalDAV calendar-query, a new time range of 7 to 90 days (getetag)', request: () => dav(calendarQuery(day(), 7 + Math.floor(rand() * 84))) },
    {
      key: 'caldav-sync',
      label: 'CalDAV sync-collection from the start (no token; getetag)',
      request: () => dav('<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>', '0'),
    },
    {
      key: 'caldav-sync-limited',
      label: 'CalDAV sync-collection from the start, the first 50-500 (`limit/nresults`)',
      request: () =>
        dav(
          `<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:limit><d:nresults>${50 + Math.floor(rand() * 451)}</d:nresults></d:limit><d:prop><d:getetag/></d:prop></d:sync-collection>`,
          '0',
        ),
    },
    // Last: the kinds above draw the same random requests as before these were added.
    {
      key: 'ical-month',
      label: 'iCalendar feed of a month (`/events/month/YYYY-MM/?ical=1`)',
      request: () => ({ method: 'GET', url: `${d.origin}/events/month/${month()}/?ical=1` }),
    },
    {
      key: 'ical-window',
      label: 'iCalendar feed of a new window of 1 to 60 days (`/events.ics?start_date=&end_date=`)',
      request: () => {
        const from = day();
        return { method: 'GET', url: `${d.origin}/events.ics?start_date=${ymd(from)}&end_date=${ymd(addDays(from, Math.floor(rand() * 60)))}` };
      },
    },
  ];
  return list;
}

async function json<T>(url: string): Promise<T | undefined> {
  const res = await fetch(url);
  if (res.status !== 200) {
    await res.arrayBuffer();
    return undefined;
  }
  return (await res.json()) as T;
}

async function discover(origin: string): Promise<Discovered> {
  const base = `${origin}/api/calendar/events/v1`;
  const cats = (await json<{ categories?: Array<{ slug: string }> }>(`${base}/categories?per_page=100`))?.categories ?? [];
  const tags = (await json<{ tags?: Array<{ id: number }> }>(`${base}/tags?per_page=100`))?.tags ?? [];
  const venues: number[] = [];
  const organizers: number[] = [];
  for (const page of [1, 2, 3]) {
    venues.push(...((await json<{ venues?: Array<{ id: number }> }>(`${base}/venues?per_page=100&page=${page}`))?.venues ?? []).map((v) => v.id));
    organizers.push(...((await json<{ organizers?: Array<{ id: number }> }>(`${base}/organizers?per_page=100&page=${page}`))?.organizers ?? []).map((o) => o.id));
  }
  const list = await fetch(`${base}/events`);
  await list.arrayBuffer();
  return {
    origin,
    base,
    categories: cats.map((c) => c.slug),
    tags: tags.map((t) => t.id),
    venues: venues.length ? venues : [1],
    organizers: organizers.length ? organizers : [1],
    listTotal: Number(list.headers.get('x-tec-total') ?? list.headers.get('x-wp-total') ?? 0),
  };
}

/** `/livez` in a loop (a pause of 5 ms between answers) until stopped: every answer's time (ms). */
function pingLivez(origin: string): { stop(): Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${origin}/livez`);
        await res.arrayBuffer();
      } catch {
        /* counted by its time */
      }
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return times;
    },
  };
}

/** Every kind's requests against a server whose log lines reach `holds`. */
export async function growingReads(origin: string, holds: ReturnType<typeof holdCollector>, options: GrowingReadsOptions, log: (line: string) => void = () => {}): Promise<GrowingReadRun[]> {
  const d = await discover(origin);
  const wanted = options.kinds?.filter(Boolean);
  const selected = kinds(d).filter((k) => !wanted?.length || wanted.some((w) => k.key === w || k.key.startsWith(w)));
  const runs: GrowingReadRun[] = [];
  for (const kind of selected) {
    const statuses: Record<string, number> = {};
    const times: number[] = [];
    let error: string | undefined;
    // One request first, not measured: the first use of a route compiles its code.
    try {
      const r = kind.request(-1);
      const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
      await res.arrayBuffer();
    } catch (e) {
      error = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
    const livez = pingLivez(origin);
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < options.requests) {
        const n = next++;
        const r = kind.request(n);
        const t0 = performance.now();
        try {
          const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        } catch (e) {
          statuses.error = (statuses.error ?? 0) + 1;
          error = (e as Error).message;
        }
        times.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
    // The log line of the last request is written as it ends: let it arrive.
    await new Promise((r) => setTimeout(r, 300));
    const ended = performance.now();
    const pings = await livez.stop();
    const held = holds.since(started, ended).filter((h) => !h.url.startsWith('/livez'));
    const longest = held.reduce<HoldLine | undefined>((a, h) => (a === undefined || h.heldMs > a.heldMs ? h : a), undefined);
    const run: GrowingReadRun = {
      key: kind.key,
      label: kind.label,
      requests: times.length,
      concurrency: Math.max(1, options.concurrency),
      statuses,
      p50: quantile(times, 0.5),
      p99: quantile(times, 0.99),
      max: times.length ? Math.max(...times) : NaN,
      heldMs: longest?.heldMs ?? 0,
      heldCpuMs: longest?.cpuMs ?? 0,
      heldOver100: held.filter((h) => h.cpuMs >= 100).length,
      ...(longest ? { heldUrl: longest.url.slice(0, 200) } : {}),
      livezMax: pings.length ? Math.max(...pings) : NaN,
      livezP99: quantile(pings, 0.99),
      ...(error ? { error } : {}),
    };
    runs.push(run);
    log(
      `  ${kind.key.padEnd(20)} ${String(run.requests).padStart(4)} requests (${Object.entries(statuses)
        .map(([s, c]) => `${s}: ${c}`)
        .join(', ')}), p50 ${run.p50.toFixed(1)} p99 ${run.p99.toFixed(1)} max ${run.max.toFixed(1)} ms; ` +
        `loop held at most ${run.heldMs} ms (CPU ${run.heldCpuMs} ms)${run.heldOver100 ? `, ${run.heldOver100} holds of 100 ms or more` : ''}; /livez at most ${run.livezMax.toFixed(1)} ms` +
        (error ? `  [${error}]` : ''),
    );
  }
  return runs;
}
