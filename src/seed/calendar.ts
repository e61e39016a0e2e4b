/**
 * A realistic synthetic calendar for benchmarks and demos (`events-calendar seed --events N`):
 * venues, organizers, a category tree and tags linked to events in plausible proportions, start
 * dates spread over two years around today, a few drafts, all-day and multi-day events, costs,
 * images. Deterministic for a given `seed`.
 *
 * Every row is what the API itself would store for the same input: slugs are WordPress' unique
 * slugs, UTC columns are computed from the wall times and the event zone, costs go through
 * `parseCostInput`, terms are created by the term service, `stateprovince` is derived as on
 * create, term counts are recounted at the end. Only the transport differs (bulk inserts).
 *
 * @example
 *   await seedCalendar(store, { events: 100_000, authorId: 1, timezone: 'UTC', onProgress: (p) => bar.update(p.done) });
 */
import type { Store } from '../store/db.js';
import { bulkLoad, type BulkLoader, type BulkTransaction } from '../store/seed.js';
import type { PostType, Taxonomy } from '../store/schema.js';
import { parseCostInput } from '../domain/cost.js';
import { utcToWall, wallToUtc } from '../domain/dates/wall.js';
import { deriveStateProvince } from '../domain/linked-posts/index.js';
import { sanitizeSlug } from '../domain/slugs.js';
import { createTermService } from '../domain/terms/index.js';
import { EVENT_COLUMNS, POST_COLUMNS, memo, prng, slugAllocator, wallOf, type Cell } from './common.js';
import { ADJECTIVES, BASE_TAGS, CATEGORY_TREE, CITIES, COSTS, ORGANIZER_FIRST, ORGANIZER_TOPIC, PERFORMERS, STREETS, STREET_KIND, VENUE_FIRST, VENUE_KIND } from './vocabulary.js';

export interface SeedOptions {
  /** number of events to add */
  events: number;
  /** author of every record (a user id) */
  authorId: number;
  /** site time zone (CALENDAR_TIMEZONE): events are in it, publication dates are shown in it */
  timezone: string;
  /** PRNG seed (default 1) */
  seed?: number;
  /** "today" for the date spread (default: now) */
  now?: Date;
  /** events per transaction (default 5000) */
  batchSize?: number;
  onProgress?: (p: SeedProgress) => void;
}

export interface SeedProgress {
  phase: 'images' | 'terms' | 'venues' | 'organizers' | 'events' | 'counts';
  done: number;
  total: number;
}

/** How many of each record a dataset of `events` events gets. */
export interface SeedPlan {
  events: number;
  venues: number;
  organizers: number;
  images: number;
  /** tags (categories are a fixed tree of CATEGORY_TREE) */
  tags: number;
}

export interface SeedResult extends SeedPlan {
  categories: number;
  eventOrganizers: number;
  eventTerms: number;
  milliseconds: number;
}

export function seedPlan(events: number): SeedPlan {
  return {
    events,
    venues: Math.max(1, Math.round(events / 20)),
    organizers: Math.max(1, Math.round(events / 25)),
    images: Math.max(1, Math.round(events / 50)),
    tags: Math.min(400, Math.max(12, Math.round(events / 250))),
  };
}

const DAY = 86_400_000;
const QUARTER_HOUR = 900_000;

