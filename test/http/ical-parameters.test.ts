/**
 * Issue 24, feeds: an organizer's name is written as an RFC 6868 parameter value (never a bare `"`),
 * so a hostile name cannot change the feed's ORGANIZER address (read back with ical.js, an
 * independent parser, and with the service's own importer); the same in `export --format ics`; an
 * organizer's `email` is any text on write, as in the original, and a feed writes `ORGANIZER` only
 * for an address.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { cli } from '../support/cli.js';
import { ADMIN, STORES, startServer, type StoreKind, type TestServer } from '../support/harness.js';
import { parseIcs } from '../../src/import/ics-parse.js';
import { paramValue } from '../../src/domain/ical.js';

const HOSTILE = 'Real Org":mailto:attacker@evil.example;X="';
const AWKWARD = 'Caret ^n ^^ and \\ back\\nslash, semi; colon: "quoted" ' + 'long '.repeat(12);

async function target(kind: StoreKind, dir: string): Promise<{ server: TestServer; url: string }> {
  if (kind.name === 'sqlite') {
    const url = `sqlite:${join(dir, 'feeds.db')}`;
    return { server: await startServer({ name: 'sqlite', url }), url };
  }
  const server = await startServer(kind);
  return { server, url: server.databaseUrl };
}

/** The ORGANIZER of each VEVENT, by SUMMARY, as ical.js reads it. */
function organizers(text: string): Map<string, { cn: unknown; value: unknown }> {
  const root = new ICAL.Component(ICAL.parse(text));
  const out = new Map<string, { cn: unknown; value: unknown }>();
  for (const e of root.getAllSubcomponents('vevent')) {
    const p = e.getFirstProperty('organizer');
    out.set(String(e.getFirstPropertyValue('summary')), { cn: p?.getParameter('cn'), value: p?.getFirstValue() });
  }
  return out;
}

describe('paramValue (RFC 6868)', () => {
  it('encodes quotes, line breaks and carets, removes other control characters', () => {
    assert.equal(paramValue(HOSTILE), `"Real Org^':mailto:attacker@evil.example;X=^'"`);
    assert.equal(paramValue('a\r\nb\rc\nd^e\u0000f\u001bg\th'), '"a^nb^nc^nd^^efg\th"');
  });
});

describe('import ics reads ORGANIZER without being fooled', () => {
  it("a CN with a backslash-escaped quote (another generator's output) gives no attacker address", () => {
    const text = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//x//y//EN',
      'BEGIN:VEVENT',
      'UID:1@example.org',
      'DTSTAMP:20310101T000000Z',
      'DTSTART:20310501T100000Z',
      'DTEND:20310501T110000Z',
      'SUMMARY:Old style',
      'ORGANIZER;CN="Real Org\\":mailto:attacker@evil.example;X="":mailto:info@example.org',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const { events } = parseIcs(text, 'UTC', 'publish', 'old');
    const organizer = (events[0]!.input.organizer as Array<{ organizer: string; email?: string }>)[0]!;
    assert.equal(organizer.email, undefined, JSON.stringify(organizer));
    assert.doesNotMatch(JSON.stringify(organizer), /"email"/);
  });
});

