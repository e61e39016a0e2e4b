/**
 * What the `tec/v1` tests share: a client of the namespace (with the acknowledgement header), the
 * original's test data sets (its Event_Test, Venue_Test and Organizer_Test fixtures, created through
 * the legacy API as the original creates them through its ORM), the roles its tests run as, and
 * the snapshots of its answers with ids, hosts and times made comparable.
 *
 * @example
 *   const tec = tecClient(t);
 *   const res = await tec.get('/events', { as: 'editor' });
 */
import { readFileSync } from 'node:fs';
import type { ApiResponse, RequestOptions, TestServer } from './harness.js';

export const EEA =
  'I understand that this endpoint is experimental and may change in a future release without maintaining backward compatibility. I also understand that I am using this endpoint at my own risk, while support is not provided for it.';

export interface TecClient {
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  get(path: string, options?: RequestOptions): Promise<ApiResponse>;
  post(path: string, options?: RequestOptions): Promise<ApiResponse>;
  put(path: string, options?: RequestOptions): Promise<ApiResponse>;
  delete(path: string, options?: RequestOptions): Promise<ApiResponse>;
}

/** A client of `{origin}/wp-json/tec/v1` sending the acknowledgement header (unless `headers` replace it). */
export function tecClient(t: TestServer, root = '/wp-json'): TecClient {
  const request = (method: string, path: string, options: RequestOptions = {}) =>
    t.api.request(method, `${t.origin}${root}/tec/v1${path}`, { ...options, headers: { 'x-tec-eea': EEA, ...(options.headers ?? {}) } });
  return {
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, o) => request('POST', p, o),
    put: (p, o) => request('PUT', p, o),
    delete: (p, o) => request('DELETE', p, o),
  };
}

/** The roles the original's tests run as (different_user_roles_provider): null is the guest. */
export const ROLES = [null, 'contributor', 'author', 'editor', 'administrator'] as const;
export type RoleName = (typeof ROLES)[number];

/** Create the users of every role (login = role); the administrator is the harness' admin. */
export async function ensureRoles(t: TestServer): Promise<void> {
  for (const role of ['contributor', 'author', 'editor', 'subscriber'] as const) await t.user(role);
}

/** The credentials name of a role in the harness (`admin` for the administrator). */
export const as = (role: RoleName): string | null => (role === 'administrator' ? 'admin' : role);

/** A wall time ('Y-m-d H:i:s', UTC) `ms` from now. */
export function fromNow(ms: number): string {
  return new Date(Date.now() + ms).toISOString().slice(0, 19).replace('T', ' ');
}
const DAY = 86_400_000;
const HOUR = 3_600_000;
const day = (ms: number) => fromNow(ms).slice(0, 10);

async function create(t: TestServer, path: string, json: Record<string, unknown>): Promise<number> {
  const res = await t.api.post(path, { as: 'admin', json });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return Number(res.body.id);
}

