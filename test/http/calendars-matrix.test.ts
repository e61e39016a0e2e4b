/**
 * The isolation matrix of many calendars: calendars × roles × paths. Two calendars (the default
 * one and `north`) hold the same kinds of records: a published and a draft event, a venue, an
 * organizer, a category, a tag, a webhook endpoint, an image and a public submission. Callers: the
 * anonymous reader, the network administrator, and for each role one account with that role in the
 * default calendar only and one with that role in north only (a subscriber of the default calendar,
 * as an account of the service is). The default calendar's administrator is a network
 * administrator, an administrator in every calendar.
 *
 * Through each calendar, each caller:
 * - reads the other calendar's records by id on every namespace (calendar/events/v1, tec/v1,
 *   calendar/admin/v1): not found, or refused by the route itself as in any calendar; never an answer;
 * - writes them (update, delete, approve): the same, and nothing changes;
 * - lists, pages, feeds, the embed, CalDAV, MCP and sync tokens: only the calendar's own records;
 * - works on the calendar's own records with the role it has there, as the role matrices expect
 *   (permissions-table.ts): an editor in one calendar is nobody in the other.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { forEachStore, type ApiResponse } from '../support/harness.js';
import { dav } from '../support/caldav.js';
import { plainImage, authOf } from '../support/media.js';
import { EVENT, OPEN } from '../support/submissions.js';
import { ACKNOWLEDGEMENT } from '../../src/http/tec/common.js';
import { ROLE_NAMES, denied, expectCreate, expectRead, expectTermWrite, expectWrite, type Caller, type RoleName } from './permissions-table.js';

const CALENDARS = ['default', 'north'] as const;
type Calendar = (typeof CALENDARS)[number];
type Who = 'anonymous' | 'admin' | `${'a' | 'b'}-${RoleName}`;
const CALLERS: Who[] = ['anonymous', 'admin', ...ROLE_NAMES.map((r) => `a-${r}` as Who), ...ROLE_NAMES.map((r) => `b-${r}` as Who)];

/** What each calendar's records say in their titles and names: one calendar's never shows in the other. */
const MARK: Record<Calendar, string> = { default: 'Zeta home', north: 'Zeta north' };
const other = (c: Calendar): Calendar => (c === 'default' ? 'north' : 'default');
/** An id no record has. */
const MISSING = 987654;

/**
 * The role a caller has in a calendar: its own there, else that of an account with none (a
 * subscriber's). An administrator of the default calendar administers the network: every calendar.
 */
function roleIn(who: Who, calendar: Calendar): Caller {
  if (who === 'anonymous') return 'anonymous';
  if (who === 'admin' || who === 'a-administrator') return 'administrator';
  const [side, role] = who.split('-') as ['a' | 'b', RoleName];
  return (side === 'a') === (calendar === 'default') ? role : 'subscriber';
}

interface Records {
  published: { id: number; slug: string };
  draft: number;
  venue: { id: number; slug: string };
  organizer: { id: number; slug: string };
  category: number;
  tag: number;
  webhook: number;
  media: number;
  submission: number;
}