for (const kind of STORES) {
  describe(`iCalendar parameter values and organizer e-mail [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-params-'));
    let t: TestServer;
    let url: string;
    before(async () => {
      ({ server: t, url } = await target(kind, dir));
      for (const [title, name] of [
        ['Hostile', HOSTILE],
        ['Awkward', AWKWARD],
      ]) {
        const res = await t.api.post('/events', {
          as: 'admin',
          json: { title, start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', status: 'publish', organizer: [{ organizer: name, email: 'info@example.org' }] },
        });
        assert.equal(res.status, 201, res.text);
      }
    });
    after(async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("the feed's ORGANIZER keeps the organizer's address and the name as its CN (ical.js)", async () => {
      const res = await t.api.get(t.origin + '/events.ics');
      assert.equal(res.status, 200);
      assert.doesNotMatch(res.text.replace(/\r\n[ \t]/g, ''), /mailto:attacker@evil\.example(?!;X=\^')/, 'the attacker address is only inside the CN');
      const found = organizers(res.text);
      assert.deepEqual(found.get('Hostile'), { cn: HOSTILE, value: 'mailto:info@example.org' });
      assert.deepEqual(found.get('Awkward'), { cn: AWKWARD.trim(), value: 'mailto:info@example.org' });
      // The service's own importer reads the same name back.
      const { events } = parseIcs(res.text, 'UTC', 'publish', 'feed');
      const hostile = events.find((e) => e.input.title === 'Hostile')!;
      assert.deepEqual(hostile.input.organizer, [{ organizer: HOSTILE, email: 'info@example.org' }]);
      for (const line of res.text.split('\r\n')) assert.ok(Buffer.byteLength(line) <= 75, `line over 75 octets: ${line}`);
    });

    it('export --format ics writes the CN the same way', async () => {
      const out = await cli(['export', '--format', 'ics'], { DATABASE_URL: url, SITE_URL: t.origin });
      assert.equal(out.code, 0, out.stderr);
      const found = organizers(out.stdout);
      assert.deepEqual(found.get('Hostile'), { cn: HOSTILE, value: 'mailto:info@example.org' });
      const { events } = parseIcs(out.stdout, 'UTC', 'publish', 'export');
      assert.equal((events.find((e) => e.input.title === 'Hostile')!.input.organizer as Array<{ organizer: string }>)[0]!.organizer, HOSTILE);
    });

    it('importing the feed round-trips the organizer name', async () => {
      const feed = (await t.api.get(t.origin + '/events.ics')).text;
      const file = join(dir, 'feed.ics');
      writeFileSync(file, feed);
      const run = await cli(['import', 'ics', file, '--no-progress'], { DATABASE_URL: url, CALENDAR_ADMIN_USER: ADMIN.login, CALENDAR_ADMIN_PASSWORD: ADMIN.password });
      assert.equal(run.code, 0, run.stderr);
      // The imported events name the organizer by the same name (the importer finds it by name: no organizer with a mangled name).
      const events = (await t.api.get('/events', { as: 'admin', query: { start_date: '2031-01-01', end_date: '2031-12-31', per_page: 50 } })).body.events as Array<{
        title: string;
        organizer: Array<{ organizer: string }>;
      }>;
      const hostile = events.filter((e) => e.title === 'Hostile');
      assert.equal(hostile.length, 2, 'the original and the imported copy');
      for (const e of hostile)
        assert.deepEqual(
          e.organizer.map((o) => o.organizer),
          [HOSTILE],
        );
      const list = await t.api.get('/organizers', { as: 'admin', query: { per_page: 50 } });
      const names = (list.body.organizers as Array<{ organizer: string; email: string }>).filter((o) => o.email === 'info@example.org').map((o) => o.organizer);
      assert.deepEqual(names.sort(), [AWKWARD.trim(), HOSTILE].sort());
    });

    it("an organizer's email is any text, as in the original (POST, PUT, inline in an event write); feeds write ORGANIZER only for an address", async () => {
      // The original's own REST tests create an organizer with the e-mail `email` (is_string_or_empty).
      const plain = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Plain Word', email: 'email' } });
      assert.equal(plain.status, 201, plain.text);
      assert.equal(plain.body.email, 'email');
      const hostileMails = ['not an address', 'a"b@example.org', 'x@evil.example\r\nX-INJECT:1', 'info@example', '@example.org', 'a@b@example.org'];
      for (const email of hostileMails) {
        const res = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Odd Mail', email } });
        assert.equal(res.status, 201, email);
        assert.equal(res.body.email, email);
      }
      const notText = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Array Mail', email: ['a@example.org'] } });
      assert.equal(notText.status, 400, notText.text);
      assert.ok('email' in notText.body.data.params);
      const good = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Good Mail', email: 'good.mail+tag@sub.example.org' } });
      assert.equal(good.status, 201, good.text);
      const put = await t.api.put(`/organizers/${good.body.id}`, { as: 'admin', json: { email: 'still not one' } });
      assert.equal(put.status, 200, put.text);
      assert.equal((await t.api.get(`/organizers/${good.body.id}`, { as: 'admin' })).body.email, 'still not one');
      const titles = ['Inline odd mail', 'Inline injected mail'];
      for (const [i, email] of ['not an address', 'x@evil.example\r\nX-INJECT:1'].entries()) {
        const inline = await t.api.post('/events', {
          as: 'admin',
          json: { title: titles[i], status: 'publish', start_date: '2031-05-02 10:00', end_date: '2031-05-02 11:00', organizer: [{ organizer: `Inline ${i}`, email }] },
        });
        assert.equal(inline.status, 201, inline.text);
        assert.equal(inline.body.organizer[0].email, email);
        const page = await t.api.get(inline.body.url);
        assert.equal(page.status, 200);
        assert.doesNotMatch(page.text, /href="mailto:/, 'the page links only an address');
        assert.match(page.text, /E-mail: (not an address|x@evil\.example)/);
      }
      const feed = await t.api.get(t.origin + '/events.ics');
      assert.equal(feed.status, 200);
      const text = feed.text;
      const found = organizers(text);
      for (const title of titles) {
        assert.ok(found.has(title), `${title} is in the feed`);
        assert.equal(found.get(title)!.value, undefined, `${title}: no ORGANIZER for a non-address`);
      }
      assert.doesNotMatch(text, /X-INJECT/);
    });
  });
}