/** Event_Test's data set: venues, organizers (a password-protected one of each) and twelve events. */
export async function createEventTestData(t: TestServer): Promise<{ venues: number[]; organizers: number[]; events: number[] }> {
  const venue = (title: string, address: string, password?: string) => create(t, '/venues', { venue: title, status: 'publish', address, ...(password ? { password } : {}) });
  const organizer = (title: string, email: string, password?: string) => create(t, '/organizers', { organizer: title, status: 'publish', email, ...(password ? { password } : {}) });
  const v1 = await venue('Test Venue 1', '123 Main St, Anytown, USA');
  const v2 = await venue('Test Venue 2', '456 Main St, Anytown, USA');
  const v3 = await venue('Test Venue 3', '789 Main St, Anytown, USA');
  const o1 = await organizer('Test Organizer 1', 'test@example.com');
  const o2 = await organizer('Test Organizer 2', 'test2@example.com');
  const o3 = await organizer('Test Organizer 3', 'test3@example.com');
  const pv = await venue('Password Private Members Club', '999 Secret Ave, Private City, USA', 'password123');
  const po = await organizer('Password Exclusive Events Co', 'private@exclusive.com', 'password123');
  const event = (json: Record<string, unknown>) => create(t, '/events', json);
  const events = [
    await event({
      title: 'Past Conference 2023',
      start_date: '2023-01-15 09:00:00',
      end_date: '2023-01-15 17:00:00',
      status: 'publish',
      venue: v1,
      organizer: [o1],
      cost: '99.00',
      featured: false,
      description: 'A past conference that already happened.',
    }),
    await event({
      title: 'Current Workshop Series',
      start_date: fromNow(-2 * HOUR),
      end_date: fromNow(2 * HOUR),
      status: 'publish',
      venue: v2,
      organizer: [o2],
      cost: 'Free',
      featured: true,
      description: 'An ongoing workshop happening right now.',
    }),
    await event({
      title: 'Future Tech Summit',
      start_date: fromNow(30 * DAY),
      end_date: fromNow(30 * DAY + 8 * HOUR),
      status: 'publish',
      venue: v3,
      organizer: [o1, o2],
      cost: '299.99',
      featured: true,
      website: 'https://example.com/tech-summit',
      description: 'The premier technology summit of the year.',
    }),
    await event({
      title: 'Music Festival 2024',
      start_date: `${day(60 * DAY)} 12:00:00`,
      end_date: `${day(63 * DAY)} 23:00:00`,
      status: 'publish',
      venue: v1,
      organizer: [o3],
      cost: '150-500',
      featured: true,
      description: 'A 4-day music festival with multiple stages and artists.',
    }),
    await event({
      title: 'Community Cleanup Day',
      start_date: `${day(14 * DAY)} 00:00:00`,
      end_date: `${day(14 * DAY)} 23:59:59`,
      all_day: true,
      status: 'publish',
      venue: v2,
      organizer: [o1],
      cost: '',
      featured: false,
      description: 'Join us for a day of community service and environmental cleanup.',
    }),
    await event({
      title: 'VIP Dinner Gala',
      start_date: `${day(21 * DAY)} 18:00:00`,
      end_date: `${day(21 * DAY)} 22:00:00`,
      status: 'private',
      venue: v3,
      organizer: [o2, o3],
      cost: '500',
      featured: false,
      description: 'An exclusive dinner event for VIP members only.',
    }),
    await event({
      title: 'Planning Stage Event',
      start_date: `${day(180 * DAY)} 10:00:00`,
      end_date: `${day(180 * DAY)} 16:00:00`,
      status: 'draft',
      venue: v1,
      organizer: [o1],
      cost: 'TBD',
      featured: false,
      description: 'This event is still in the planning stages.',
    }),
    await event({
      title: 'Virtual Webinar: SEO Best Practices',
      start_date: `${day(10 * DAY)} 15:00:00`,
      end_date: `${day(10 * DAY)} 16:30:00`,
      status: 'publish',
      organizer: [o2],
      cost: '45',
      featured: false,
      description: 'Join us online for this informative webinar about SEO strategies.',
    }),
    await event({
      title: 'Community Open Mic Night',
      start_date: `${day(14 * DAY)} 19:00:00`,
      end_date: `${day(14 * DAY)} 22:00:00`,
      status: 'publish',
      venue: v1,
      cost: 'Free',
      featured: false,
      description: 'Share your talents at our community open mic night.',
    }),
    await event({
      title: "Café & Code: Developer's Meetup",
      start_date: `${day(5 * DAY)} 17:30:00`,
      end_date: `${day(5 * DAY)} 20:00:00`,
      status: 'publish',
      venue: v1,
      organizer: [o3],
      cost: 'Free (drinks not included)',
      featured: false,
      description: 'Network with fellow developers over coffee & snacks.',
    }),
    await event({
      title: 'Web Development Bootcamp',
      start_date: `${day(7 * DAY)} 09:00:00`,
      end_date: `${day(9 * DAY)} 17:00:00`,
      status: 'publish',
      venue: v3,
      organizer: [o1],
      cost: '799',
      featured: true,
      website: 'https://bootcamp.example.com',
      description:
        '<h3>Learn Web Development</h3><p>Join our intensive 3-day bootcamp covering:</p><ul><li>HTML5 & CSS3</li><li>JavaScript ES6+</li><li>React.js</li><li>Node.js</li></ul><p><strong>Limited seats available!</strong></p>',
    }),
    await event({
      title: 'Password Secret Society Annual Meeting',
      start_date: `${day(30 * DAY)} 20:00:00`,
      end_date: `${day(30 * DAY)} 23:00:00`,
      status: 'publish',
      password: 'password123',
      venue: pv,
      organizer: [po, o1],
      cost: 'Members Only',
      featured: false,
      description: 'Annual gathering of our exclusive society members.',
    }),
  ];
  return { venues: [v1, v2, v3, pv], organizers: [o1, o2, o3, po], events };
}

