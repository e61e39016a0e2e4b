/**
 * `events-calendar import tec` from The Events Calendar Pro (issue 25), faked here by a small HTTP
 * server answering as Pro's REST API does: every occurrence of a recurring event is an event of its
 * own in the lists, the first being the recurring event itself (the parent) and the others naming it
 * in `post_parent`; no rule is given. A weekly one arrives as a series with a rule, an irregular one
 * as a series with RDATEs; the children keep their ids, a child edited alone stays an exception, and
 * a second run changes nothing.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { STORES, type TestServer } from '../support/harness.js';
import { proRecurrence } from '../../src/import/tec/pro.js';

const NS = 'tribe/events/v1';
const ALL = { start_date: '1900-01-01', end_date: '2200-12-31' };

/** A TEC event as Pro's REST API answers it (`post_parent` on the children of a recurring event). */
function tecEvent(id: number, title: string, start: string, end: string, utcStart: string, utcEnd: string, more: Record<string, unknown> = {}) {
  return {
    id,
    author: '1',
    status: 'publish',
    date: '2027-01-01 10:00:00',
    date_utc: '2027-01-01 15:00:00',
    modified: '2027-01-01 10:00:00',
    modified_utc: '2027-01-01 15:00:00',
    // Pro links every occurrence of a recurring event (the parent too) with its date.
    url: `http://pro.example/event/${String(more.slug ?? title.toLowerCase().replace(/\W+/g, '-'))}/${more.single ? '' : `${start.slice(0, 10)}/`}`,
    title,
    description: `<p>${title}</p>`,
    excerpt: '',
    slug: title.toLowerCase().replace(/\W+/g, '-'),
    image: false,
    all_day: false,
    start_date: start,
    end_date: end,
    utc_start_date: utcStart,
    utc_end_date: utcEnd,
    timezone: 'America/New_York',
    timezone_abbr: 'EST',
    cost: '',
    cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
    website: '',
    show_map: true,
    show_map_link: true,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    ...Object.fromEntries(Object.entries(more).filter(([k]) => k !== 'single')),
  };
}

// A weekly recurring event (parent 101, children 105-107; 106 edited alone: Pro's children keep the parent's slug), an irregular one
// (parent 120, children 121-122, the last at another time of day) and a single event.
const EVENTS = [
  tecEvent(101, 'Choir', '2027-03-02 19:00:00', '2027-03-02 21:00:00', '2027-03-03 00:00:00', '2027-03-03 02:00:00'),
  tecEvent(105, 'Choir', '2027-03-09 19:00:00', '2027-03-09 21:00:00', '2027-03-10 00:00:00', '2027-03-10 02:00:00', { post_parent: 101 }),
  tecEvent(106, 'Choir (guest conductor)', '2027-03-16 19:00:00', '2027-03-16 21:00:00', '2027-03-16 23:00:00', '2027-03-17 01:00:00', { post_parent: 101, slug: 'choir' }),
  tecEvent(107, 'Choir', '2027-03-23 19:00:00', '2027-03-23 21:00:00', '2027-03-23 23:00:00', '2027-03-24 01:00:00', { post_parent: 101 }),
  tecEvent(120, 'Workshop', '2027-04-05 10:00:00', '2027-04-05 12:00:00', '2027-04-05 14:00:00', '2027-04-05 16:00:00'),
  tecEvent(121, 'Workshop', '2027-04-19 10:00:00', '2027-04-19 12:00:00', '2027-04-19 14:00:00', '2027-04-19 16:00:00', { post_parent: 120 }),
  tecEvent(122, 'Workshop', '2027-05-03 14:00:00', '2027-05-03 16:00:00', '2027-05-03 18:00:00', '2027-05-03 20:00:00', { post_parent: 120 }),
  tecEvent(130, 'Gala', '2027-06-01 19:00:00', '2027-06-01 23:00:00', '2027-06-01 23:00:00', '2027-06-02 03:00:00', { single: true }),
];

/**
 * The fake Pro site: its REST root is /wp-json; lists are paged as TEC pages them and take the
 * `post_parent` filter. `named`: the children's JSON carries `post_parent`; else it is TEC's stock
 * JSON, without it (the filter still works).
 */
