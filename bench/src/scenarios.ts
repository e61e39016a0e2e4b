/**
 * What the benchmark measures: one read or write per scenario, addressed against a seeded
 * database. Routes that do not exist yet (404 `rest_no_route`) are reported as "n/a".
 *
 * @example
 *   const ctx = await discover(origin, credentials);
 *   for (const s of SCENARIOS) s.path(ctx)
 */
import { CALDAV_SCENARIOS, caldavSyncToken } from './caldav.js';
import type { Scenario, ScenarioContext } from './scenario.js';

export type { Scenario, ScenarioContext };

export const FILTER = { category: 'music', search: 'jazz' } as const;

/** The geo scenario's circle: around one of the seed's cities. */
export const GEO_POINT = { city: 'Berlin', lat: 52.52, lng: 13.405, radiusKm: 10 } as const;

export const SCENARIOS: Scenario[] = [
  { key: 'single', label: 'single event by id', kind: 'read', method: 'GET', path: (c) => `/events/${c.eventId}` },
  { key: 'list', label: 'event list (10, embedded venue/organizers)', kind: 'read', method: 'GET', path: () => '/events' },
  {
    key: 'filtered',
    label: `filtered list (category ${FILTER.category} + 90-day window + search "${FILTER.search}")`,
    kind: 'read',
    method: 'GET',
    path: (c) => `/events?categories=${FILTER.category}&start_date=${c.today}&end_date=${c.in90Days}&search=${FILTER.search}`,
  },
  // Issue 15: a page deep in the default list (with series, mostly occurrences).
  { key: 'page100', label: 'event list, page 100 (/events?page=100)', kind: 'read', method: 'GET', path: () => '/events?page=100' },
  {
    // Issue 14: the seed puts a twelfth of the venues around each of its cities (src/seed/calendar.ts).
    key: 'geo',
    label: `geo-filtered list (within ${GEO_POINT.radiusKm} km of ${GEO_POINT.city}, default window)`,
    kind: 'read',
    method: 'GET',
    path: () => `/events?geoloc_lat=${GEO_POINT.lat}&geoloc_lng=${GEO_POINT.lng}&geoloc_radius=${GEO_POINT.radiusKm}&geoloc_unit=km`,
  },
  // Issue 10: the pages against the API's single event and list of the same run (target: within 2x).
  { key: 'page-event', label: 'event page (HTML, /event/{slug}/)', kind: 'read', method: 'GET', path: (c) => `${c.origin}/event/${encodeURIComponent(c.eventSlug)}/` },
  { key: 'page-list', label: 'list page (HTML, /events/, 10 events)', kind: 'read', method: 'GET', path: (c) => `${c.origin}/events/` },
  // Issue 11: a conditional GET answered 304 (the client has the current version).
  {
    key: 'single-304',
    label: 'single event, If-None-Match current (304)',
    kind: 'read',
    method: 'GET',
    path: (c) => `/events/${c.eventId}`,
    headers: (c) => ({ 'if-none-match': c.singleEtag ?? '' }),
    expectStatus: 304,
  },
  { key: 'list-304', label: 'event list, If-None-Match current (304)', kind: 'read', method: 'GET', path: () => '/events', headers: (c) => ({ 'if-none-match': c.listEtag ?? '' }), expectStatus: 304 },
  { key: 'venues', label: 'venue list', kind: 'read', method: 'GET', path: () => '/venues' },
  { key: 'organizers', label: 'organizer list', kind: 'read', method: 'GET', path: () => '/organizers' },
  { key: 'categories', label: 'category list', kind: 'read', method: 'GET', path: () => '/categories' },
  {
    key: 'create',
    label: 'event create (HTTP Basic admin)',
    kind: 'write',
    method: 'POST',
    path: () => '/events',
    headers: (c) => ({ authorization: c.authorization, 'content-type': 'application/json' }),
    body: (c) => {
      let n = 0;
      const run = Date.now().toString(36);
      return () => {
        n++;
        // Titles differ per request, as real clients' do (the same title would make every create
        // walk the slug numbering: title, title-2, … title-N).
        const day = 1 + (n % 28);
        const input: Record<string, unknown> = {
          title: `Benchmark concert ${run}-${n}`,
          description: 'An evening of <strong>live jazz</strong>.\n\nDoors at 19:00.',
          start_date: `2027-03-${String(day).padStart(2, '0')} 20:00:00`,
          end_date: `2027-03-${String(day).padStart(2, '0')} 22:30:00`,
          cost: '15',
        };
        if (c.venueId !== null) input.venue = c.venueId;
        if (c.organizerId !== null) input.organizer = [c.organizerId];
        if (c.categoryId !== null) input.categories = [c.categoryId];
        if (c.tagId !== null) input.tags = [c.tagId];
        return JSON.stringify(input);
      };
    },
  },
  // Issue 30: an unchanged CalDAV sync-collection, next to list-304 (bench/src/caldav.ts).
  ...CALDAV_SCENARIOS,
];