/** One of the original's snapshots, its id placeholders made numbers (0) so that it parses. */
export function snapshot(name: string): any {
  const text = readFileSync(new URL(`../fixtures/tec-v1/${name}.snapshot.json`, import.meta.url), 'utf8');
  return JSON.parse(text.replace(/\{(EVENT|VENUE|ORGANIZER)_ID\}/g, '0'));
}

/**
 * An answer made comparable with a snapshot: ids 0 (in `id`, `post-N` classes), the site's origin
 * as the original's test site, and the times of creation (`date`, `modified`) left out.
 */
export function comparable(entity: any, origin: string): any {
  const text = JSON.stringify(entity).replaceAll(origin, 'http://wordpress.test');
  const walk = (v: any): any => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return typeof v === 'string' ? v.replace(/^post-\d+$/, 'post-0').replace(/([?&]p=)\d+/, (_m, p: string) => `${p}0`) : v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (['date', 'date_gmt', 'modified', 'modified_gmt'].includes(k) && typeof x === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(x)) continue;
      out[k] = k === 'id' ? 0 : walk(x);
    }
    return out;
  };
  return walk(JSON.parse(text));
}

/** Venue_Test's data set, created through tec/v1 itself (the venues) and the legacy API (the events). */
export async function createVenueTestData(t: TestServer): Promise<{ organizers: number[]; venues: number[] }> {
  const tec = tecClient(t);
  const venue = async (json: Record<string, unknown>) => {
    const res = await tec.post('/venues', { as: 'admin', json });
    if (res.status !== 201) throw new Error(`venue: ${res.status} ${res.text}`);
    return Number(res.body.id);
  };
  const o1 = await create(t, '/organizers', { organizer: 'Test Organizer for Venues', status: 'publish', email: 'venue-test@example.com' });
  const us = { country: 'United States' };
  const venues = [
    await venue({
      title: 'Downtown Convention Center',
      status: 'publish',
      address: '123 Main St',
      city: 'New York',
      state_province: 'NY',
      zip: '10001',
      ...us,
      phone: '+1-212-555-0123',
      website: 'https://downtowncc.example.com',
      content: 'A modern convention center in the heart of downtown.',
    }),
    await venue({
      title: 'Beach Resort Amphitheater',
      status: 'publish',
      address: '456 Ocean Blvd',
      city: 'Miami',
      state_province: 'FL',
      zip: '33139',
      ...us,
      phone: '+1-305-555-0456',
      content: 'Outdoor amphitheater with ocean views.',
    }),
    await venue({ title: 'Simple Venue', status: 'publish' }),
    await venue({ title: 'Private Golf Club', status: 'private', address: '789 Country Club Rd', city: 'Augusta', state_province: 'GA', zip: '30901', ...us }),
    await venue({ title: 'Planned Concert Hall', status: 'draft', address: '321 Music Way', city: 'Nashville', state_province: 'TN', zip: '37201', ...us }),
    await venue({
      title: 'London Exhibition Centre',
      status: 'publish',
      address: '10 Downing Street',
      city: 'London',
      state_province: 'England',
      zip: 'SW1A 2AA',
      country: 'United Kingdom',
      phone: '+44 20 7930 4433',
      website: 'https://londonexhibition.co.uk',
    }),
    await venue({
      title: 'Café & Gallery "L\'Art Moderne"',
      status: 'publish',
      address: '15 Rue de la Paix',
      city: 'Paris',
      state_province: 'Île-de-France',
      zip: '75002',
      country: 'France',
      content: "Un lieu unique pour l'art et la culture.",
    }),
    await venue({
      title: 'Tech Conference Center',
      status: 'publish',
      address: '999 Innovation Dr',
      city: 'San Jose',
      state_province: 'CA',
      zip: '95110',
      ...us,
      content:
        '<h3>State-of-the-art Facilities</h3><p>Our venue features:</p><ul><li>High-speed WiFi</li><li>4K projectors</li><li>Live streaming capabilities</li></ul><p><strong>Perfect for tech events!</strong></p>',
    }),
    await venue({
      title: 'Password Members Only Club',
      status: 'publish',
      password: 'password123',
      address: '555 Exclusive Ave',
      city: 'Beverly Hills',
      state_province: 'CA',
      zip: '90210',
      ...us,
      content: 'An exclusive venue for private members.',
    }),
    await venue({ title: 'Popular Event Space', status: 'publish', address: '777 Event Plaza', city: 'Chicago', state_province: 'IL', zip: '60601', ...us }),
  ];
  await create(t, '/events', { title: 'Test Event at Venue', start_date: fromNow(7 * DAY), end_date: fromNow(7 * DAY + 2 * HOUR), status: 'publish', venue: venues[9], organizer: [o1] });
  await create(t, '/events', { title: 'Another Event at Venue', start_date: fromNow(14 * DAY), end_date: fromNow(14 * DAY + 3 * HOUR), status: 'publish', venue: venues[9] });
  return { organizers: [o1], venues };
}