forEachStore(
  'calendars: the isolation matrix (calendars × roles × paths)',
  (t) => {
    const prefix = (c: Calendar) => (c === 'default' ? '' : '/c/north');
    const url = (c: Calendar, path: string) => `${t.origin}${prefix(c)}${path}`;
    const rest = (c: Calendar, ns: string, path: string) => url(c, `${t.config.restRoot}/${ns}${path}`);
    const v1 = (c: Calendar, path: string) => rest(c, 'calendar/events/v1', path);
    const admin = (c: Calendar, path: string) => rest(c, 'calendar/admin/v1', path);
    const as = (who: Who) => (who === 'anonymous' ? null : who);
    /** tec/v1 answers only with the original's acknowledgement of its experimental endpoints. */
    const TEC = { 'x-tec-eea': ACKNOWLEDGEMENT };
    const get = (href: string, by: string | null) => t.api.get(href, { as: by, ...(href.includes('/tec/v1/') ? { headers: TEC } : {}) });
    const records = {} as Record<Calendar, Records>;

    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      for (const role of ROLE_NAMES) {
        await t.user(role, `a-${role}`);
        await t.user('subscriber', `b-${role}`);
        await t.built.services.calendars.setRole(`b-${role}`, 'north', role);
      }
      const made = async (r: Promise<ApiResponse>, status = 201) => {
        const res = await r;
        assert.equal(res.status, status, res.text);
        return res.body;
      };
      for (const c of CALENDARS) {
        const mark = MARK[c];
        const when = { start_date: '2027-03-01 10:00', end_date: '2027-03-01 12:00' };
        const venue = await made(t.api.post(v1(c, '/venues'), { as: 'admin', json: { venue: `${mark} hall`, city: 'Town' } }));
        const organizer = await made(t.api.post(v1(c, '/organizers'), { as: 'admin', json: { organizer: `${mark} team` } }));
        const category = await made(t.api.post(v1(c, '/categories'), { as: 'admin', json: { name: `${mark} music` } }));
        const tag = await made(t.api.post(v1(c, '/tags'), { as: 'admin', json: { name: `${mark} free` } }));
        const published = await made(
          t.api.post(v1(c, '/events'), {
            as: 'admin',
            json: { title: `${mark} concert`, ...when, status: 'publish', venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id] },
          }),
        );
        const draft = await made(t.api.post(v1(c, '/events'), { as: 'admin', json: { title: `${mark} draft`, ...when, status: 'draft' } }));
        const webhook = await made(t.api.post(admin(c, '/webhooks'), { as: 'admin', json: { url: 'http://127.0.0.1:9/hook', description: `${mark} hook` } }));
        const upload = await fetch(admin(c, '/media'), { method: 'POST', headers: { 'content-type': 'image/png', ...authOf(t, 'admin') }, body: new Uint8Array(await plainImage(20, 20)) });
        assert.equal(upload.status, 201, await upload.clone().text());
        const media = (await upload.json()) as { id: number };
        const submitted = await made(t.api.post(rest(c, 'calendar/submissions/v1', '/submissions'), { json: { ...EVENT, title: `${mark} proposal`, email: `${c}@example.org` } }));
        const queue = await t.api.get(admin(c, '/submissions'), { as: 'admin' });
        assert.equal(queue.status, 200, queue.text);
        const submission = queue.body.find((s: { event_id?: number; id: number; title?: string }) => JSON.stringify(s).includes(`${mark} proposal`));
        assert.ok(submission, `${c}: the submission is in its queue (${submitted.status ?? ''})`);
        records[c] = {
          published: { id: published.id, slug: published.slug },
          draft: draft.id,
          venue: { id: venue.id, slug: venue.slug },
          organizer: { id: organizer.id, slug: organizer.slug },
          category: category.id,
          tag: tag.id,
          webhook: webhook.id,
          media: media.id,
          submission: submission.id,
        };
      }
    });

    /**
     * A request about the other calendar's record answers as the same request about a record that
     * does not exist, in that calendar, for that caller (404, or the original's 400 for a venue or
     * organizer id, or the route's own refusal of the caller), and shows nothing of it.
     */
    function assertAsMissing(res: ApiResponse, missing: ApiResponse, who: Who, through: Calendar, what: string): void {
      assert.ok(res.status >= 400, `${who} through ${through}: ${what} answered ${res.status} ${res.text.slice(0, 200)}`);
      assert.deepEqual(
        [res.status, res.body?.code],
        [missing.status, missing.body?.code],
        `${who} through ${through}: ${what} answered ${res.text.slice(0, 200)}, a missing record ${missing.text.slice(0, 200)}`,
      );
      assert.ok(!res.text.includes(MARK[other(through)]), `${who} through ${through}: ${what} shows the other calendar's record`);
    }

    it('reads of the other calendar’s records by id find nothing, for every caller, on every namespace', async () => {
      let asked = 0;
      for (const through of CALENDARS) {
        const theirs = records[other(through)];
        // Each read, of the other calendar's record and of a record that does not exist.
        const reads: Array<[string, (id: number | string) => string, number | string, number | string]> = [
          ['calendar/events/v1 event', (id) => v1(through, `/events/${id}`), theirs.published.id, MISSING],
          ['calendar/events/v1 draft', (id) => v1(through, `/events/${id}`), theirs.draft, MISSING],
          ['calendar/events/v1 venue', (id) => v1(through, `/venues/${id}`), theirs.venue.id, MISSING],
          ['calendar/events/v1 venue by slug', (slug) => v1(through, `/venues/by-slug/${slug}`), theirs.venue.slug, 'no-such-venue'],
          ['calendar/events/v1 organizer', (id) => v1(through, `/organizers/${id}`), theirs.organizer.id, MISSING],
          ['calendar/events/v1 category', (id) => v1(through, `/categories/${id}`), theirs.category, MISSING],
          ['calendar/events/v1 tag', (id) => v1(through, `/tags/${id}`), theirs.tag, MISSING],
          ['tec/v1 event', (id) => rest(through, 'tec/v1', `/events/${id}`), theirs.published.id, MISSING],
          ['calendar/admin/v1 event', (id) => admin(through, `/events/${id}`), theirs.published.id, MISSING],
          ['calendar/admin/v1 webhook', (id) => admin(through, `/webhooks/${id}`), theirs.webhook, MISSING],
          ['calendar/admin/v1 webhook deliveries', (id) => admin(through, `/webhooks/${id}/deliveries`), theirs.webhook, MISSING],
          ['calendar/admin/v1 media', (id) => admin(through, `/media/${id}`), theirs.media, MISSING],
          ['calendar/admin/v1 submission', (id) => admin(through, `/submissions/${id}`), theirs.submission, MISSING],
        ];
        for (const who of CALLERS) {
          for (const [what, href, id, missing] of reads) {
            assertAsMissing(await get(href(id), as(who)), await get(href(missing), as(who)), who, through, what);
            asked++;
          }
        }
        // Each read finds the record through its own calendar (what the matrix asks for exists).
        for (const [what, href, id] of reads) {
          const direct = href(id).replace(`${t.origin}${prefix(through)}/`, `${t.origin}${prefix(other(through))}/`);
          const res = await get(direct, 'admin');
          assert.equal(res.status, 200, `admin through ${other(through)}: ${what}: ${res.text.slice(0, 200)}`);
        }
      }
      assert.equal(asked, CALENDARS.length * CALLERS.length * 13);
    });

    it('writes to the other calendar’s records through a calendar change nothing, for every caller', async () => {
      for (const through of CALENDARS) {
        const theirs = records[other(through)];
        const writes: Array<[string, (id: number) => (by: string | null) => Promise<ApiResponse>, number]> = [
          ['update event', (id) => (by) => t.api.post(v1(through, `/events/${id}`), { as: by, json: { title: 'Crossed' } }), theirs.published.id],
          ['delete draft', (id) => (by) => t.api.delete(v1(through, `/events/${id}`), { as: by, query: { force: 'true' } }), theirs.draft],
          ['update venue', (id) => (by) => t.api.post(v1(through, `/venues/${id}`), { as: by, json: { venue: 'Crossed' } }), theirs.venue.id],
          ['delete organizer', (id) => (by) => t.api.delete(v1(through, `/organizers/${id}`), { as: by, query: { force: 'true' } }), theirs.organizer.id],
          ['update category', (id) => (by) => t.api.post(v1(through, `/categories/${id}`), { as: by, json: { name: 'Crossed' } }), theirs.category],
          ['delete tag', (id) => (by) => t.api.delete(v1(through, `/tags/${id}`), { as: by, query: { force: 'true' } }), theirs.tag],
          ['tec/v1 update event', (id) => (by) => t.api.post(rest(through, 'tec/v1', `/events/${id}`), { as: by, json: { title: 'Crossed' }, headers: TEC }), theirs.published.id],
          ['update webhook', (id) => (by) => t.api.post(admin(through, `/webhooks/${id}`), { as: by, json: { url: 'http://127.0.0.1:9/crossed' } }), theirs.webhook],
          ['delete media', (id) => (by) => t.api.delete(admin(through, `/media/${id}`), { as: by, query: { force: 'true' } }), theirs.media],
          ['approve submission', (id) => (by) => t.api.post(admin(through, `/submissions/${id}/approve`), { as: by, json: {} }), theirs.submission],
        ];
        for (const who of CALLERS) {
          for (const [what, write, id] of writes) {
            assertAsMissing(await write(id)(as(who)), await write(MISSING)(as(who)), who, through, what);
          }
        }
      }
      // Every record is as it was, read through its own calendar.
      for (const c of CALENDARS) {
        const mine = records[c];
        const event = await t.api.get(v1(c, `/events/${mine.published.id}`), { as: 'admin' });
        assert.equal(event.body.title, `${MARK[c]} concert`);
        assert.equal((await t.api.get(v1(c, `/events/${mine.draft}`), { as: 'admin' })).status, 200);
        assert.equal((await t.api.get(v1(c, `/venues/${mine.venue.id}`), { as: 'admin' })).body.venue, `${MARK[c]} hall`);
        assert.equal((await t.api.get(v1(c, `/organizers/${mine.organizer.id}`), { as: 'admin' })).status, 200);
        assert.equal((await t.api.get(v1(c, `/categories/${mine.category}`), { as: 'admin' })).body.name, `${MARK[c]} music`);
        assert.equal((await t.api.get(v1(c, `/tags/${mine.tag}`), { as: 'admin' })).status, 200);
        assert.equal((await t.api.get(admin(c, `/webhooks/${mine.webhook}`), { as: 'admin' })).body.url, 'http://127.0.0.1:9/hook');
        assert.equal((await t.api.get(admin(c, `/media/${mine.media}`), { as: 'admin' })).status, 200);
        assert.equal((await t.api.get(admin(c, `/submissions/${mine.submission}`), { as: 'admin' })).body.status, 'pending');
      }
    });

    it('lists, pages, feeds, the embed, CalDAV, MCP and sync through a calendar show its own records only', async () => {
      const query = `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>`;
      const mcpSearch = async (through: Calendar) => {
        const client = new Client({ name: 'calendars-matrix', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url(through, '/mcp'))));
        try {
          const res = (await client.callTool({ name: 'search_events', arguments: { start_date: '2027-01-01', end_date: '2027-12-31' } })) as { content: Array<{ text: string }> };
          return res.content.map((c) => c.text).join('\n');
        } finally {
          await client.close();
        }
      };
      for (const through of CALENDARS) {
        const mine = MARK[through];
        const theirs = records[other(through)];
        const range = { start_date: '2027-01-01', end_date: '2027-12-31' };
        for (const who of CALLERS) {
          const by = as(who);
          const seen: Array<[string, ApiResponse]> = [
            ['events', await t.api.get(v1(through, '/events'), { as: by, query: range })],
            ['events, any status', await t.api.get(v1(through, '/events'), { as: by, query: { ...range, status: 'any' } })],
            ['events, a search', await t.api.get(v1(through, '/events'), { as: by, query: { ...range, search: 'Zeta' } })],
            ['venues', await t.api.get(v1(through, '/venues'), { as: by })],
            ['organizers', await t.api.get(v1(through, '/organizers'), { as: by })],
            ['categories', await t.api.get(v1(through, '/categories'), { as: by })],
            ['tags', await t.api.get(v1(through, '/tags'), { as: by })],
            ['tec/v1 events', await t.api.get(rest(through, 'tec/v1', '/events'), { as: by, query: { per_page: '50' }, headers: TEC })],
            ['admin events', await t.api.get(admin(through, '/events'), { as: by })],
            ['webhooks', await t.api.get(admin(through, '/webhooks'), { as: by })],
            ['media', await t.api.get(admin(through, '/media'), { as: by })],
            ['moderation queue', await t.api.get(admin(through, '/submissions'), { as: by, query: { status: 'any' } })],
            ['sync token', await t.api.get(v1(through, '/events'), { as: by, query: { sync_token: '' } })],
            ['the other calendar’s event page', await t.api.get(url(through, `/event/${theirs.published.slug}/`), { as: by })],
            ['the other calendar’s venue page', await t.api.get(url(through, `/venue/${theirs.venue.slug}/`), { as: by })],
          ];
          for (const [what, res] of seen) {
            assert.ok(!res.text.includes(MARK[other(through)]), `${who} through ${through}: ${what} shows the other calendar's records: ${res.text.slice(0, 300)}`);
            assert.ok(res.status < 500, `${who} through ${through}: ${what} answered ${res.status}`);
          }
          // The calendar's own published event is there (the lists are not empty by accident).
          assert.ok(seen[0]![1].text.includes(`${mine} concert`), `${who} through ${through}: its own event`);
          const pages = seen.slice(-2);
          for (const [what, res] of pages) assert.equal(res.status, 404, `${who} through ${through}: ${what}`);
        }
        // What anonymous readers and clients read: pages, feeds, the embed, CalDAV, MCP.
        for (const path of ['/events/', '/events/list/', '/events/month/2027-03/', '/events/?ical=1', '/events.ics', '/embed/?view=list', '/feed/']) {
          const res = await fetch(url(through, path));
          const text = await res.text();
          assert.ok(res.status < 500, `${path} through ${through}: ${res.status}`);
          assert.ok(!text.includes(MARK[other(through)]), `${path} through ${through} shows the other calendar's records`);
        }
        const month = await (await fetch(url(through, '/events/month/2027-03/'))).text();
        assert.ok(month.includes(`${mine} concert`), `the month page through ${through} shows its own event`);
        const report = await dav(t, 'REPORT', `${prefix(through)}/dav/public/calendars/events/`, query, { depth: '1' });
        assert.equal(report.status, 207, report.text);
        assert.ok(report.text.includes(`${mine} concert`));
        assert.ok(!report.text.includes(MARK[other(through)]));
        const found = await mcpSearch(through);
        assert.ok(found.includes(`${mine} concert`), found);
        assert.ok(!found.includes(MARK[other(through)]), found);
      }
    });

    it('gives each caller the role it has in the calendar it works in', async () => {
      const when = { start_date: '2027-04-01 10:00', end_date: '2027-04-01 12:00' };
      let n = 0;
      for (const through of CALENDARS) {
        const mine = records[through];
        for (const who of CALLERS) {
          const role = roleIn(who, through);
          const by = as(who);
          const check = (res: ApiResponse, expected: { status: number; code?: string }, what: string) => {
            assert.equal(res.status, expected.status, `${who} (${role} in ${through}): ${what}: ${res.text.slice(0, 200)}`);
            if (expected.code) assert.equal(res.body?.code, expected.code, `${who} (${role} in ${through}): ${what}`);
          };
          check(await t.api.post(v1(through, '/events'), { as: by, json: { title: `Made ${++n}`, ...when } }), expectCreate(role), 'create an event');
          check(await t.api.get(v1(through, `/events/${mine.draft}`), { as: by }), expectRead(role, false, 'draft', 'event'), 'read another’s draft');
          check(
            await t.api.post(v1(through, `/events/${mine.published.id}`), { as: by, json: { title: `${MARK[through]} concert` } }),
            expectWrite(role, 'edit', false, 'publish', ''),
            'update another’s published event',
          );
          check(await t.api.post(v1(through, '/categories'), { as: by, json: { name: `Made ${++n}` } }), expectTermWrite(role, 'categories', 201), 'create a category');
          check(await t.api.get(admin(through, '/webhooks'), { as: by }), role === 'administrator' ? { status: 200 } : denied(role), 'list the webhooks');
        }
      }
    });
  },
  { ...OPEN, WEBHOOKS_ALLOW_PRIVATE: 'true' },
);