/**
 * The measurements of issue 9 ("fast while the calendar changes"), run by bench/src/churn.ts
 * after the load scenarios above. Selected with BENCH_SCENARIOS like them; a group name selects
 * all of its keys.
 */
export const CHURN_SCENARIOS = [
  { key: 'single-under-writes', read: 'single', instance: 'same', label: 'single event under writes (20 creates/s)' },
  { key: 'list-under-writes', read: 'list', instance: 'same', label: 'event list under writes (20 creates/s)' },
  { key: 'filtered-under-writes', read: 'filtered', instance: 'same', label: 'filtered list under writes (20 creates/s)' },
  { key: 'single-under-writes-b', read: 'single', instance: 'other', label: 'single event on instance B, writes on A' },
  { key: 'list-under-writes-b', read: 'list', instance: 'other', label: 'event list on instance B, writes on A' },
  { key: 'filtered-under-writes-b', read: 'filtered', instance: 'other', label: 'filtered list on instance B, writes on A' },
] as const;
export type ChurnScenario = (typeof CHURN_SCENARIOS)[number];

/** first read after a write (repeated), and the visibility delay between two instances */
export const AFTER_WRITE_KEY = 'after-write';
export const PROPAGATION_KEY = 'propagation';
/** issue 11: webhook deliveries per second */
export const WEBHOOKS_KEY = 'webhooks';
/** issue 24: reads while the largest accepted write of each kind runs (big-writes.ts) */
export const BIG_WRITES_KEY = 'big-writes';
/** issue 44: anonymous reads whose cost grows with the data (growing-reads.ts) */
export const GROWING_READS_KEY = 'growing-reads';

export const SCENARIO_GROUPS: Record<string, string[]> = {
  pages: ['single', 'list', 'page-event', 'page-list'],
  'under-writes': ['single-under-writes', 'list-under-writes', 'filtered-under-writes'],
  'two-instances': [PROPAGATION_KEY, 'single-under-writes-b', 'list-under-writes-b', 'filtered-under-writes-b'],
  issue9: [...CHURN_SCENARIOS.map((c) => c.key), AFTER_WRITE_KEY, PROPAGATION_KEY, 'create'],
  issue11: ['single', 'list', 'single-304', 'list-304', WEBHOOKS_KEY],
  issue24: [BIG_WRITES_KEY],
  caldav: ['list-304', 'caldav-sync-unchanged'],
};

/** The URL of a scenario's path: under the namespace, unless it is absolute (the pages). */
export function scenarioUrl(path: string, ctx: ScenarioContext): string {
  return /^https?:\/\//.test(path) ? path : ctx.base + path;
}

/** Every key BENCH_SCENARIOS accepts. */
export const ALL_KEYS = [...SCENARIOS.map((s) => s.key), ...CHURN_SCENARIOS.map((c) => c.key), AFTER_WRITE_KEY, PROPAGATION_KEY, WEBHOOKS_KEY, BIG_WRITES_KEY, GROWING_READS_KEY];

/** Expand BENCH_SCENARIOS (keys and group names) to keys; unknown names are an error. */
export function selectKeys(spec: string | undefined): Set<string> {
  if (!spec) return new Set(ALL_KEYS);
  const out = new Set<string>();
  for (const name of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const keys = SCENARIO_GROUPS[name] ?? (ALL_KEYS.includes(name) ? [name] : null);
    if (!keys) throw new Error(`BENCH_SCENARIOS: unknown scenario "${name}" (known: ${[...ALL_KEYS, ...Object.keys(SCENARIO_GROUPS)].join(', ')})`);
    for (const k of keys) out.add(k);
  }
  return out;
}

