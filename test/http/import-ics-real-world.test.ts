/**
 * `import ics` with real calendar exports (issue 25): Google Calendar, Exchange 2010 / OWA, Apple
 * iCal and macOS Calendar, Meetup, ownCloud, SabreDAV (Nextcloud), lanyrd, a 128-event file without
 * UIDs, and a hand-written Thunderbird-style file (test/fixtures/ics/real-world/README.md says where
 * each comes from). Each file is imported on a fresh store; every VEVENT with a start arrives (one
 * per UID, changed occurrences folded into their series), and its start instant equals the one read
 * from the file's text here, with Luxon and a hand-written table of the Windows zone names the files
 * use: an oracle independent of ical.js, the importer's parser. A cancelled VEVENT (`STATUS:CANCELLED`
 * without `RECURRENCE-ID`) is not expected to arrive: it is reported skipped. A second import of the
 * same file changes nothing ("0 updated").
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { importIcs } from '../../src/import/ics.js';
import { mappingsOf } from '../../src/store/import-map.js';
import { viewerOf } from '../../src/domain/permissions.js';
import { ADMIN, STORES, startServer, type TestServer } from '../support/harness.js';

const DIR = 'test/fixtures/ics/real-world';
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.ics'))
  .sort();

/** The zones the files' non-IANA TZIDs mean (read off their VTIMEZONEs and CLDR by hand). */
const ZONES: Record<string, string> = {
  'W. Europe Standard Time': 'Europe/Berlin',
  'Pacific Standard Time': 'America/Los_Angeles',
  '(GMT+10:00) Canberra, Melbourne, Sydney': 'Australia/Sydney',
  '(UTC-05:00) Eastern Time (US & Canada)': 'America/New_York',
  '(UTC-05:00) Eastern Time (US and Canada)': 'America/New_York',
};

/** Files whose VEVENTs without a usable start are known (and must be reported skipped, not lost silently). */
const SKIPPED: Record<string, number> = { 'multi-event-basic.ics': 1 };

interface Expected {
  /** VEVENTs (not changed occurrences) */
  vevents: number;
  /** those with a start that is a date */
  withStart: number;
  /** one start per UID (or per VEVENT without UID): `D:YYYY-MM-DD` (all-day) or `T:YYYY-MM-DD HH:MM:SS` (UTC) */
  starts: string[];
  /** VEVENTs with `STATUS:CANCELLED` (not changed occurrences): left out, each reported skipped */
  cancelled: number;
}

/** Read the file's VEVENTs with a minimal reader of its own: unfold, split, read DTSTART by hand. */
function oracle(text: string): Expected {
  const lines = text.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  const events: Array<Record<string, string>> = [];
  let current: Record<string, string> | undefined;
  let depth = 0;
  for (const line of lines) {
    if (/^BEGIN:VEVENT$/i.test(line)) {
      current = {};
      depth = 0;
      continue;
    }
    if (!current) continue;
    if (/^BEGIN:/i.test(line)) depth++;
    else if (/^END:VEVENT$/i.test(line)) {
      events.push(current);
      current = undefined;
    } else if (/^END:/i.test(line)) depth--;
    else if (depth === 0) {
      const name = /^[A-Z-]+/i.exec(line)?.[0]?.toUpperCase() ?? '';
      if (!(name in current)) current[name] = line;
    }
  }
  const byUid = new Map<string, string>();
  let vevents = 0;
  let withStart = 0;
  let anonymous = 0;
  let cancelled = 0;
  for (const e of events) {
    if (e['RECURRENCE-ID']) continue;
    if (/^STATUS:CANCELLED\s*$/i.test(e['STATUS'] ?? '')) {
      cancelled++;
      continue;
    }
    vevents++;
    const line = e['DTSTART'];
    if (!line) continue;
    const value = /(\d{8}(?:T\d{6}Z?)?)"?\s*$/.exec(line)?.[1];
    if (!value) continue;
    withStart++;
    let start: string;
    if (value.length === 8) start = `D:${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
    else {
      const m = /;TZID=(?:"([^"]+)"|([^:;]+))/i.exec(line);
      // Outlook sometimes closes the quote after the value: TZID="W. Europe Standard Time:20200609T090000"
      const tzid = (m?.[1] ?? m?.[2])?.replace(/:\d{8}T\d{6}Z?$/, '');
      const zone = value.endsWith('Z') ? 'UTC' : tzid ? (ZONES[tzid] ?? tzid) : 'UTC';
      const dt = DateTime.fromFormat(value.replace('Z', ''), "yyyyMMdd'T'HHmmss", { zone });
      assert.ok(dt.isValid, `oracle: ${line} (${zone})`);
      start = `T:${dt.toUTC().toFormat('yyyy-MM-dd HH:mm:ss')}`;
    }
    const uid = e['UID'] ? e['UID'].slice(4).trim() : `anonymous-${++anonymous}`;
    if (!byUid.has(uid)) byUid.set(uid, start);
  }
  return { vevents, withStart, starts: [...byUid.values()].sort(), cancelled };
}

for (const kind of STORES) {
  describe(`import ics: real-world files [${kind.name}]`, () => {
    const servers: TestServer[] = [];
    after(async () => {
      for (const s of servers) await s.close();
    });

    for (const file of FILES) {
      it(`${file}: every event with a start arrives at the instant the file says; a second import changes nothing`, async () => {
        const t = await startServer(kind);
        servers.push(t);
        const services = t.built.services;
        const user = (await services.users.list()).find((u) => u.login === ADMIN.login)!;
        const admin = viewerOf({ id: Number(user.id), login: user.login, role: user.role });
        const path = join(DIR, file);
        const expected = oracle(readFileSync(path, 'utf8'));
        const options = { input: path, status: 'publish', dryRun: false, retries: 0, retryDelayMs: 0 };

        const first = await importIcs(services, admin, options);
        const counts = first.counts.get('event')!;
        assert.equal(first.failed, 0, first.lines().join('\n'));
        assert.equal(counts.created, expected.starts.length, first.lines().join('\n'));
        assert.equal(counts.skipped, (SKIPPED[file] ?? 0) + expected.cancelled, first.lines().join('\n'));
        assert.ok(counts.created >= Math.ceil(0.95 * expected.withStart), `${counts.created} of ${expected.withStart} events with a start`);

        const mapped = await mappingsOf(t.built.store.db, 'ics', 'event');
        assert.equal(mapped.length, expected.starts.length);
        const actual: string[] = [];
        for (const m of mapped) {
          const res = await t.api.get(`/events/${m.local_id}`, { as: 'admin' });
          assert.equal(res.status, 200, `event ${m.local_id} (${m.source_id})`);
          actual.push(res.body.all_day ? `D:${res.body.start_date.slice(0, 10)}` : `T:${res.body.utc_start_date}`);
        }
        assert.deepEqual(actual.sort(), expected.starts);

        const second = await importIcs(services, admin, options);
        const again = second.counts.get('event')!;
        assert.deepEqual([again.created, again.updated, again.unchanged, again.failed], [0, 0, expected.starts.length, 0], second.lines().join('\n'));
      });
    }
  });
}
