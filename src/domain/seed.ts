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
import { parseCostInput } from './cost.js';
import { utcToWall, wallToUtc } from './dates/index.js';
import { deriveStateProvince } from './linked-posts.js';
import { sanitizeSlug } from './slugs.js';
import { createTermService } from './terms.js';

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

/* ------------------------------------------------------------------ */
/* Vocabulary                                                          */
/* ------------------------------------------------------------------ */

/** [category, [subcategory, title phrases][]] */
export const CATEGORY_TREE: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, readonly string[]]>]> = [
  [
    'Music',
    [
      ['Jazz', ['Jazz Night', 'Jazz Quartet', 'Jazz Brunch', 'Late-Night Jazz Session']],
      ['Rock', ['Rock Show', 'Garage Rock Night', 'Rock Revival']],
      ['Classical', ['String Quartet', 'Symphony Evening', 'Piano Recital', 'Chamber Music Matinee']],
      ['Folk', ['Folk Session', 'Singer-Songwriter Night', 'Bluegrass Jam']],
      ['Electronic', ['DJ Night', 'Techno Showcase', 'Ambient Listening Session']],
    ],
  ],
  [
    'Arts & Culture',
    [
      ['Theatre', ['Theatre Premiere', 'Improv Comedy', 'Shakespeare in the Park']],
      ['Film', ['Film Screening', 'Documentary Night', 'Short Film Festival']],
      ['Exhibitions', ['Gallery Opening', 'Photography Exhibition', 'Sculpture Walk']],
      ['Dance', ['Salsa Social', 'Ballet Performance', 'Tango Milonga']],
    ],
  ],
  [
    'Sports',
    [
      ['Running', ['5K Fun Run', 'Trail Run', 'Marathon Training Run']],
      ['Cycling', ['Group Ride', 'Gravel Ride', 'Bike Repair Clinic']],
      ['Football', ['Five-a-Side Tournament', 'Match Screening']],
    ],
  ],
  [
    'Food & Drink',
    [
      ['Tastings', ['Wine Tasting', 'Craft Beer Tasting', 'Cheese & Wine Evening']],
      ['Markets', ['Farmers Market', 'Night Market', 'Street Food Market']],
    ],
  ],
  [
    'Education',
    [
      ['Workshops', ['Pottery Workshop', 'Watercolour Workshop', 'Bread Baking Class']],
      ['Lectures', ['Public Lecture', 'Author Talk', 'History Talk']],
    ],
  ],
  [
    'Community',
    [
      ['Volunteering', ['Park Clean-Up', 'Food Bank Shift', 'Tree Planting']],
      ['Meetups', ['Book Club', 'Language Exchange', 'Board Game Night']],
    ],
  ],
  [
    'Business',
    [
      ['Networking', ['Founders Breakfast', 'Networking Mixer']],
      ['Conferences', ['Industry Conference', 'Startup Pitch Night']],
    ],
  ],
  ['Family', [['Kids', ['Story Time', 'Family Science Day', 'Puppet Show']]]],
  ['Health & Wellness', [['Yoga', ['Sunrise Yoga', 'Yoga in the Park', 'Meditation Circle']]]],
  ['Technology', [['Hackathons', ['Weekend Hackathon', 'Code Retreat', 'Open Source Sprint']]]],
];

const BASE_TAGS = [
  'Free',
  'Outdoor',
  'Indoor',
  'Family Friendly',
  'Weekend',
  'Evening',
  'All Ages',
  '18+',
  'Live',
  'Online Tickets',
  'Wheelchair Accessible',
  'Dog Friendly',
  'Beginners',
  'Advanced',
  'Summer',
  'Winter',
  'Festival',
  'Charity',
  'Local',
  'International',
  'Workshop',
  'Series',
  'Premiere',
  'Sold Out Soon',
  'Members Only',
  'Student Discount',
  'Seniors',
  'Drop-In',
  'Booking Required',
  'Bring Your Own',
];