/**
 * Bodies of events that the filtered list must show: published (an administrator's default),
 * in category FILTER.category, starting 1-89 days from today at 20:00 UTC (inside the default
 * list's two-year window and the filtered list's 90-day window), with the search word in the
 * title and the description. Titles are unique per call.
 */
export function matchingEventBody(c: ScenarioContext, tag: string): (options?: { startsToday?: boolean }) => string {
  let n = 0;
  const run = `${Date.now().toString(36)}-${tag}`;
  return (options = {}) => {
    n++;
    const day = options.startsToday ? 0 : 1 + (n % 89);
    const start = new Date(Date.parse(`${c.today}T20:00:00Z`) + day * 86_400_000);
    const date = ymd(start);
    const input: Record<string, unknown> = {
      title: `Benchmark ${FILTER.search} night ${run}-${n}`,
      description: `An evening of <strong>live ${FILTER.search}</strong>.\n\nDoors at 19:00.`,
      status: 'publish',
      start_date: `${date} 20:00:00`,
      end_date: `${date} 22:30:00`,
      cost: '15',
    };
    if (c.filterCategoryId !== null) input.categories = [c.filterCategoryId];
    if (c.venueId !== null) input.venue = c.venueId;
    if (c.organizerId !== null) input.organizer = [c.organizerId];
    if (c.tagId !== null) input.tags = [c.tagId];
    return JSON.stringify(input);
  };
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** Find the records the scenarios address, through the API itself. */
export async function discover(base: string, authorization: string): Promise<ScenarioContext> {
  const res = await fetch(`${base}/events?per_page=50`);
  if (res.status !== 200) throw new Error(`GET /events answered ${res.status}: ${await res.text()}`);
  // The single event is one of the seeded events, not an occurrence of a recurring event (issue
  // 15: with series, occurrences fill the first pages): one with the first tag (the seed gives
  // series none), so that the same event is read with and without series.
  const tags = await fetch(`${base}/tags?per_page=1`);
  const firstTag = tags.status === 200 ? ((await tags.json()) as { tags?: Array<{ id: number }> }).tags?.[0]?.id : (await tags.arrayBuffer(), undefined);
  const tagged = firstTag === undefined ? undefined : await fetch(`${base}/events?per_page=50&tags=${firstTag}`);
  const taggedList = tagged?.status === 200 ? ((await tagged.json()) as { events: Array<Record<string, any>> }) : (await tagged?.arrayBuffer(), undefined);
  const all = (await res.json()) as { events: Array<Record<string, any>> };
  const list = taggedList?.events.length ? taggedList : all;
  if (list.events.length === 0) throw new Error('the seeded database lists no upcoming events');
  const rich =
    list.events.find((e) => !Array.isArray(e.venue) && e.organizer.length > 0 && e.categories.length > 0 && e.tags.length > 0) ??
    list.events.find((e) => !Array.isArray(e.venue) && e.organizer.length > 0) ??
    list.events[0]!;
  const now = new Date();
  const cats = await fetch(`${base}/categories?per_page=100`);
  const catList = cats.status === 200 ? (((await cats.json()) as { categories?: Array<{ id: number; slug: string }> }).categories ?? []) : [];
  const filterCategory = catList.find((t) => t.slug === FILTER.category);
  const single = await fetch(`${base}/events/${rich.id}`);
  await single.arrayBuffer();
  const listAgain = await fetch(`${base}/events`);
  await listAgain.arrayBuffer();
  return {
    base,
    origin: new URL(base).origin,
    authorization,
    eventId: rich.id,
    eventSlug: rich.slug,
    venueId: Array.isArray(rich.venue) ? null : rich.venue.id,
    organizerId: rich.organizer[0]?.id ?? null,
    categoryId: rich.categories[0]?.id ?? null,
    tagId: rich.tags[0]?.id ?? null,
    today: ymd(now),
    in90Days: ymd(new Date(now.getTime() + 90 * 86_400_000)),
    filterCategoryId: filterCategory?.id ?? null,
    listTotal: Number(res.headers.get('x-tec-total') ?? 0),
    singleEtag: single.headers.get('etag'),
    listEtag: listAgain.headers.get('etag'),
    caldavSyncToken: await caldavSyncToken(new URL(base).origin),
  };
}