async function fakePro(named: boolean): Promise<{ origin: string; server: Server; requests: string[] }> {
  const shown = EVENTS.map((e) => (named ? e : Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'post_parent'))));
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const page = Number(url.searchParams.get('page') ?? 1);
    const perPage = Number(url.searchParams.get('per_page') ?? 10);
    const list = (key: string, all: unknown[]) => {
      const totalPages = Math.max(1, Math.ceil(all.length / perPage));
      if (page > totalPages) return json(400, { code: 'rest_invalid_param', message: 'Invalid parameter(s): page', data: { status: 400 } });
      return json(
        200,
        { [key]: all.slice((page - 1) * perPage, page * perPage), total: all.length, total_pages: totalPages },
        { 'x-wp-total': String(all.length), 'x-wp-totalpages': String(totalPages) },
      );
    };
    const path = url.pathname.replace(/\/+$/, '');
    if (path === `/wp-json/${NS}`) return json(200, { namespace: NS, routes: { [`/${NS}/events`]: {} } });
    for (const key of ['categories', 'tags', 'venues', 'organizers']) if (path === `/wp-json/${NS}/${key}`) return list(key, []);
    if (path === `/wp-json/${NS}/events`) {
      const parent = url.searchParams.get('post_parent');
      return list(
        'events',
        shown.filter((e, i) => parent === null || String((EVENTS[i] as { post_parent?: number }).post_parent) === parent),
      );
    }
    const one = /^\/wp-json\/tribe\/events\/v1\/events\/(\d+)$/.exec(path);
    if (one) {
      const e = shown.find((x) => x.id === Number(one[1]));
      return e ? json(200, e) : json(404, { code: 'event-not-found', message: 'The requested event could not be found', data: { status: 404 } });
    }
    if (path === '/wp-json/wp/v2/tribe_events')
      return json(
        200,
        EVENTS.map((e) => ({ id: e.id })),
        { 'x-wp-total': String(EVENTS.length), 'x-wp-totalpages': '1' },
      );
    json(404, { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, requests };
}

