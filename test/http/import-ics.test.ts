/**
 * `events-calendar import ics FILE|URL` (issue 12) with fixtures written for the tests
 * (test/fixtures/ics): IANA and Outlook (VTIMEZONE-only) zones, UTC, all-day dates, a DST change,
 * escaping and folding, LOCATION → one venue reused by name, CATEGORIES, ORGANIZER, URL, a
 * recurring event (a series), upsert by UID, and a malformed file; recurring.ics: a series with an
 * EXDATE, a changed and a cancelled occurrence (RECURRENCE-ID), a rule not supported here (the first
 * occurrence and a warning), and a change of an event the file does not have. Issue 25 (lossless.ics):
 * TZIDs without VTIMEZONE (IANA, Windows), a TZID known nowhere, VEVENTs skipped and named, --strict,
 * a derived UID, duplicate UIDs, volatile properties ignored by the fingerprint (this service's own
 * /events.ics imported twice), and --every with conditional GETs. The URL tests (the second and the
 * last) fetch from a loopback server. outlook-zones.ics: Windows zone names with their VTIMEZONE
 * (mapped to the IANA zone), a custom VTIMEZONE-only zone (the site zone), and cancelled events
 * (STATUS:CANCELLED without RECURRENCE-ID: left out, and taken down when imported before).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { STORES, type TestServer } from '../support/harness.js';
import { CLI_ENTRY } from '../support/cli-entry.js';

const FIXTURE = 'test/fixtures/ics/calendar.ics';
const MALFORMED = 'test/fixtures/ics/malformed.ics';
const RECURRING = 'test/fixtures/ics/recurring.ics';
const LOSSLESS = 'test/fixtures/ics/lossless.ics';
const OUTLOOK = 'test/fixtures/ics/outlook-zones.ics';

const target = cliTarget;
const env = (url: string) => cliEnv(url, {});

async function allEvents(t: TestServer): Promise<any[]> {
  const res = await t.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31', per_page: 50 } });
  assert.equal(res.status, 200);
  return res.body.events;
}

for (const kind of STORES) {
  describe(`import ics [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-ics-'));
    const servers: TestServer[] = [];
    let t: TestServer;
    let url: string;
    before(async () => {
      ({ server: t, url } = await target(kind, dir, 'ics'));
      servers.push(t);
    });
    after(async () => {
      for (const s of servers) await s.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('imports zones, all-day dates, DST, escaping, folding, venues, categories, organizers and URLs', async () => {
      const run = await cli(['import', 'ics', FIXTURE, '--no-progress', '--create-venues'], env(url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /events: 6 created, 0 updated, 0 unchanged, 0 skipped, 0 failed/);
      assert.doesNotMatch(run.stderr, /weekly-1@example\.org/, 'a weekly RRULE is imported whole, without a warning');
      const events = await allEvents(t);
      assert.equal(events.length, 10, 'five events and the five occurrences of the weekly series');
      const byTitle = (title: string) => events.find((e) => e.title === title);

      const jazz = byTitle('Jazz, Blues &amp; more; tonight');
      assert.ok(jazz, 'escaped commas and semicolons are unescaped; & is stored as HTML');
      assert.equal(jazz.timezone, 'America/New_York');
      assert.equal(jazz.start_date, '2027-06-01 19:00:00');
      assert.equal(jazz.utc_start_date, '2027-06-01 23:00:00');
      assert.equal(jazz.utc_end_date, '2027-06-02 02:00:00');
      assert.match(jazz.description, /folded at seventy-five octets, with an escaped comma<br \/>\nand a second line\./);
      assert.equal(jazz.venue.venue, 'Town Hall, Springfield');
      assert.deepEqual(
        jazz.categories.map((c: any) => c.name),
        ['Music', 'Outdoor'],
      );
      assert.equal(jazz.organizer[0].organizer, 'Ann Smith');
      assert.equal(jazz.organizer[0].email, 'ann@example.org');
      assert.equal(jazz.website, 'https://example.org/jazz');

      const dst = byTitle('Right after the DST change');
      assert.equal(dst.start_date, '2027-03-14 03:30:00');
      assert.equal(dst.utc_start_date, '2027-03-14 07:30:00', 'EDT (-4) from the second Sunday of March');
      assert.equal(dst.venue.id, jazz.venue.id, 'LOCATION reuses the venue of the same name');

      const outlook = byTitle('Outlook meeting');
      assert.equal(outlook.timezone, 'Europe/Berlin', "a Windows zone name with its VTIMEZONE is mapped through CLDR's mapping (issue 25)");
      assert.equal(outlook.utc_start_date, '2027-07-10 08:00:00');

      const fair = byTitle('Two-day fair');
      assert.equal(fair.all_day, true);
      assert.equal(fair.start_date, '2027-03-10 00:00:00');
      assert.equal(fair.end_date, '2027-03-11 23:59:59', 'DTEND of a DATE is exclusive');

      assert.equal(byTitle('In UTC').utc_start_date, '2027-11-05 18:00:00');
      const weekly = byTitle('Weekly standup');
      assert.equal(weekly.start_date, '2027-11-08 09:00:00');
      assert.equal(weekly.utc_start_date, '2027-11-08 14:00:00', 'EST (-5) after the first Sunday of November');
      assert.deepEqual(weekly.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=5']);
      assert.deepEqual(
        events.filter((e) => e.title === 'Weekly standup').map((e) => e.start_date),
        ['2027-11-08 09:00:00', '2027-11-15 09:00:00', '2027-11-22 09:00:00', '2027-11-29 09:00:00', '2027-12-06 09:00:00'],
      );

      assert.equal((await t.api.get('/venues', { as: 'admin' })).body.total, 1);
      assert.equal((await t.api.get('/categories', { as: 'admin', query: { hide_empty: false } })).body.total, 2);
    });

    it('a second import updates by UID and duplicates nothing; a URL works like a file', async () => {
      const again = await cli(['import', 'ics', FIXTURE, '--no-progress'], env(url));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /events: 0 created, 0 updated, 6 unchanged, 0 skipped, 0 failed/);
      const changed = readFileSync(FIXTURE, 'utf8').replace('SUMMARY:In UTC', 'SUMMARY:In UTC (moved)').replace('DTSTART:20271105T180000Z', 'DTSTART:20271105T190000Z');
      const http = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(changed));
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      try {
        const fromUrl = await cli(['import', 'ics', `http://127.0.0.1:${(http.address() as { port: number }).port}/calendar.ics`, '--no-progress', '--allow-private'], env(url));
        assert.equal(fromUrl.code, 0, fromUrl.stderr);
        assert.match(fromUrl.stdout, /events: 0 created, 1 updated, 5 unchanged, 0 skipped, 0 failed/);
        // Without --allow-private a loopback URL is refused with a message naming the flag, and nothing is read (issue 24).
        const port = (http.address() as { port: number }).port;
        let served = 0;
        http.on('request', () => served++);
        for (const target of [`http://127.0.0.1:${port}/calendar.ics`, `http://localhost:${port}/calendar.ics`, `http://[::ffff:0:7f00:1]:${port}/calendar.ics`]) {
          const refused = await cli(['import', 'ics', target, '--no-progress'], env(url));
          assert.equal(refused.code, 1, target);
          assert.match(refused.stderr, /refused: \S+ (?:is|resolves to \S+,) a loopback, private or reserved address \(give --allow-private to import from it\)/, target);
        }
        assert.equal(served, 0, 'no request reached the server');
        assert.match((await cli(['import', 'ics', '--help'], env(url))).stdout, /--allow-private/);
      } finally {
        http.close();
      }
      const events = await allEvents(t);
      assert.equal(events.length, 10);
      const moved = events.find((e) => e.title === 'In UTC (moved)');
      assert.equal(moved.utc_start_date, '2027-11-05 19:00:00');
    });

    it('a recurring event becomes a series: EXDATE, changed and cancelled occurrences, rules not supported here', async () => {
      const fresh = await target(kind, dir, 'recurring');
      servers.push(fresh.server);
      const run = await cli(['import', 'ics', RECURRING, '--no-progress', '--create-venues'], env(fresh.url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /events: 2 created, 0 updated, 0 unchanged, 0 skipped, 0 failed/);
      assert.match(run.stderr, /hourly-1@example\.org \("Hourly check"\) repeats in a way not supported here \(.*FREQ.*\); only its first occurrence was imported/);
      assert.match(run.stderr, /changed occurrences of orphan-1@example\.org were left out: the file has no recurring event with that UID/);
      const events = await allEvents(fresh.server);
      const classes = events.filter((e) => e.title.startsWith('Evening class'));
      // Mondays from 1 March to 5 April 2027: the 15th excluded, the 22nd moved to 19:00, the 29th
      // (after Europe's change to summer time) cancelled.
      assert.deepEqual(
        classes.map((e) => [e.title, e.start_date, e.utc_start_date]),
        [
          ['Evening class', '2027-03-01 18:00:00', '2027-03-01 17:00:00'],
          ['Evening class', '2027-03-08 18:00:00', '2027-03-08 17:00:00'],
          ['Evening class (moved)', '2027-03-22 19:00:00', '2027-03-22 18:00:00'],
          ['Evening class', '2027-04-05 18:00:00', '2027-04-05 16:00:00'],
        ],
      );
      const moved = classes[2];
      assert.equal(moved.original_start_date, '2027-03-22 18:00:00', 'the changed occurrence keeps its generated start');
      assert.deepEqual(classes[0].recurrence, ['RRULE:FREQ=WEEKLY;UNTIL=20270405T170000Z;BYDAY=MO', 'EXDATE:20270315T170000Z']);
      assert.equal(classes[0].venue.venue, 'Studio 4');
      const series = await fresh.server.api.get(`/events/${classes[0].recurring_event_id}`, { as: 'admin' });
      assert.equal(series.status, 200);
      const all = await fresh.server.api.get('/events', { as: 'admin', query: { post_parent: classes[0].recurring_event_id, status: 'trash', start_date: '2027-01-01', end_date: '2027-12-31' } });
      assert.deepEqual(
        all.body.events.map((e: any) => e.start_date),
        ['2027-03-29 18:00:00'],
        'the cancelled occurrence is in the trash',
      );
      const hourly = events.filter((e) => e.title === 'Hourly check');
      assert.equal(hourly.length, 1);
      assert.equal(hourly[0].utc_start_date, '2027-06-01 08:00:00');
      assert.equal(hourly[0].recurrence, undefined);

      const again = await cli(['import', 'ics', RECURRING, '--no-progress'], env(fresh.url));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /events: 0 created, 0 updated, 2 unchanged, 0 skipped, 0 failed/);
      const changed = readFileSync(RECURRING, 'utf8').replace('SUMMARY:Evening class (moved)', 'SUMMARY:Evening class (moved again)');
      const file = join(dir, 'recurring-changed.ics');
      writeFileSync(file, changed);
      const third = await cli(['import', 'ics', file, '--no-progress'], env(fresh.url));
      assert.equal(third.code, 0, third.stderr);
      assert.match(third.stdout, /events: 0 created, 1 updated, 1 unchanged, 0 skipped, 0 failed/);
      const after = (await allEvents(fresh.server)).filter((e) => e.title.startsWith('Evening class'));
      assert.deepEqual(
        after.map((e) => e.id),
        classes.map((e) => e.id),
        'a second import keeps the occurrences and their ids',
      );
      assert.equal(after[2].title, 'Evening class (moved again)');
    });

    it('a file larger than what is parsed on the loop is parsed in a worker thread of the built command, with the same result', async () => {
      const fresh = await target(kind, dir, 'large');
      servers.push(fresh.server);
      const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//large//EN'];
      for (let i = 0; i < 900; i++)
        lines.push(
          'BEGIN:VEVENT',
          `UID:large-${i}@example.org`,
          'DTSTAMP:20310101T000000Z',
          `DTSTART:2031040${1 + (i % 9)}T180000Z`,
          `DTEND:2031040${1 + (i % 9)}T190000Z`,
          `SUMMARY:Large file event ${i}`,
          `DESCRIPTION:${'Padding text. '.repeat(20)}`,
          'END:VEVENT',
        );
      lines.push('END:VCALENDAR', '');
      const file = join(dir, 'large.ics');
      writeFileSync(file, lines.join('\r\n'));
      assert.ok(readFileSync(file, 'utf8').length > 256 * 1024, 'over PARSE_ON_LOOP_MAX_CHARS');
      const run = await cli(['import', 'ics', file, '--no-progress'], env(fresh.url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /events: 900 created, 0 updated, 0 unchanged, 0 skipped, 0 failed/);
      const junk = join(dir, 'large-junk.ics');
      writeFileSync(junk, 'BEGIN:VCALENDAR\r\n' + 'this is no content line at all\r\n'.repeat(10_000));
      const refused = await cli(['import', 'ics', junk, '--no-progress'], env(fresh.url));
      assert.equal(refused.code, 1, refused.stderr + refused.stdout);
      assert.match(refused.stderr, /large-junk\.ics/);
    });

    it('a malformed file is refused with a clear message and nothing written', async () => {
      const fresh = await target(kind, dir, 'malformed');
      servers.push(fresh.server);
      const run = await cli(['import', 'ics', MALFORMED, '--no-progress'], env(fresh.url));
      assert.equal(run.code, 1);
      assert.match(run.stderr, /malformed\.ics is not a valid iCalendar file/);
      const missing = await cli(['import', 'ics', join(dir, 'nope.ics'), '--no-progress'], env(fresh.url));
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no such file/);
      const notCalendar = join(dir, 'card.vcf');
      writeFileSync(notCalendar, 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ann\r\nEND:VCARD\r\n');
      const vcard = await cli(['import', 'ics', notCalendar, '--no-progress'], env(fresh.url));
      assert.equal(vcard.code, 1);
      assert.match(vcard.stderr, /not an iCalendar file/);
      assert.equal((await allEvents(fresh.server)).length, 0);
    });

    it('resolves TZIDs without VTIMEZONE, warns about unknown ones, skips bad VEVENTs by name, derives UIDs, reports duplicate UIDs', async () => {
      const fresh = await target(kind, dir, 'lossless');
      servers.push(fresh.server);
      const run = await cli(['import', 'ics', LOSSLESS, '--no-progress'], env(fresh.url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /events: 6 created, 0 updated, 0 unchanged, 5 skipped, 0 failed/);
      assert.match(run.stdout, /skipped event "Bad date" \(UID bad-date@example\.org, line 30\): "DTSTART:20271345T250000" is not a date/);
      assert.match(run.stdout, /skipped event "No start" \(UID no-start@example\.org, line 36\): it has no DTSTART/);
      assert.match(run.stdout, /skipped event "Broken line" \(UID unparsable@example\.org, line 67\): it does not parse: invalid line/);
      assert.match(run.stdout, /skipped event "Duplicate left out" \(UID dup-1@example\.org, line 47\): it has the same UID as event "Duplicate kept"/);
      assert.match(run.stdout, /skipped event "Older version" \(UID seq-1@example\.org, line 53\): it has the same UID as event "Newer version" .*higher SEQUENCE/);
      assert.match(run.stderr, /event "On Mars" \(UID mars-1@example\.org, line 18\): time zone "Mars\/Olympus" is not known .* floating times in the site zone \(UTC\)/);
      assert.match(run.stderr, /1 event\(s\) without UID were given one derived from their summary/);
      assert.match(run.stderr, /duplicate UID: event "Duplicate left out"/);

      const events = await allEvents(fresh.server);
      const byTitle = (title: string) => events.find((e) => e.title === title);
      assert.deepEqual(events.map((e) => e.title).sort(), ['Duplicate kept', 'New York evening', 'Newer version', 'On Mars', 'Outlook without VTIMEZONE', 'Without UID']);
      const ny = byTitle('New York evening');
      assert.equal(ny.timezone, 'America/New_York', 'an IANA TZID without VTIMEZONE is the zone, not UTC wall time');
      assert.equal(ny.start_date, '2027-01-15 19:00:00');
      assert.equal(ny.utc_start_date, '2027-01-16 00:00:00');
      assert.equal(ny.utc_end_date, '2027-01-16 02:00:00');
      const outlook = byTitle('Outlook without VTIMEZONE');
      assert.equal(outlook.timezone, 'Europe/Berlin', "a Windows zone name resolves through CLDR's mapping");
      assert.equal(outlook.utc_start_date, '2027-07-01 08:00:00');
      const mars = byTitle('On Mars');
      assert.equal(mars.timezone, 'UTC', 'a TZID known nowhere: floating time in the site zone');
      assert.equal(mars.start_date, '2027-07-01 10:00:00');
      assert.equal(byTitle('Newer version').utc_start_date, '2027-07-05 11:00:00');

      // DTSTAMP, SEQUENCE, LAST-MODIFIED and CREATED changed: nothing to update, and the derived UID is the same.
      const volatile = readFileSync(LOSSLESS, 'utf8')
        .replace(/DTSTAMP:20260101T000000Z/g, 'DTSTAMP:20261126T120000Z\r\nLAST-MODIFIED:20261126T120000Z\r\nCREATED:20261101T000000Z')
        .replace('SEQUENCE:1', 'SEQUENCE:7');
      const file = join(dir, 'lossless-volatile.ics');
      writeFileSync(file, volatile);
      const again = await cli(['import', 'ics', file, '--no-progress'], env(fresh.url));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /events: 0 created, 0 updated, 6 unchanged, 5 skipped, 0 failed/);
      assert.equal((await allEvents(fresh.server)).length, 6);

      const strict = await target(kind, dir, 'lossless-strict');
      servers.push(strict.server);
      const refused = await cli(['import', 'ics', LOSSLESS, '--strict', '--no-progress'], env(strict.url));
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /--strict: 5 event\(s\) would be skipped and 1 time zone\(s\) are not known .*nothing was imported/);
      assert.equal((await allEvents(strict.server)).length, 0, '--strict: all or nothing');
      const ok = await cli(['import', 'ics', FIXTURE, '--strict', '--no-progress'], env(strict.url));
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /events: 6 created/);
    });

    it('a Windows zone name with its VTIMEZONE keeps the IANA zone; cancelled events are left out, and taken down once cancelled', async () => {
      const fresh = await target(kind, dir, 'outlook');
      servers.push(fresh.server);
      // First the file as it was before the cancellations: every event is live.
      const live = join(dir, 'outlook-live.ics');
      writeFileSync(live, readFileSync(OUTLOOK, 'utf8').replace(/STATUS:CANCELLED\r\n/g, ''));
      const before = await cli(['import', 'ics', live, '--no-progress'], env(fresh.url));
      assert.equal(before.code, 0, before.stderr + before.stdout);
      assert.match(before.stdout, /events: 5 created, 0 updated, 0 unchanged, 0 skipped, 0 failed/);

      const run = await cli(['import', 'ics', OUTLOOK, '--no-progress'], env(fresh.url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /events: 0 created, 0 updated, 3 unchanged, 2 skipped, 0 failed/);
      assert.match(run.stdout, /skipped event "Called off" \(UID called-off@example\.org, line 52\): it is cancelled \(STATUS:CANCELLED\); event \d+, imported from it earlier, was trashed/);
      assert.match(run.stdout, /skipped event "Series called off" \(UID series-called-off@example\.org, line 60\): it is cancelled/);
      assert.doesNotMatch(run.stderr, /series-called-off@example\.org/, 'the changed occurrence of a cancelled series is left out with it, silently');

      const events = await allEvents(fresh.server);
      const byTitle = (title: string) => events.find((e) => e.title === title);
      assert.deepEqual([...new Set(events.map((e) => e.title))].sort(), ['Custom zone call', 'Paris review', 'Paris standup']);
      const paris = byTitle('Paris review');
      assert.equal(paris.timezone, 'Europe/Paris', "a Windows zone name with its VTIMEZONE is mapped to IANA through CLDR's mapping");
      assert.equal(paris.start_date, '2027-07-10 10:00:00');
      assert.equal(paris.utc_start_date, '2027-07-10 08:00:00');
      assert.equal(paris.utc_end_date, '2027-07-10 09:30:00');
      assert.deepEqual(
        events.filter((e) => e.title === 'Paris standup').map((e) => [e.timezone, e.start_date, e.utc_start_date]),
        [
          ['Europe/Paris', '2027-10-21 09:00:00', '2027-10-21 07:00:00'],
          ['Europe/Paris', '2027-11-04 09:00:00', '2027-11-04 08:00:00'],
        ],
        'the series keeps 09:00 in Paris across the change of time; its EXDATE removes the 28th',
      );
      const custom = byTitle('Custom zone call');
      assert.equal(custom.timezone, 'UTC', 'a zone known only by its VTIMEZONE is still converted to the site zone');
      assert.equal(custom.utc_start_date, '2027-07-10 07:00:00');

      // Cancelled from the start: never imported; a dry run names what it would take down.
      const other = await target(kind, dir, 'outlook-cancelled');
      servers.push(other.server);
      const fromStart = await cli(['import', 'ics', OUTLOOK, '--no-progress'], env(other.url));
      assert.equal(fromStart.code, 0, fromStart.stderr);
      assert.match(fromStart.stdout, /events: 3 created, 0 updated, 0 unchanged, 2 skipped, 0 failed/);
      assert.match(fromStart.stdout, /skipped event "Called off" \(UID called-off@example\.org, line 52\): it is cancelled \(STATUS:CANCELLED\)\n/);
      const strict = await cli(['import', 'ics', OUTLOOK, '--strict', '--no-progress'], env(other.url));
      assert.equal(strict.code, 0, 'a cancelled event is not a problem for --strict: ' + strict.stderr);

      // Cancelled no more: it comes back.
      const back = await cli(['import', 'ics', live, '--no-progress'], env(fresh.url));
      assert.equal(back.code, 0, back.stderr);
      assert.match(back.stdout, /events: 0 created, 2 updated, 3 unchanged, 0 skipped, 0 failed/);
      assert.equal((await allEvents(fresh.server)).filter((e) => e.title === 'Called off').length, 1);
    });

    it('this service\'s own /events.ics imported twice: the second time 0 updated (DTSTAMP is "now")', async () => {
      const feed = await fetch(`${t.origin}/events.ics`);
      assert.equal(feed.status, 200);
      const text = await feed.text();
      assert.match(text, /DTSTAMP:/);
      const fresh = await target(kind, dir, 'own-feed');
      servers.push(fresh.server);
      const first = join(dir, 'own-1.ics');
      writeFileSync(first, text);
      const run = await cli(['import', 'ics', first, '--no-progress'], env(fresh.url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const created = Number(/events: (\d+) created/.exec(run.stdout)?.[1]);
      assert.ok(created > 0, run.stdout);
      const second = join(dir, 'own-2.ics');
      writeFileSync(second, text.replace(/DTSTAMP:\d{8}T\d{6}Z/g, 'DTSTAMP:20991231T235959Z'));
      assert.notEqual(readFileSync(second, 'utf8'), text);
      const again = await cli(['import', 'ics', second, '--no-progress'], env(fresh.url));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`events: 0 created, 0 updated, ${created} unchanged, 0 skipped, 0 failed`));
    });

    it('--every re-imports at the interval with conditional GETs (304 when unchanged) and stops cleanly on SIGTERM', async () => {
      const fresh = await target(kind, dir, 'every');
      servers.push(fresh.server);
      const body = readFileSync(FIXTURE, 'utf8');
      const seen: Array<{ ifNoneMatch?: string; ifModifiedSince?: string; status: number }> = [];
      let notModified: () => void = () => {};
      const got304 = new Promise<void>((r) => (notModified = r));
      const http = createServer((req, res) => {
        const ifNoneMatch = req.headers['if-none-match'];
        const ifModifiedSince = req.headers['if-modified-since'];
        const status = ifNoneMatch === '"v1"' ? 304 : 200;
        seen.push({ ifNoneMatch, ifModifiedSince, status });
        if (status === 304) {
          res.writeHead(304, { etag: '"v1"' }).end();
          notModified();
        } else res.writeHead(200, { 'content-type': 'text/calendar', etag: '"v1"', 'last-modified': 'Wed, 25 Nov 2026 10:00:00 GMT' }).end(body);
      });
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      const feedUrl = `http://127.0.0.1:${(http.address() as { port: number }).port}/feed.ics`;
      const runEvery = async (until: Promise<void>) => {
        const child = spawn(process.execPath, [...CLI_ENTRY, 'import', 'ics', feedUrl, '--every', '1s', '--no-progress', '--allow-private'], {
          env: { ...process.env, ...env(fresh.url) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
        await Promise.race([until, exited]);
        child.kill('SIGTERM');
        return { code: await exited, stdout, stderr };
      };
      try {
        const first = await runEvery(got304);
        assert.equal(first.code, 0, first.stderr + first.stdout);
        assert.match(first.stdout, /events: 6 created, 0 updated, 0 unchanged, 0 skipped, 0 failed/);
        assert.match(first.stdout, /not modified since the last run \(HTTP 304\): nothing to import/);
        assert.match(first.stdout, /stopped/);
        assert.deepEqual(seen[0], { ifNoneMatch: undefined, ifModifiedSince: undefined, status: 200 });
        assert.deepEqual(seen[1], { ifNoneMatch: '"v1"', ifModifiedSince: 'Wed, 25 Nov 2026 10:00:00 GMT', status: 304 });
        // The validators are kept in the database: a restarted command asks conditionally from its first request.
        const before = seen.length;
        const later = new Promise<void>((r) => {
          const timer = setInterval(() => {
            if (seen.length > before) {
              clearInterval(timer);
              r();
            }
          }, 50);
        });
        const second = await runEvery(later);
        assert.equal(second.code, 0, second.stderr);
        assert.equal(seen[before]!.status, 304);
        assert.equal((await allEvents(fresh.server)).length, 10);
      } finally {
        http.close();
      }
    });

    it('--help tells --strict and --every', async () => {
      const help = await cli(['import', 'ics', '--help'], {});
      assert.equal(help.code, 0);
      assert.match(help.stdout, /--strict/);
      assert.match(help.stdout, /--every <interval>/);
      assert.match(help.stdout, /skipped and named/);
    });
  });
}