/** Organizer_Test's data set, created through tec/v1 itself (the organizers) and the legacy API (the rest). */
export async function createOrganizerTestData(t: TestServer): Promise<{ venues: number[]; organizers: number[] }> {
  const tec = tecClient(t);
  const organizer = async (json: Record<string, unknown>) => {
    const res = await tec.post('/organizers', { as: 'admin', json });
    if (res.status !== 201) throw new Error(`organizer: ${res.status} ${res.text}`);
    return Number(res.body.id);
  };
  const v1 = await create(t, '/venues', {
    venue: 'Test Venue for Organizers',
    status: 'publish',
    address: '123 Event St',
    city: 'Event City',
    stateprovince: 'EC',
    zip: '12345',
    country: 'United States',
  });
  const organizers = [
    await organizer({
      title: 'Professional Events Company',
      status: 'publish',
      email: 'info@proevents.example.com',
      phone: '+1-555-123-4567',
      website: 'https://proevents.example.com',
      content: 'We organize professional conferences and workshops.',
    }),
    await organizer({
      title: 'Community Arts Foundation',
      status: 'publish',
      email: 'contact@artsorg.example.org',
      phone: '+1-555-987-6543',
      website: 'https://communityarts.example.org',
      content: 'Supporting local artists and cultural events.',
    }),
    await organizer({ title: 'Simple Organizer', status: 'publish' }),
    await organizer({ title: 'Private Event Planning LLC', status: 'private', email: 'private@eventplanning.example.com', phone: '+1-555-PRIVATE' }),
    await organizer({ title: 'New Event Company (Coming Soon)', status: 'draft', email: 'info@neweventco.example.com', content: 'Launching our event services soon!' }),
    await organizer({
      title: 'Global Events International',
      status: 'publish',
      email: 'info@globalevents.example.eu',
      phone: '+44 20 7946 0958',
      website: 'https://globalevents.example.eu',
      content: 'Organizing events across Europe and beyond.',
    }),
    await organizer({
      title: 'Société d\'Événements "Lumière & Son"',
      status: 'publish',
      email: 'contact@lumiere-son.example.fr',
      phone: '+33 1 42 86 82 00',
      content: 'Spécialistes en événements audiovisuels.',
    }),
    await organizer({
      title: 'Tech Events & Conferences',
      status: 'publish',
      email: 'hello@techevents.example.com',
      website: 'https://techevents.example.com',
      content:
        '<h3>What We Do</h3><p>We specialize in:</p><ul><li>Developer conferences</li><li>Tech workshops</li><li>Hackathons</li><li>Product launches</li></ul><p><strong>Contact us for your next tech event!</strong></p>',
    }),
    await organizer({
      title: 'Password Exclusive Events Management',
      status: 'publish',
      password: 'password123',
      email: 'exclusive@vipevents.example.com',
      phone: '+1-555-VIP-ONLY',
      content: 'Managing exclusive events for select clients.',
    }),
    await organizer({ title: 'Active Event Productions', status: 'publish', email: 'bookings@activeevents.example.com', phone: '+1-555-BOOK-NOW', website: 'https://activeproductions.example.com' }),
  ];
  await create(t, '/events', { title: 'Test Event by Organizer', start_date: fromNow(7 * DAY), end_date: fromNow(7 * DAY + 2 * HOUR), status: 'publish', venue: v1, organizer: [organizers[9]] });
  await create(t, '/events', { title: 'Another Event by Organizer', start_date: fromNow(14 * DAY), end_date: fromNow(14 * DAY + 3 * HOUR), status: 'publish', organizer: [organizers[9]] });
  organizers.push(
    await organizer({
      title: 'Multi-Contact Organization',
      status: 'publish',
      email: 'info@multi-contact.example.com, support@multi-contact.example.com',
      phone: '+1-555-1234, +1-555-5678',
      website: 'https://multicontact.example.com',
    }),
  );
  return { venues: [v1], organizers };
}