const ADJECTIVES = [
  'Midsummer',
  'Autumn',
  'Winter',
  'Spring',
  'Sunday',
  'Friday',
  'Moonlight',
  'Open-Air',
  'Rooftop',
  'Riverside',
  'Harbour',
  'Downtown',
  'Neighbourhood',
  'Annual',
  'Grand',
  'Intimate',
  'Candlelight',
  'Twilight',
  'Morning',
  'Lakeside',
  'Garden',
  'Community',
  'Secret',
  'Pop-Up',
];
const PERFORMERS = [
  'The Blue Lanterns',
  'Maria Okafor',
  'The Night Owls',
  'Kenji Watanabe',
  'Orchestra Nova',
  'The Paper Boats',
  'Lena Fischer',
  'The Quiet Hours',
  'Samuel Adeyemi',
  'Copper & Pine',
  'The Velvet Static',
  'Ana Lucía Torres',
  'North Quarter',
  'Ibrahim Haddad',
  'The Long Weekend',
  'Priya Raman',
  'Saltwater Choir',
  'Tomás Novak',
  'The Lighthouse Keepers',
  'Grace Whitfield',
];
const VENUE_FIRST = [
  'Blue Note',
  'Old Mill',
  'Riverside',
  'Union',
  'Harbour',
  'Crown',
  'Granary',
  'Foundry',
  'Orchard',
  'Library',
  'Market',
  'Station',
  'Lantern',
  'Copperfield',
  'Meridian',
  'Parkside',
  'Westgate',
  'Northlight',
  'Elmwood',
  'Kingsway',
];
const VENUE_KIND = ['Hall', 'Theatre', 'Club', 'Pavilion', 'Arts Centre', 'Brewery', 'Gallery', 'Studio', 'Park', 'Community Centre', 'Library', 'Arena'];
const STREETS = ['Main', 'High', 'Station', 'Church', 'Mill', 'Park', 'Victoria', 'Market', 'Bridge', 'King', 'Queen', 'Elm', 'Oak', 'Maple', 'River'];
const STREET_KIND = ['Street', 'Road', 'Avenue', 'Lane', 'Boulevard'];
/** [city, state, province, country, zip prefix, latitude, longitude of the centre] */
const CITIES: ReadonlyArray<readonly [string, string, string, string, string, number, number]> = [
  ['Springfield', 'IL', '', 'United States', '627', 39.7817, -89.6501],
  ['Portland', 'OR', '', 'United States', '972', 45.5152, -122.6784],
  ['Austin', 'TX', '', 'United States', '787', 30.2672, -97.7431],
  ['Boston', 'MA', '', 'United States', '021', 42.3601, -71.0589],
  ['Denver', 'CO', '', 'United States', '802', 39.7392, -104.9903],
  ['Toronto', '', 'Ontario', 'Canada', 'M5V', 43.6532, -79.3832],
  ['Vancouver', '', 'British Columbia', 'Canada', 'V6B', 49.2827, -123.1207],
  ['Manchester', '', 'Greater Manchester', 'United Kingdom', 'M1', 53.4808, -2.2426],
  ['Bristol', '', '', 'United Kingdom', 'BS1', 51.4545, -2.5879],
  ['Berlin', '', 'Berlin', 'Germany', '101', 52.52, 13.405],
  ['Lyon', '', 'Auvergne-Rhône-Alpes', 'France', '690', 45.764, 4.8357],
  ['Melbourne', '', 'Victoria', 'Australia', '300', -37.8136, 144.9631],
];
const ORGANIZER_FIRST = ['Friends of', 'Society for', 'Collective of', 'Guild of', 'Club for', 'Association of', 'Network of', 'Circle of'];
const ORGANIZER_TOPIC = [
  'Live Music',
  'Modern Art',
  'Urban Running',
  'Slow Food',
  'Lifelong Learning',
  'Neighbourhood Action',
  'Small Business',
  'Young Families',
  'Mindful Living',
  'Open Technology',
  'Independent Film',
  'Folk Traditions',
  'Craft Beer',
  'Community Gardens',
  'Street Dance',
];
const COSTS = ['', '', '', '', '5', '10', '15', '$20', '$25', '10 - 25', 'Free', '€12', '8.50', '$5 - $15'];

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/** mulberry32: a small, fast, deterministic PRNG in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad2 = (n: number) => (n < 10 ? '0' + n : String(n));

/** A UTC Date's fields as a wall time string (used for calendar arithmetic, not for zones). */
function wallOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

function memo<K, V>(fn: (k: K) => V): (k: K) => V {
  const cache = new Map<K, V>();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined) {
      v = fn(k);
      cache.set(k, v);
    }
    return v;
  };
}

/** WordPress' wp_unique_post_slug numbering over an in-memory set of taken slugs. */
export function slugAllocator(taken: Set<string>, fallback: string): (title: string) => string {
  const next = new Map<string, number>();
  return (title) => {
    const base = sanitizeSlug(title) || fallback;
    if (!taken.has(base)) {
      taken.add(base);
      return base;
    }
    let suffix = next.get(base) ?? 2;
    while (taken.has(`${base}-${suffix}`)) suffix++;
    const slug = `${base}-${suffix}`;
    next.set(base, suffix + 1);
    taken.add(slug);
    return slug;
  };
}

const DAY = 86_400_000;
const QUARTER_HOUR = 900_000;

