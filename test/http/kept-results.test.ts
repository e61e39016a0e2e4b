/**
 * Issue 9: list totals and pages are kept and adjusted from the change log, not recounted. This
 * test interleaves writes (creates, updates of every listed field, trashes) on two server
 * instances over one database with reads on both, and after every write compares each list's
 * total and first two pages with a model of the calendar kept by the test itself (an oracle that
 * shares no code with the service). A kept total that missed or double-counted a change, a page
 * not dropped when a change fell into its range, or an instance that did not see the other's
 * write, fails here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startTwoInstances, type TestServer } from '../support/harness.js';
import { keptCountersOf } from '../../src/metrics.js';

interface ModelEvent {
  id: number;
  title: string;
  status: string;
  start: string;
  end: string;
  categories: number[];
  tags: number[];
  venue: number | null;
  organizers: number[];
  featured: boolean;
  hidden: boolean;
}

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

for (const kind of STORES) {
  describe(`kept list results follow interleaved writes on two instances [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    const ids = { catA: 0, catChild: 0, catB: 0, tag1: 0, tag2: 0, venue1: 0, venue2: 0, org1: 0, org2: 0 };

    before(async () => {
      // Every step reads lists, terms and events on both instances: more than the default rate limit allows a client.
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'kept', { RATE_LIMIT_MAX: '0' }));
      const make = async (path: string, json: Record<string, unknown>) => {
        const res = await a.api.post(path, { as: 'admin', json });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.id as number;
      };
      ids.catA = await make('/categories', { name: 'Music' });
      ids.catChild = await make('/categories', { name: 'Jazz clubs', parent: ids.catA });
      ids.catB = await make('/categories', { name: 'Theatre' });
      ids.tag1 = await make('/tags', { name: 'outdoor' });
      ids.tag2 = await make('/tags', { name: 'family' });
      ids.venue1 = await make('/venues', { venue: 'Hall One' });
      ids.venue2 = await make('/venues', { venue: 'Hall Two' });
      ids.org1 = await make('/organizers', { organizer: 'Org One' });
      ids.org2 = await make('/organizers', { organizer: 'Org Two' });
    });
    after(async () => {
      await closeBoth?.();
    });

    it('gives the model’s totals and pages after every write, on both instances', async () => {
      const rnd = prng(kind.name === 'sqlite' ? 9 : 11);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const subset = <T>(xs: readonly T[]): T[] => xs.filter(() => rnd() < 0.4);
      const model = new Map<number, ModelEvent>();

      const WINDOW = { start: '2031-01-01 00:00:00', end: '2031-12-31 23:59:59' };
      const NARROW = { start: '2031-01-10 00:00:00', end: '2031-01-20 23:59:59' };
      type Check = { query: Record<string, string>; match: (e: ModelEvent) => boolean; window: { start: string; end: string } };
      const inA = (e: ModelEvent) => e.categories.some((c) => c === ids.catA || c === ids.catChild);
      const has = (word: string) => (e: ModelEvent) => e.title.toLowerCase().includes(word);
      const checks: Check[] = [
        { query: {}, match: () => true, window: WINDOW },
        { query: { categories: 'music' }, match: inA, window: WINDOW },
        { query: { tags: String(ids.tag1) }, match: (e) => e.tags.includes(ids.tag1), window: WINDOW },
        { query: { venue: String(ids.venue1) }, match: (e) => e.venue === ids.venue1, window: WINDOW },
        { query: { organizer: String(ids.org1) }, match: (e) => e.organizers.includes(ids.org1), window: WINDOW },
        { query: { featured: 'true' }, match: (e) => e.featured, window: WINDOW },
        { query: { search: 'jazz' }, match: has('jazz'), window: WINDOW },
        { query: { search: 'night -rock' }, match: (e) => has('night')(e) && !has('rock')(e), window: WINDOW },
        { query: {}, match: () => true, window: NARROW },
        { query: { categories: 'music', search: 'jazz' }, match: (e) => inA(e) && has('jazz')(e), window: NARROW },
      ];

      const expected = (c: Check) =>
        [...model.values()]
          .filter((e) => e.status === 'publish' && !e.hidden && e.start >= c.window.start && e.end <= c.window.end && c.match(e))
          .sort((x, y) => (x.start < y.start ? -1 : x.start > y.start ? 1 : x.id - y.id));

      const verify = async (server: TestServer, label: string) => {
        // Term counts: kept term rows are adjusted by the moves the log states, not read again.
        for (const [route, term, link] of [
          ['categories', ids.catA, 'categories'],
          ['categories', ids.catChild, 'categories'],
          ['categories', ids.catB, 'categories'],
          ['tags', ids.tag1, 'tags'],
          ['tags', ids.tag2, 'tags'],
        ] as const) {
          const want = [...model.values()].filter((e) => e.status === 'publish' && e[link].includes(term)).length;
          const res = await server.api.get(`/${route}/${term}`);
          assert.equal(res.status, 200, `${label}, ${route}/${term}`);
          assert.equal(res.body.count, want, `count of ${route}/${term}, ${label}`);
        }
        // Kept public event representations show their terms' counts as they are now (patched
        // when read after a count moved, not rebuilt).
        const countOf = (link: 'categories' | 'tags', term: number) => [...model.values()].filter((e) => e.status === 'publish' && e[link].includes(term)).length;
        for (const e of [...model.values()].filter((x) => x.status === 'publish' && x.categories.length + x.tags.length > 0).slice(0, 3)) {
          const res = await server.api.get(`/events/${e.id}`);
          assert.equal(res.status, 200, `${label}, event ${e.id}`);
          for (const link of ['categories', 'tags'] as const)
            for (const t of res.body[link] as Array<{ id: number; count: number }>) assert.equal(t.count, countOf(link, t.id), `${label}: count of ${link} ${t.id} shown by event ${e.id}`);
        }
        for (const c of checks) {
          const want = expected(c);
          for (const page of [1, 2]) {
            const query = { ...c.query, start_date: c.window.start.slice(0, 10), end_date: c.window.end.slice(0, 10), per_page: '3', page: String(page) };
            const res = await server.api.get('/events', { query });
            const wantIds = want.slice((page - 1) * 3, page * 3).map((e) => e.id);
            const where = `${label}, ${JSON.stringify(query)}`;
            if (page > 1 && wantIds.length === 0) {
              assert.equal(res.status, 404, where);
              continue;
            }
            assert.equal(res.status, 200, where);
            assert.equal(res.body.total, want.length, `total, ${where}`);
            assert.deepEqual(
              res.body.events.map((e: { id: number }) => e.id),
              wantIds,
              `page ${page}, ${where}`,
            );
          }
        }
      };

      const randomFields = () => {
        const day = 1 + Math.floor(rnd() * 28);
        const hour = 8 + Math.floor(rnd() * 10);
        return {
          title: `${pick(['Jazz', 'Rock', 'Folk', 'jazz rock', 'Quiet'])} ${pick(['night', 'matinee'])} ${Math.floor(rnd() * 1000)}`,
          status: rnd() < 0.8 ? 'publish' : 'draft',
          start: `2031-01-${pad(day)} ${pad(hour)}:00:00`,
          end: `2031-01-${pad(day)} ${pad(hour + 2)}:00:00`,
          categories: subset([ids.catA, ids.catChild, ids.catB]),
          tags: subset([ids.tag1, ids.tag2]),
          venue: pick([ids.venue1, ids.venue2, null]),
          organizers: subset([ids.org1, ids.org2]),
          featured: rnd() < 0.3,
          hidden: rnd() < 0.1,
        };
      };
      const body = (f: Partial<Omit<ModelEvent, 'id'>>) => {
        const json: Record<string, unknown> = {};
        if (f.title !== undefined) json.title = f.title;
        if (f.status !== undefined) json.status = f.status;
        if (f.start !== undefined) json.start_date = f.start;
        if (f.end !== undefined) json.end_date = f.end;
        if (f.categories !== undefined) json.categories = f.categories.length ? f.categories : '';
        if (f.tags !== undefined) json.tags = f.tags.length ? f.tags : '';
        if (f.venue !== undefined) json.venue = f.venue ?? 0;
        if (f.organizers !== undefined) json.organizer = f.organizers.length ? f.organizers : 0;
        if (f.featured !== undefined) json.featured = f.featured;
        if (f.hidden !== undefined) json.hide_from_listings = f.hidden;
        return json;
      };

      // Warm both instances first, so every write lands on kept results.
      await verify(a, 'start a');
      await verify(b, 'start b');
      const write = async (writer: TestServer): Promise<string> => {
        const live = [...model.values()].filter((e) => e.status !== 'trash');
        const r = rnd();
        let what: string;
        if (live.length < 4 || r < 0.55) {
          const f = randomFields();
          const res = await writer.api.post('/events', { as: 'admin', json: body(f) });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          model.set(res.body.id, { id: res.body.id, ...f });
          what = `create ${res.body.id}`;
        } else if (r < 0.9) {
          const e = pick(live);
          const all = randomFields();
          const keys = subset(['title', 'status', 'dates', 'categories', 'tags', 'venue', 'organizers', 'featured', 'hidden'] as const);
          if (keys.length === 0) keys.push('dates');
          const change: Partial<ModelEvent> = {};
          for (const k of keys) {
            if (k === 'dates') Object.assign(change, { start: all.start, end: all.end });
            else Object.assign(change, { [k]: all[k] });
          }
          const res = await writer.api.post(`/events/${e.id}`, { as: 'admin', json: body(change) });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          Object.assign(e, change);
          what = `update ${e.id} ${keys.join(',')}`;
        } else {
          const e = pick(live);
          const res = await writer.api.delete(`/events/${e.id}`, { as: 'admin' });
          assert.equal(res.status, 200);
          e.status = 'trash';
          what = `trash ${e.id}`;
        }
        return what;
      };
      for (let step = 0; step < 45; step++) {
        const writer = step % 2 === 0 ? a : b;
        // Every fifth step writes a burst before anyone reads: one refresh then applies several
        // changes, some to the same event.
        const burst = step % 5 === 4 ? 3 : 1;
        const done: string[] = [];
        for (let i = 0; i < burst; i++) done.push(await write(writer));
        const what = done.join('; ');
        // The writer sees its own write at once; the other instance on its next request.
        await verify(writer, `step ${step} (${what}) on the writer`);
        await verify(writer === a ? b : a, `step ${step} (${what}) on the other instance`);
      }
      assert.ok(model.size >= 20, 'the run created a calendar worth checking');
      for (const server of [a, b]) {
        const kept = keptCountersOf(server.built.store.db).terms;
        assert.ok(kept.hits > 10 * kept.misses, `term rows were kept and adjusted (${kept.hits} hits, ${kept.misses} misses)`);
      }
    });
  });
}
