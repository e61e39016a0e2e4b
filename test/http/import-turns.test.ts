/**
 * Background work shared fairly between calendars. Imports take turns by calendar: a calendar's
 * small import finishes while another calendar's large one is under way (IMPORT_SLICE), and the
 * large one, cut in slices, ends with exactly its records, once each, counted once, in its own
 * calendar only (ics: it goes on at the next event; tec: it walks its source again, and its counts
 * say what was created, not "skipped"). The review e-mails' one cursor reads on at once past a busy
 * calendar's thousands of changes, so another calendar's review request is told without waiting
 * for the next commit or the minute's poll.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachStore, startServer, STORES, type TestServer } from '../support/harness.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { inCalendar } from '../../src/store/calendar-scope.js';
import { writeTransaction } from '../../src/store/changes.js';
import { noteChanges } from '../../src/store/change-notes.js';
import { tryJobLock, type JobLock } from '../../src/store/job-locks.js';

const A = '/api/calendar/admin/v1';
const calendarOf = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
/** A calendar's admin namespace ('': the default calendar's). */
const adminOf = (t: TestServer, prefix: string) => `${t.origin}${prefix}${A}`;
const vevent = (uid: string, summary: string) => ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${summary}`, 'DTSTART:20340101T100000Z', 'DTEND:20340101T110000Z', 'END:VEVENT'].join('\r\n');

/** Every event title a calendar lists on 2034-01-01 (every page). */
async function titlesIn(t: TestServer, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const res = await t.api.get(`${t.origin}${prefix}/api/calendar/events/v1/events`, { as: 'admin', query: { start_date: '2034-01-01', end_date: '2034-01-02', per_page: 50, page } });
    if (res.status === 404 || res.status === 400) break;
    assert.equal(res.status, 200, res.text);
    out.push(...res.body.events.map((e: { title: string }) => e.title));
    if (page >= Number(res.body.total_pages ?? 1)) break;
  }
  return out.sort();
}

/**
 * Poll two imports until the large one ends: the large one's state when the small one was first
 * seen done (the small one read first, so a large one not done then ended after it), and both ends.
 */
async function race(t: TestServer, large: { prefix: string; id: number }, small: { prefix: string; id: number }) {
  let largeWhenSmallDone: any;
  let smallFinal: any;
  for (let i = 0; i < 3000; i++) {
    const s = await t.api.get(`${adminOf(t, small.prefix)}/imports/${small.id}`, { as: 'admin' });
    const l = await t.api.get(`${adminOf(t, large.prefix)}/imports/${large.id}`, { as: 'admin' });
    assert.equal(s.status, 200, s.text);
    assert.equal(l.status, 200, l.text);
    if ((s.body.status === 'done' || s.body.status === 'failed') && !smallFinal) {
      smallFinal = s.body;
      largeWhenSmallDone = l.body;
    }
    if (smallFinal && (l.body.status === 'done' || l.body.status === 'failed')) return { largeWhenSmallDone, smallFinal, largeFinal: l.body };
    await sleep(20);
  }
  throw new Error('the imports did not end');
}

forEachStore(
  'imports take turns by calendar',
  (t) => {
    before(async () => {
      await t.built.services.calendars.create({ slug: 'east', name: 'East' });
      await t.built.services.calendars.create({ slug: 'west', name: 'West' });
    });

    it('a small import of one calendar ends before a large one of another; the large one, in slices, ends with exactly its records', async () => {
      const N = 150;
      const big = calendarOf(...Array.from({ length: N }, (_, i) => vevent(`big-${i}@test`, `Big ${String(i).padStart(3, '0')}`)));
      const small = calendarOf(vevent('small-1@test', 'Small 1'), vevent('small-2@test', 'Small 2'), vevent('small-3@test', 'Small 3'));
      const a = await t.api.post(`${adminOf(t, '/c/east')}/imports`, { as: 'admin', json: { file: big } });
      assert.equal(a.status, 202, a.text);
      const b = await t.api.post(`${adminOf(t, '/c/west')}/imports`, { as: 'admin', json: { file: small } });
      assert.equal(b.status, 202, b.text);

      const { largeWhenSmallDone, smallFinal, largeFinal } = await race(t, { prefix: '/c/east', id: a.body.id }, { prefix: '/c/west', id: b.body.id });
      assert.equal(smallFinal.status, 'done', JSON.stringify(smallFinal));
      assert.equal(smallFinal.counts.created, 3);
      // West's import did not wait for all of east's: east's was part done, its progress kept.
      assert.notEqual(largeWhenSmallDone.status, 'done', 'the small import ended first');
      assert.ok(['queued', 'running'].includes(largeWhenSmallDone.status), largeWhenSmallDone.status);
      assert.ok(largeWhenSmallDone.progress.done > 0 && largeWhenSmallDone.progress.done < N, JSON.stringify(largeWhenSmallDone.progress));

      // East's ended with every record once: created once each, none redone as unchanged, one attempt.
      assert.equal(largeFinal.status, 'done', JSON.stringify(largeFinal));
      assert.equal(largeFinal.counts.created, N, JSON.stringify(largeFinal.counts));
      assert.equal(largeFinal.counts.unchanged, 0);
      assert.equal(largeFinal.counts.updated, 0);
      assert.equal(largeFinal.counts.failed, 0);
      assert.deepEqual(largeFinal.progress, { phase: 'events', done: N, total: N });
      assert.equal(largeFinal.attempts, 1, 'a slice continues the same attempt');
      assert.equal(largeFinal.options.resume, undefined, 'where it stopped is not shown');
      const ids = (await t.api.get(`${adminOf(t, '/c/east')}/imports/${a.body.id}`, { as: 'admin' })).body.counts.events.created as number[];
      assert.equal(new Set(ids).size, N);

      // Each calendar holds its own import's records, each once.
      const eastTitles = await titlesIn(t, '/c/east');
      assert.deepEqual(
        eastTitles,
        Array.from({ length: N }, (_, i) => `Big ${String(i).padStart(3, '0')}`),
      );
      assert.deepEqual(await titlesIn(t, '/c/west'), ['Small 1', 'Small 2', 'Small 3']);
      assert.deepEqual(await titlesIn(t, ''), []);

      // Importing the same file again: every record unchanged (the import map holds each once).
      const again = await t.api.post(`${adminOf(t, '/c/east')}/imports`, { as: 'admin', json: { file: big } });
      let final: any;
      for (let i = 0; i < 1000 && !['done', 'failed'].includes(final?.status); i++) {
        await sleep(20);
        final = (await t.api.get(`${adminOf(t, '/c/east')}/imports/${again.body.id}`, { as: 'admin' })).body;
      }
      assert.equal(final.status, 'done', JSON.stringify(final));
      assert.equal(final.counts.unchanged, N);
      assert.equal(final.counts.created, 0);
    });
  },
  { IMPORT_SLICE: '1ms' },
);

for (const kind of STORES) {
  describe(`a tec import in slices [${kind.name}]`, () => {
    let source: TestServer;
    let t: TestServer;
    const N = 40;
    before(async () => {
      source = await startServer(kind);
      t = await startServer(kind, { WEBHOOKS_ALLOW_PRIVATE: 'true', IMPORT_SLICE: '1ms' });
      await t.built.services.calendars.create({ slug: 'east', name: 'East' });
      await t.built.services.calendars.create({ slug: 'west', name: 'West' });
      for (let i = 0; i < N; i++) {
        const made = await source.api.post('/events', {
          as: 'admin',
          json: { title: `Tec ${String(i).padStart(2, '0')}`, start_date: '2034-01-01 10:00', end_date: '2034-01-01 11:00', status: 'publish' },
        });
        assert.equal(made.status, 201, made.text);
      }
    });
    after(async () => {
      await t?.close();
      await source?.close();
    });

    it('walks its source again after each slice: its counts say created, once each, and its calendar holds each record once', async () => {
      const a = await t.api.post(`${adminOf(t, '/c/east')}/imports`, { as: 'admin', json: { type: 'tec', from: `${source.origin}/api` } });
      assert.equal(a.status, 202, a.text);
      const b = await t.api.post(`${adminOf(t, '/c/west')}/imports`, { as: 'admin', json: { file: calendarOf(vevent('w-1@test', 'West 1')) } });
      assert.equal(b.status, 202, b.text);
      const { largeWhenSmallDone, smallFinal, largeFinal } = await race(t, { prefix: '/c/east', id: a.body.id }, { prefix: '/c/west', id: b.body.id });
      assert.equal(smallFinal.status, 'done', JSON.stringify(smallFinal));
      assert.notEqual(largeWhenSmallDone.status, 'done', 'the small import ended first');
      assert.equal(largeFinal.status, 'done', JSON.stringify(largeFinal));
      assert.equal(largeFinal.counts.by_kind.event.created, N, JSON.stringify([largeFinal.counts, largeFinal.messages]));
      assert.equal(largeFinal.counts.by_kind.event.skipped, 0, JSON.stringify(largeFinal.counts));
      assert.equal(largeFinal.attempts, 1);
      assert.deepEqual(
        await titlesIn(t, '/c/east'),
        Array.from({ length: N }, (_, i) => `Tec ${String(i).padStart(2, '0')}`),
      );
      assert.deepEqual(await titlesIn(t, '/c/west'), ['West 1']);
    });
  });
}

for (const kind of STORES) {
  describe(`review e-mails behind a busy calendar [${kind.name}]`, () => {
    let t: TestServer;
    let smtp: TestSmtp;
    before(async () => {
      smtp = await startSmtp();
      t = await startServer(kind, { SMTP_URL: smtp.url });
      await t.built.services.calendars.create({ slug: 'north', name: 'North' });
      await t.built.services.calendars.create({ slug: 'busy', name: 'Busy' });
      await t.built.services.users.add({ login: 'cora', role: 'subscriber', password: 'cora-pw', email: 'cora@example.org' });
      await t.built.services.users.add({ login: 'nina', role: 'subscriber', password: 'nina-pw', email: 'nina@example.org' });
      await t.built.services.calendars.setRole('cora', 'north', 'contributor');
      await t.built.services.calendars.setRole('nina', 'north', 'editor');
      // The cursor's first run starts at the present: make it now, not after the first request.
      await t.built.services.reviews.notify();
    });
    after(async () => {
      await t?.close();
      await smtp?.close();
    });

    const submit = async (title: string) => {
      const made = await t.api.post(`${t.origin}/c/north/api/calendar/events/v1/events`, {
        as: 'cora:cora-pw',
        json: { title, start_date: '2034-02-01 10:00:00', end_date: '2034-02-01 11:00:00', status: 'pending' },
      });
      assert.equal(made.status, 201, made.text);
    };

    it('a review request logged behind thousands of another calendar’s changes is told within seconds', async () => {
      // The cursor is under way (its first run starts at the present).
      await submit('Warm-up');
      await smtp.waitFor((m) => m.to.includes('nina@example.org') && m.subject.includes('Warm-up'), 1, 20_000);
      // Another calendar logs 3,000 changes in 30 commits while the job is held (as by another
      // server: its steps are skipped), so that they wait in the log; then north's request comes.
      const busy = (await t.built.services.calendars.get('busy')).id;
      let lock: JobLock | undefined;
      for (let i = 0; i < 200 && !lock; i++) {
        lock = await tryJobLock(t.built.store, 'review-mail');
        if (!lock) await sleep(10);
      }
      assert.ok(lock, 'the job lock');
      for (let i = 0; i < 30; i++) {
        await inCalendar(busy, () =>
          writeTransaction(t.built.store.db, (trx) =>
            noteChanges(
              trx,
              'venue',
              Array.from({ length: 100 }, (_, k) => 900_000 + i * 100 + k),
              'update',
            ),
          ),
        );
      }
      await lock.release();
      await submit('Ice fishing');
      // Seven batches of the log: read one after another, not one per commit or per minute.
      const [mail] = await smtp.waitFor((m) => m.to.includes('nina@example.org') && m.subject.includes('Ice fishing'), 1, 15_000);
      assert.match(mail!.subject, /\[North\]/);
    });
  });
}