/** The posts and events columns the bulk seed writes, in order (also `seed-series.ts`). */
export const POST_COLUMNS = [
  'id',
  'type',
  'author_id',
  'status',
  'pre_trash_status',
  'title',
  'content',
  'excerpt',
  'slug',
  'date_local',
  'date_gmt',
  'modified_local',
  'modified_gmt',
  'parent_id',
  'image_id',
] as const;
export const EVENT_COLUMNS = [
  'post_id',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'all_day',
  'cost',
  'currency_symbol',
  'currency_position',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'venue_id',
] as const;
const VENUE_COLUMNS = ['post_id', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'] as const;
const ORGANIZER_COLUMNS = ['post_id', 'phone', 'website', 'email'] as const;
const IMAGE_COLUMNS = ['id', 'url', 'extension', 'mime_type', 'width', 'height', 'author_id', 'created_gmt'] as const;

type Cell = string | number | null;

/**
 * Add a synthetic dataset of `options.events` events (and their venues, organizers, terms and
 * images) to the store.
 */
export async function seedCalendar(store: Store, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const plan = seedPlan(options.events);
  const rand = prng(options.seed ?? 1);
  const tz = options.timezone;
  const author = options.authorId;
  const batchSize = Math.max(100, options.batchSize ?? 5000);
  const now = options.now ?? new Date();
  const nowMs = Math.floor(now.getTime() / 1000) * 1000;
  const nowGmt = wallOf(nowMs);
  const toLocal = tz === 'UTC' ? (utc: string) => utc : memo((utc: string) => utcToWall(utc, tz));
  const toUtc = tz === 'UTC' ? (wall: string) => wall : memo((wall: string) => wallToUtc(wall, tz));
  const nowLocal = utcToWall(nowGmt, tz);
  // Today's date in the site zone, as a UTC-midnight timestamp for wall arithmetic.
  const todayMs = Date.UTC(Number(nowLocal.slice(0, 4)), Number(nowLocal.slice(5, 7)) - 1, Number(nowLocal.slice(8, 10)));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  /** skewed index in [0, n): low indexes are popular */
  const skewed = (n: number) => Math.min(n - 1, Math.floor(n * rand() ** 2));
  const progress = (phase: SeedProgress['phase'], done: number, total: number) => options.onProgress?.({ phase, done, total });
  let eventOrganizers = 0;
  let eventTerms = 0;

  /** Publication and modification dates of a published post first published at `pubMs`. */
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

  return bulkLoad(store, async (load: BulkLoader) => {
    /* images ------------------------------------------------------- */
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

    /* terms (through the term service, as the API creates them) ---- */
    const leaves: Array<{ id: number; parentId: number; name: string; phrases: readonly string[] }> = [];
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

    /* venues and organizers --------------------------------------- */
    const linked = async (type: PostType, total: number, build: (i: number, id: number, title: string) => Cell[]) => {
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
    };

    const venueName = (i: number) => {
      const base = `${VENUE_FIRST[i % VENUE_FIRST.length]} ${VENUE_KIND[Math.floor(i / VENUE_FIRST.length) % VENUE_KIND.length]}`;
      const round = Math.floor(i / (VENUE_FIRST.length * VENUE_KIND.length));
      return round === 0 ? base : `${base} ${round + 1}`;
    };
    const organizerName = (i: number) => {
      const base = `${ORGANIZER_FIRST[i % ORGANIZER_FIRST.length]} ${ORGANIZER_TOPIC[Math.floor(i / ORGANIZER_FIRST.length) % ORGANIZER_TOPIC.length]}`;
      const round = Math.floor(i / (ORGANIZER_FIRST.length * ORGANIZER_TOPIC.length));
      return round === 0 ? base : `${base} ${round + 1}`;
    };

    // Coordinates from a generator of their own, so the rest of the dataset stays as it was:
    // 90 % of venues have some, scattered up to about 15 km around their city's centre.
    const geoRand = prng((options.seed ?? 1) + 0x9e0);
    const venueIds = await linked('tribe_venue', plan.venues, (i, id) => {
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
    const organizerIds = await linked('tribe_organizer', plan.organizers, (i, id, title) => [
      id,
      rand() < 0.6 ? `+1 555 02${String(Math.floor(rand() * 100)).padStart(2, '0')}` : '',
      rand() < 0.7 ? `https://organizers.example.com/${id}` : '',
      rand() < 0.8 ? `${sanitizeSlug(title).slice(0, 20)}-${i}@example.org` : '',
    ]);

    /* events ------------------------------------------------------- */
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
          const id = ids[k]!;
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
          posts.push([id, 'tribe_events', author, status, '', title, content, excerpt, slug, dates.date_local, dates.date_gmt, dates.modified_local, dates.modified_gmt, 0, image]);
          events.push([
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
          ]);

          const o = rand();
          const organizerCount = o < 0.15 ? 0 : o < 0.8 ? 1 : o < 0.95 ? 2 : 3;
          const chosen = new Set<number>();
          for (let j = 0; j < organizerCount; j++) chosen.add(organizerIds[skewed(organizerIds.length)]!);
          let position = 0;
          for (const organizer of chosen) orgLinks.push([id, organizer, position++]);

          const terms = new Set<number>();
          if (rand() < 0.95) terms.add(leaf.id);
          if (rand() < 0.25) terms.add(leaves[skewed(leaves.length)]!.id);
          const tagCount = Math.floor(rand() * 5);
          for (let j = 0; j < tagCount; j++) terms.add(tagIds[skewed(tagIds.length)]!);
          for (const term of terms) termLinks.push([id, term]);
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

    /* term counts -------------------------------------------------- */
    const allTermIds = [...new Set([...leaves.flatMap((l) => [l.id, l.parentId]), ...tagIds])];
    progress('counts', 0, allTermIds.length);
    await load.recountTerms(allTermIds);
    await load.analyze();
    progress('counts', allTermIds.length, allTermIds.length);

    return { ...plan, categories: categoryCount, eventOrganizers, eventTerms, milliseconds: Date.now() - started };
  });
}