describe('TEC Pro recurrence from the occurrences', () => {
  it('evenly spaced starts make a rule with COUNT; others make RDATEs', () => {
    assert.deepEqual(proRecurrence(['2027-03-02 19:00:00', '2027-03-09 19:00:00', '2027-03-16 19:00:00'], false), ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.deepEqual(proRecurrence(['2027-03-02 19:00:00', '2027-03-16 19:00:00', '2027-03-30 19:00:00'], false), ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=3']);
    assert.deepEqual(proRecurrence(['2027-03-02 09:00:00', '2027-03-05 09:00:00'], false), ['RRULE:FREQ=DAILY;INTERVAL=3;COUNT=2']);
    assert.deepEqual(proRecurrence(['2027-01-15 09:00:00', '2027-02-15 09:00:00', '2027-03-15 09:00:00'], false), ['RRULE:FREQ=MONTHLY;COUNT=3']);
    assert.deepEqual(
      proRecurrence(
        ['2027-01-15', '2028-01-15', '2029-01-15'].map((d) => `${d} 00:00:00`),
        true,
      ),
      ['RRULE:FREQ=YEARLY;COUNT=3'],
    );
    assert.deepEqual(proRecurrence(['2027-04-05 10:00:00', '2027-04-19 10:00:00', '2027-05-03 14:00:00'], false), ['RDATE:20270419T100000,20270503T140000']);
    assert.deepEqual(proRecurrence(['2027-01-31 00:00:00', '2027-03-31 00:00:00', '2027-04-02 00:00:00'], true), ['RDATE;VALUE=DATE:20270331,20270402']);
    assert.deepEqual(proRecurrence(['2027-04-05 10:00:00'], false), []);
    const many = Array.from({ length: 60 }, (_, i) => `2027-01-${String((i % 28) + 1).padStart(2, '0')} ${String(i % 24).padStart(2, '0')}:00:00`);
    assert.ok(proRecurrence(many, false).every((l) => l.startsWith('RDATE:') && l.split(',').length <= 25));
  });
});

for (const kind of STORES) {
  describe(`import tec from The Events Calendar Pro: recurring events as series [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-import-pro-'));
    const servers: TestServer[] = [];
    const fakes: Server[] = [];
    after(async () => {
      for (const s of servers) await s.close();
      for (const f of fakes) f.close();
      rmSync(dir, { recursive: true, force: true });
    });

    for (const named of [true, false])
      it(`${named ? 'occurrences naming their parent (post_parent in their JSON)' : "TEC's stock JSON (occurrences found by their dated links, confirmed by the post_parent filter)"}: one series each, a rule when evenly spaced, else RDATEs; ids kept; a second run changes nothing`, async () => {
        const pro = await fakePro(named);
        fakes.push(pro.server);
        const { server, url } = await cliTarget(kind, dir, named ? 'pro-named' : 'pro-stock');
        servers.push(server);
        const args = ['import', 'tec', '--from', pro.origin, '--no-progress', '--allow-private', '--retry-delay', '5'];
        const run = await cli(args, cliEnv(url));
        assert.equal(run.code, 0, run.stderr + run.stdout);
        assert.match(run.stdout, /events: 3 created, 0 updated, 0 skipped, 0 failed/);
        assert.doesNotMatch(run.stderr, /imported as single events/);

        const choir = await server.api.get('/events/101', { as: 'admin' });
        assert.equal(choir.status, 200);
        assert.deepEqual(choir.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=4']);
        assert.equal(choir.body.timezone, 'America/New_York');
        const occurrences = (await server.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: 101 } })).body.events;
        assert.deepEqual(
          occurrences.map((o: any) => [o.start_date, o.utc_start_date, o.title]),
          [
            ['2027-03-02 19:00:00', '2027-03-03 00:00:00', 'Choir'],
            ['2027-03-09 19:00:00', '2027-03-10 00:00:00', 'Choir'],
            ['2027-03-16 19:00:00', '2027-03-16 23:00:00', 'Choir (guest conductor)'],
            ['2027-03-23 19:00:00', '2027-03-23 23:00:00', 'Choir'],
          ],
          'the occurrences keep their local times across the change of time (14 March); the one edited alone keeps its title',
        );
        assert.deepEqual(
          occurrences.slice(1).map((o: any) => o.id),
          [105, 106, 107],
          'the children keep their ids',
        );
        // The one edited alone is an exception: a change to the series leaves it alone.
        assert.equal((await server.api.post('/events/101', { as: 'admin', json: { title: 'Choir practice' } })).status, 200);
        const changed = (await server.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: 101 } })).body.events.map((o: any) => o.title);
        assert.deepEqual(changed, ['Choir practice', 'Choir practice', 'Choir (guest conductor)', 'Choir practice']);

        const workshop = await server.api.get('/events/120', { as: 'admin' });
        assert.deepEqual(workshop.body.recurrence, ['RDATE:20270419T100000,20270503T140000']);
        const sessions = (await server.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: 120 } })).body.events;
        assert.deepEqual(
          sessions.map((o: any) => [o.id === 121 || o.id === 122 ? o.id : 'new', o.start_date, o.end_date]),
          [
            ['new', '2027-04-05 10:00:00', '2027-04-05 12:00:00'],
            [121, '2027-04-19 10:00:00', '2027-04-19 12:00:00'],
            [122, '2027-05-03 14:00:00', '2027-05-03 16:00:00'],
          ],
        );
        const gala = await server.api.get('/events/130', { as: 'admin' });
        assert.equal(gala.body.recurrence, undefined, 'a single event stays single');
        // Every occurrence is listed once; nothing was left behind as a single event.
        const listed = (await server.api.get('/events', { as: 'admin', query: ALL })).body.events;
        assert.equal(listed.length, 8);

        // Unchanged at the source: nothing is written (the series imported before is skipped whole).
        const again = await cli(args, cliEnv(url));
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stdout, /events: 0 created, 0 updated, 3 skipped, 0 failed/);
        assert.equal((await server.api.get('/events', { as: 'admin', query: ALL })).body.events.length, 8);
        if (!named) assert.deepEqual(pro.requests.filter((r) => r.includes('post_parent=')).length, 4, 'one post_parent question per recurring event and run');
      });
  });
}