const VENUE_COLUMNS = ['post_id', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'] as const;
const ORGANIZER_COLUMNS = ['post_id', 'phone', 'website', 'email'] as const;
const IMAGE_COLUMNS = ['id', 'url', 'extension', 'mime_type', 'width', 'height', 'author_id', 'created_gmt'] as const;

/** A subcategory events are filed under, with the title phrases of its events. */
interface Leaf {
  id: number;
  parentId: number;
  name: string;
  phrases: readonly string[];
}

/** What the events link to: the records the earlier phases made. */
interface Made {
  imageIds: number[];
  venueIds: number[];
  organizerIds: number[];
  leaves: Leaf[];
  tagIds: number[];
}

/**
 * What the phases of one seed run share: the options, the one random sequence (the phases draw
 * from it in a fixed order, which keeps a dataset the same for a seed), the clock and the zone.
 */
interface SeedRun {
  options: SeedOptions;
  plan: SeedPlan;
  rand: () => number;
  tz: string;
  author: number;
  batchSize: number;
  nowMs: number;
  /** today's date in the site zone, as a UTC-midnight timestamp for wall arithmetic */
  todayMs: number;
  toUtc: (wall: string) => string;
  pick: <T>(list: readonly T[]) => T;
  /** skewed index in [0, n): low indexes are popular */
  skewed: (n: number) => number;
  progress: (phase: SeedProgress['phase'], done: number, total: number) => void;
  /** Publication and modification dates of a post first published at `pubMs`. */
  postDates: (pubMs: number, published: boolean) => { date_local: string; date_gmt: string; modified_local: string; modified_gmt: string };
  costOf: (input: string) => { cost: string | null; symbol: string; position: string };
}

function startRun(options: SeedOptions): SeedRun {
  const plan = seedPlan(options.events);
  const rand = prng(options.seed ?? 1);
  const tz = options.timezone;
  const now = options.now ?? new Date();
  const nowMs = Math.floor(now.getTime() / 1000) * 1000;
  const nowGmt = wallOf(nowMs);
  const toLocal = tz === 'UTC' ? (utc: string) => utc : memo((utc: string) => utcToWall(utc, tz));
  const toUtc = tz === 'UTC' ? (wall: string) => wall : memo((wall: string) => wallToUtc(wall, tz));
  const nowLocal = utcToWall(nowGmt, tz);

  const postDates = (pubMs: number, published: boolean) => {
    const pub = Math.min(nowMs, Math.floor(pubMs / QUARTER_HOUR) * QUARTER_HOUR);
    const mod = Math.min(nowMs, pub + Math.floor(rand() * 30) * DAY);
    const dateGmt = wallOf(pub);
    const modifiedGmt = wallOf(mod);
    const modifiedLocal = toLocal(modifiedGmt);
    return published
      ? { date_local: toLocal(dateGmt), date_gmt: dateGmt, modified_local: modifiedLocal, modified_gmt: modifiedGmt }
      : { date_local: modifiedLocal, date_gmt: '0000-00-00 00:00:00', modified_local: modifiedLocal, modified_gmt: modifiedGmt };
  };
  const costOf = memo((input: string) => {
    const parsed = parseCostInput(input);
    return parsed ? { cost: JSON.stringify(parsed.raw), symbol: parsed.symbol, position: parsed.position } : { cost: null, symbol: '', position: '' };
  });

  return {
    options,
    plan,
    rand,
    tz,
    author: options.authorId,
    batchSize: Math.max(100, options.batchSize ?? 5000),
    nowMs,
    todayMs: Date.UTC(Number(nowLocal.slice(0, 4)), Number(nowLocal.slice(5, 7)) - 1, Number(nowLocal.slice(8, 10))),
    toUtc,
    pick: <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!,
    skewed: (n: number) => Math.min(n - 1, Math.floor(n * rand() ** 2)),
    progress: (phase, done, total) => options.onProgress?.({ phase, done, total }),
    postDates,
    costOf,
  };
}

/**
 * Add a synthetic dataset of `options.events` events (and their venues, organizers, terms and
 * images) to the store.
 */
export async function seedCalendar(store: Store, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const run = startRun(options);
  const { plan, progress } = run;
  return bulkLoad(store, async (load: BulkLoader) => {
    const imageIds = await seedImages(load, run);
    const { leaves, tagIds, categoryCount } = await seedTerms(load, run);
    const venueIds = await seedVenues(load, run, imageIds);
    const organizerIds = await seedOrganizers(load, run, imageIds);
    const { eventOrganizers, eventTerms } = await seedEvents(load, run, { imageIds, venueIds, organizerIds, leaves, tagIds });

    /* term counts -------------------------------------------------- */
    const allTermIds = [...new Set([...leaves.flatMap((l) => [l.id, l.parentId]), ...tagIds])];
    progress('counts', 0, allTermIds.length);
    // The statistics first: PostgreSQL plans the counts' join over a million fresh rows as if the
    // tables were empty (a nested loop over every post) until it has them.
    await load.analyze();
    await load.recountTerms(allTermIds);
    progress('counts', allTermIds.length, allTermIds.length);

    return { ...plan, categories: categoryCount, eventOrganizers, eventTerms, milliseconds: Date.now() - started };
  });
}

/** The images (in one transaction); resolves with their ids. */
async function seedImages(load: BulkLoader, run: SeedRun): Promise<number[]> {
  const { plan, rand, author, nowMs, progress } = run;
  progress('images', 0, plan.images);
  const imageIds = await load.transaction(async (tx) => {
    const ids = await tx.reserveIds('images', plan.images);
    const rows: Cell[][] = ids.map((id, i) => [
      id,
      `https://images.example.com/calendar/seed-${id}-${i % 7 === 0 ? 'poster' : 'photo'}.jpg`,
      'jpg',
      'image/jpeg',
      null,
      null,
      author,
      wallOf(nowMs - Math.floor(rand() * 700) * DAY),
    ]);
    await tx.insert('images', IMAGE_COLUMNS, rows);
    return ids;
  });
  progress('images', plan.images, plan.images);
  return imageIds;
}

/** The category tree and the tags, through the term service (as the API creates them); existing ones are reused. */
async function seedTerms(load: BulkLoader, run: SeedRun): Promise<{ leaves: Leaf[]; tagIds: number[]; categoryCount: number }> {
  const { plan, pick, progress } = run;
  const leaves: Leaf[] = [];
  const tagIds: number[] = [];
  await load.transaction(async () => {
    const ensure = async (taxonomy: Taxonomy, name: string, parent: number, known: Map<string, number>) => {
      const existing = known.get(sanitizeSlug(name));
      if (existing !== undefined) return existing;
      const id = await createTermService(load.db, taxonomy).create(load.db, taxonomy === 'tribe_events_cat' ? { name, parent } : { name });
      known.set(sanitizeSlug(name), id);
      return id;
    };
    const cats = await load.termIdsBySlug('tribe_events_cat');
    for (const [parentName, children] of CATEGORY_TREE) {
      const parentId = await ensure('tribe_events_cat', parentName, 0, cats);
      for (const [name, phrases] of children) leaves.push({ id: await ensure('tribe_events_cat', name, parentId, cats), parentId, name, phrases });
    }
    const tags = await load.termIdsBySlug('post_tag');
    for (let i = 0; i < plan.tags; i++) {
      const name = i < BASE_TAGS.length ? BASE_TAGS[i]! : `${pick(ADJECTIVES)} ${BASE_TAGS[i % BASE_TAGS.length]} ${Math.floor(i / BASE_TAGS.length) + 1}`;
      tagIds.push(await ensure('post_tag', name, 0, tags));
    }
  });
  const categoryCount = CATEGORY_TREE.reduce((n, [, children]) => n + 1 + children.length, 0);
  progress('terms', categoryCount + plan.tags, categoryCount + plan.tags);
  return { leaves, tagIds, categoryCount };
}

function venueName(i: number): string {
  const base = `${VENUE_FIRST[i % VENUE_FIRST.length]} ${VENUE_KIND[Math.floor(i / VENUE_FIRST.length) % VENUE_KIND.length]}`;
  const round = Math.floor(i / (VENUE_FIRST.length * VENUE_KIND.length));
  return round === 0 ? base : `${base} ${round + 1}`;
}

function organizerName(i: number): string {
  const base = `${ORGANIZER_FIRST[i % ORGANIZER_FIRST.length]} ${ORGANIZER_TOPIC[Math.floor(i / ORGANIZER_FIRST.length) % ORGANIZER_TOPIC.length]}`;
  const round = Math.floor(i / (ORGANIZER_FIRST.length * ORGANIZER_TOPIC.length));
  return round === 0 ? base : `${base} ${round + 1}`;
}

/**
 * `total` venues or organizers in batches: their posts, and their details row from `build`
 * (numbering continues after the posts of the type already there); resolves with their ids.
 */
async function seedLinked(load: BulkLoader, run: SeedRun, imageIds: number[], type: PostType, total: number, build: (i: number, id: number, title: string) => Cell[]): Promise<number[]> {
  const { rand, author, nowMs, batchSize, skewed, progress, postDates } = run;
  const phase = type === 'tribe_venue' ? 'venues' : 'organizers';
  const slugOf = slugAllocator(await load.existingSlugs(type), type === 'tribe_venue' ? 'venue' : 'organizer');
  const offset = await load.countPosts(type);
  const ids: number[] = [];
  for (let start = 0; start < total; start += batchSize) {
    const n = Math.min(batchSize, total - start);
    await load.transaction(async (tx) => {
      const batchIds = await tx.reserveIds('posts', n);
      const posts: Cell[][] = [];
      const details: Cell[][] = [];
      for (let k = 0; k < n; k++) {
        const i = offset + start + k;
        const id = batchIds[k]!;
        const title = type === 'tribe_venue' ? venueName(i) : organizerName(i);
        const dates = postDates(nowMs - Math.floor(rand() * 900) * DAY - Math.floor(rand() * 96) * QUARTER_HOUR, true);
        const image = rand() < (type === 'tribe_venue' ? 0.2 : 0.1) ? imageIds[skewed(imageIds.length)]! : null;
        const description =
          type === 'tribe_venue'
            ? `${title} hosts concerts, talks and community events.\n\nStep-free access, bar and cloakroom.`
            : `${title} organizes events for everyone who cares about ${ORGANIZER_TOPIC[i % ORGANIZER_TOPIC.length]!.toLowerCase()}.`;
        posts.push([id, type, author, 'publish', '', title, description, '', slugOf(title), dates.date_local, dates.date_gmt, dates.modified_local, dates.modified_gmt, 0, image]);
        details.push(build(i, id, title));
        ids.push(id);
      }
      await tx.insert('posts', POST_COLUMNS, posts);
      await tx.insert(type === 'tribe_venue' ? 'venues' : 'organizers', type === 'tribe_venue' ? VENUE_COLUMNS : ORGANIZER_COLUMNS, details);
    });
    progress(phase, start + n, total);
  }
  return ids;
}

/** The venues, in the seed's cities. */
function seedVenues(load: BulkLoader, run: SeedRun, imageIds: number[]): Promise<number[]> {
  const { rand, pick } = run;
  // Coordinates from a generator of their own, so the rest of the dataset stays as it was:
  // 90 % of venues have some, scattered up to about 15 km around their city's centre.
  const geoRand = prng((run.options.seed ?? 1) + 0x9e0);
  return seedLinked(load, run, imageIds, 'tribe_venue', run.plan.venues, (i, id) => {
    const [city, state, province, country, zip, lat, lng] = CITIES[i % CITIES.length]!;
    const located = geoRand() < 0.9;
    const dLat = (geoRand() - 0.5) * 0.27;
    const dLng = ((geoRand() - 0.5) * 0.27) / Math.cos((lat * Math.PI) / 180);
    const website = rand() < 0.6 ? `https://venues.example.com/${id}` : '';
    return [
      id,
      `${1 + Math.floor(rand() * 400)} ${pick(STREETS)} ${pick(STREET_KIND)}`,
      city,
      country,
      province,
      state,
      `${zip}${country === 'United States' ? String(10 + Math.floor(rand() * 89)) : ''}`,
      rand() < 0.7 ? `+1 555 01${String(Math.floor(rand() * 100)).padStart(2, '0')}` : '',
      website,
      deriveStateProvince({ state, province, country }),
      1,
      1,
      located ? Math.round((lat + dLat) * 1e6) / 1e6 : null,
      located ? Math.round((lng + dLng) * 1e6) / 1e6 : null,
    ];
  });
}

/** The organizers. */
function seedOrganizers(load: BulkLoader, run: SeedRun, imageIds: number[]): Promise<number[]> {
  const { rand } = run;
  return seedLinked(load, run, imageIds, 'tribe_organizer', run.plan.organizers, (i, id, title) => [
    id,
    rand() < 0.6 ? `+1 555 02${String(Math.floor(rand() * 100)).padStart(2, '0')}` : '',
    rand() < 0.7 ? `https://organizers.example.com/${id}` : '',
    rand() < 0.8 ? `${sanitizeSlug(title).slice(0, 20)}-${i}@example.org` : '',
  ]);
}

/** The events in batches of `batchSize`, with their organizer and term links; resolves with the numbers of links. */
async function seedEvents(load: BulkLoader, run: SeedRun, made: Made): Promise<{ eventOrganizers: number; eventTerms: number }> {
  const { plan, batchSize, progress } = run;
  let eventOrganizers = 0;
  let eventTerms = 0;
  const slugOf = slugAllocator(await load.existingSlugs('tribe_events'), 'event');
  progress('events', 0, plan.events);
  for (let start = 0; start < plan.events; start += batchSize) {
    const n = Math.min(batchSize, plan.events - start);
    await load.transaction(async (tx: BulkTransaction) => {
      const ids = await tx.reserveIds('posts', n);
      const posts: Cell[][] = [];
      const events: Cell[][] = [];
      const orgLinks: Cell[][] = [];
      const termLinks: Cell[][] = [];
      for (let k = 0; k < n; k++) {
        const rows = eventRows(run, made, slugOf, ids[k]!);
        posts.push(rows.post);
        events.push(rows.event);
        orgLinks.push(...rows.organizers);
        termLinks.push(...rows.terms);
      }
      await tx.insert('posts', POST_COLUMNS, posts);
      await tx.insert('events', EVENT_COLUMNS, events);
      await tx.insert('event_organizers', ['event_id', 'organizer_id', 'position'], orgLinks);
      await tx.insert('event_terms', ['event_id', 'term_id'], termLinks);
      eventOrganizers += orgLinks.length;
      eventTerms += termLinks.length;
    });
    progress('events', start + n, plan.events);
  }
  return { eventOrganizers, eventTerms };
}

/** One event's rows: its post, its events row, its organizer links and its term links. */
function eventRows(run: SeedRun, made: Made, slugOf: (title: string) => string, id: number): { post: Cell[]; event: Cell[]; organizers: Cell[][]; terms: Cell[][] } {
  const { rand, pick, skewed, tz, author, nowMs, todayMs, toUtc, postDates, costOf } = run;
  const { leaves, imageIds, venueIds, organizerIds, tagIds } = made;
  const leaf = leaves[skewed(leaves.length)]!;
  const phrase = pick(leaf.phrases);
  const r = rand();
  const title = r < 0.45 ? `${pick(ADJECTIVES)} ${phrase}` : r < 0.8 ? `${phrase} with ${pick(PERFORMERS)}` : `${pick(ADJECTIVES)} ${phrase} with ${pick(PERFORMERS)}`;
  const s = rand();
  const status = s < 0.96 ? 'publish' : s < 0.98 ? 'draft' : s < 0.99 ? 'pending' : 'private';

  // Schedule: a day within a year either side of today, 9:00-22:45, 1-4 hours; some all-day, some multi-day.
  const dayMs = todayMs + (Math.floor(rand() * 731) - 365) * DAY;
  const kind = rand();
  let startLocal: string;
  let endLocal: string;
  let allDay = 0;
  if (kind < 0.08) {
    allDay = 1;
    const days = rand() < 0.7 ? 0 : 1 + Math.floor(rand() * 2);
    startLocal = wallOf(dayMs);
    endLocal = wallOf(dayMs + days * DAY + DAY - 1000);
  } else {
    const startMs = dayMs + (9 * 4 + Math.floor(rand() * 56)) * QUARTER_HOUR;
    const length = kind < 0.11 ? (1 + Math.floor(rand() * 3)) * DAY : (4 + Math.floor(rand() * 13)) * QUARTER_HOUR;
    startLocal = wallOf(startMs);
    endLocal = wallOf(startMs + length);
  }
  const published = status === 'publish' || status === 'private';
  const dates = postDates(Math.min(nowMs, dayMs - Math.floor(rand() * 120) * DAY - Math.floor(rand() * 96) * QUARTER_HOUR), published);
  const cost = costOf(pick(COSTS));
  const image = rand() < 0.3 ? imageIds[skewed(imageIds.length)]! : null;
  const venue = rand() < 0.85 ? venueIds[skewed(venueIds.length)]! : null;
  const slug = slugOf(title);
  const what = phrase.toLowerCase();
  const content =
    `Join us for a ${what} in the ${leaf.name.toLowerCase()} programme.\n\n` +
    `Doors open thirty minutes before the start. ${rand() < 0.5 ? '<strong>Limited seating</strong> — arrive early.' : 'Refreshments available.'}\n\n` +
    `More ${leaf.name.toLowerCase()} events are listed on our calendar.`;
  const excerpt = rand() < 0.3 ? `A ${what} not to miss.` : '';
  const post: Cell[] = [id, 'tribe_events', author, status, '', title, content, excerpt, slug, dates.date_local, dates.date_gmt, dates.modified_local, dates.modified_gmt, 0, image];
  const event: Cell[] = [
    id,
    startLocal,
    endLocal,
    toUtc(startLocal),
    toUtc(endLocal),
    tz,
    allDay,
    cost.cost,
    cost.symbol,
    cost.position,
    rand() < 0.2 ? `https://tickets.example.com/e/${slug}` : null,
    rand() < 0.7 ? 1 : 0,
    rand() < 0.7 ? 1 : 0,
    rand() < 0.01 ? 1 : 0,
    rand() < 0.01 ? 1 : 0,
    rand() < 0.05 ? 1 : 0,
    venue,
  ];

  const o = rand();
  const organizerCount = o < 0.15 ? 0 : o < 0.8 ? 1 : o < 0.95 ? 2 : 3;
  const chosen = new Set<number>();
  for (let j = 0; j < organizerCount; j++) chosen.add(organizerIds[skewed(organizerIds.length)]!);
  let position = 0;
  const organizers: Cell[][] = [];
  for (const organizer of chosen) organizers.push([id, organizer, position++]);

  const termSet = new Set<number>();
  if (rand() < 0.95) termSet.add(leaf.id);
  if (rand() < 0.25) termSet.add(leaves[skewed(leaves.length)]!.id);
  const tagCount = Math.floor(rand() * 5);
  for (let j = 0; j < tagCount; j++) termSet.add(tagIds[skewed(tagIds.length)]!);
  const terms: Cell[][] = [];
  for (const term of termSet) terms.push([id, term]);
  return { post, event, organizers, terms };
}
