/**
 * Background jobs work for every calendar, not only the default one: a second calendar's webhook
 * endpoints receive its own changes only (and the default calendar's endpoints never its changes),
 * with its URLs in the payloads; an import queued in it runs there and writes its events only; its
 * recurring series are extended by the horizon job; its old change-log rows are pruned, each
 * record's newest row kept in its own calendar; review e-mails about its events go to its editors.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachStore, startServer, STORES, type TestServer } from '../support/harness.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { EVENT, OPEN, SUB } from '../support/submissions.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { DEFAULT_CALENDAR_ID, acrossCalendars, inCalendar } from '../../src/store/calendar-scope.js';
import { writeTransaction } from '../../src/store/changes.js';
import { writeCalendarSettings } from '../../src/store/calendar-settings.js';

const FAST = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms,150ms,150ms', WEBHOOKS_TIMEOUT: '2s' };

const ev = (title: string, day = '2032-01-01') => ({ title, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00`, status: 'publish' });

/** A calendar's REST bases: its events namespace and its admin namespace ('' : the default calendar). */
const bases = (t: TestServer, prefix: string) => ({
  events: `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1`,
  admin: `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1`,
});

const calendarOf = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
const vevent = (uid: string, summary: string) => ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${summary}`, 'DTSTART:20330101T100000Z', 'DTEND:20330101T110000Z', 'END:VEVENT'].join('\r\n');

forEachStore(
  'background jobs in every calendar',
  (t) => {
    let made = false;
    const north = async () => {
      if (!made) await t.built.services.calendars.create({ slug: 'north', name: 'North' });
      made = true;
    };

    it('a calendar’s webhook endpoints receive its own changes only, with its URLs', async () => {
      await north();
      const home = bases(t, '');
      const away = bases(t, '/c/north');
      const receivers: Receiver[] = [await startReceiver(), await startReceiver()];
      const [homeReceiver, northReceiver] = receivers as [Receiver, Receiver];
      try {
        const homeHook = await t.api.post(`${home.admin}/webhooks`, { as: 'admin', json: { url: homeReceiver.url, events: ['event.created'] } });
        assert.equal(homeHook.status, 201, homeHook.text);
        homeReceiver.secret = homeHook.body.secret;
        const northHook = await t.api.post(`${away.admin}/webhooks`, { as: 'admin', json: { url: northReceiver.url, events: ['event.created'] } });
        assert.equal(northHook.status, 201, northHook.text);
        northReceiver.secret = northHook.body.secret;
        // Each calendar's list shows its own endpoint only.
        assert.deepEqual(
          (await t.api.get(`${away.admin}/webhooks`, { as: 'admin' })).body.map((e: { id: number }) => e.id),
          [northHook.body.id],
        );

        const northEvent = await t.api.post(`${away.events}/events`, { as: 'admin', json: ev('Northern lights') });
        assert.equal(northEvent.status, 201, northEvent.text);
        const homeEvent = await t.api.post(`${home.events}/events`, { as: 'admin', json: ev('Home match') });
        assert.equal(homeEvent.status, 201, homeEvent.text);

        const [atNorth] = await northReceiver.waitFor((m) => m.body.type === 'event.created');
        assert.ok(atNorth!.verified, atNorth!.verifyError);
        assert.equal(atNorth!.body.data.id, northEvent.body.id);
        assert.equal(atNorth!.body.data.title, 'Northern lights');
        assert.ok(atNorth!.body.data.url.startsWith(`${t.origin}/c/north/`), atNorth!.body.data.url);
        assert.ok(atNorth!.body.data.rest_url.startsWith(`${t.origin}/c/north/`), atNorth!.body.data.rest_url);
        const [atHome] = await homeReceiver.waitFor((m) => m.body.type === 'event.created');
        assert.ok(atHome!.verified, atHome!.verifyError);
        assert.equal(atHome!.body.data.id, homeEvent.body.id);
        assert.ok(!atHome!.body.data.url.includes('/c/north/'), atHome!.body.data.url);

        // Everything made is delivered: neither endpoint got the other calendar's event.
        await t.built.webhookWorker!.runOnce();
        await t.built.webhookWorker!.runOnce();
        assert.deepEqual(
          northReceiver.received.map((m) => m.body.data.id),
          [northEvent.body.id],
        );
        assert.deepEqual(
          homeReceiver.received.map((m) => m.body.data.id),
          [homeEvent.body.id],
        );
        // Each calendar's deliveries log is its own, and says the delivery succeeded.
        const log = await t.api.get(`${away.admin}/webhooks/${northHook.body.id}/deliveries`, { as: 'admin' });
        assert.equal(log.status, 200, log.text);
        assert.deepEqual(
          log.body.map((d: { status: string; payload: { data: { id: number } } }) => [d.status, d.payload.data.id]),
          [['succeeded', northEvent.body.id]],
        );
        await t.api.delete(`${away.admin}/webhooks/${northHook.body.id}`, { as: 'admin' });
        await t.api.delete(`${home.admin}/webhooks/${homeHook.body.id}`, { as: 'admin' });
      } finally {
        for (const r of receivers) await r.close();
      }
    });

    it('an import queued in a calendar runs there and writes its events only', async () => {
      await north();
      const away = bases(t, '/c/north');
      const home = bases(t, '');
      const queued = await t.api.post(`${away.admin}/imports`, { as: 'admin', json: { file: calendarOf(vevent('n1@test', 'Polar night'), vevent('n2@test', 'Aurora')) } });
      assert.equal(queued.status, 202, queued.text);
      let final: Record<string, any> | undefined;
      for (let i = 0; i < 600; i++) {
        const res = await t.api.get(`${away.admin}/imports/${queued.body.id}`, { as: 'admin' });
        assert.equal(res.status, 200, res.text);
        if (res.body.status === 'done' || res.body.status === 'failed') {
          final = res.body;
          break;
        }
        await sleep(50);
      }
      assert.equal(final?.status, 'done', JSON.stringify(final));
      assert.equal(final!.counts.created, 2);
      // The default calendar does not see north's import, nor its events.
      assert.equal((await t.api.get(`${home.admin}/imports/${queued.body.id}`, { as: 'admin' })).status, 404);
      const query = { start_date: '2033-01-01', end_date: '2033-01-02' };
      const there = await t.api.get(`${away.events}/events`, { query });
      assert.deepEqual(there.body.events.map((e: { title: string }) => e.title).sort(), ['Aurora', 'Polar night']);
      for (const e of there.body.events) assert.ok(e.url.startsWith(`${t.origin}/c/north/`), e.url);
      const here = await t.api.get(`${home.events}/events`, { query });
      assert.equal(here.body.events?.length ?? 0, 0, JSON.stringify(here.body));
    });

    it('the horizon job, nudged by a write in a calendar, generates what the write left there', async () => {
      await north();
      const away = bases(t, '/c/north');
      const res = await t.api.post(`${away.events}/events`, {
        as: 'admin',
        json: { title: 'Daily swim', status: 'publish', start_date: '2031-01-01 07:00:00', end_date: '2031-01-01 08:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=300'] },
      });
      assert.equal(res.status, 201, res.text);
      const total = async () => {
        const list = await t.api.get(`${away.events}/events`, { as: 'admin', query: { post_parent: res.body.id, start_date: '2031-01-01', end_date: '2032-12-31', per_page: 1 } });
        assert.equal(list.status, 200, list.text);
        return Number(list.body.total);
      };
      // No timing asserted: the job runs on its own (a write leaves at most OCCURRENCES_PER_WRITE); wait, bounded, for its count.
      for (let i = 0; i < 300 && (await total()) < 300; i++) await sleep(100);
      assert.equal(await total(), 300);
      // Nothing is left due in any calendar.
      assert.equal(await t.built.horizonJob.runOnce(), 0);
    });

    it('an update in a calendar is seen by the next read of the record (what the services keep hears every calendar’s writes)', async () => {
      await north();
      const away = bases(t, '/c/north');
      const made = await t.api.post(`${away.events}/events`, { as: 'admin', json: ev('Kept', '2035-01-01') });
      assert.equal(made.status, 201, made.text);
      // Read often enough to be kept.
      for (let i = 0; i < 3; i++) assert.equal((await t.api.get(`${away.events}/events/${made.body.id}`, { as: 'admin' })).body.title, 'Kept');
      assert.equal((await t.api.post(`${away.events}/events/${made.body.id}`, { as: 'admin', json: { title: 'Changed' } })).status, 200);
      assert.equal((await t.api.get(`${away.events}/events/${made.body.id}`, { as: 'admin' })).body.title, 'Changed');
    });

    it('change-log pruning prunes every calendar’s old rows, keeping each record’s newest row in its own calendar', async () => {
      await north();
      const db = t.built.store.db;
      const northId = (await t.built.services.calendars.get('north')).id;
      const away = bases(t, '/c/north');
      // A settings change is record 0 of its calendar: north's, then the default calendar's (newer).
      for (const id of [northId, DEFAULT_CALENDAR_ID]) await inCalendar(id, () => writeTransaction(db, (trx) => writeCalendarSettings(trx, { CALENDAR_JOBS_TEST: String(id) })));
      const made = await t.api.post(`${away.events}/events`, { as: 'admin', json: ev('Pruned', '2034-01-01') });
      assert.equal(made.status, 201, made.text);
      for (const title of ['Pruned twice', 'Pruned thrice']) assert.equal((await t.api.post(`${away.events}/events/${made.body.id}`, { as: 'admin', json: { title } })).status, 200);
      const rows = (type: string, id: number, calendar: number) =>
        acrossCalendars(() => db.selectFrom('changes').select('seq').where('record_type', '=', type).where('record_id', '=', id).where('calendar_id', '=', calendar).execute());
      assert.ok((await rows('event', made.body.id, northId)).length >= 3);
      await acrossCalendars(() => db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute());
      assert.ok((await t.built.pruneJob.runOnce()) > 0);
      assert.equal((await rows('event', made.body.id, northId)).length, 1, 'north’s event keeps its newest row only');
      assert.equal((await rows('settings', 0, northId)).length, 1, 'north’s settings keep their newest row');
      assert.equal((await rows('settings', 0, DEFAULT_CALENDAR_ID)).length, 1);
      assert.equal((await t.api.get(`${away.events}/events/${made.body.id}`)).body.title, 'Pruned thrice');
    });
  },
  FAST,
);

for (const kind of STORES) {
  describe(`review e-mails in every calendar [${kind.name}]`, () => {
    let t: TestServer;
    let smtp: TestSmtp;
    before(async () => {
      smtp = await startSmtp();
      t = await startServer(kind, { SMTP_URL: smtp.url, SITE_NAME: 'Town Calendar', ...OPEN });
      await t.built.services.calendars.create({ slug: 'north', name: 'North' });
      await t.built.services.users.add({ login: 'cora', role: 'subscriber', password: 'cora-pw', email: 'cora@example.org', name: 'Cora' });
      await t.built.services.users.add({ login: 'nina', role: 'subscriber', password: 'nina-pw', email: 'nina@example.org' });
      await t.built.services.users.add({ login: 'eve', role: 'editor', password: 'eve-pw', email: 'eve@example.org' });
      await t.built.services.calendars.setRole('cora', 'north', 'contributor');
      await t.built.services.calendars.setRole('nina', 'north', 'editor');
    });
    after(async () => {
      await t?.close();
      await smtp?.close();
    });

    it('a contributor’s event submitted in a calendar is told to that calendar’s editors, its publication to the contributor, with the calendar’s name and URLs', async () => {
      const away = bases(t, '/c/north');
      const made = await t.api.post(`${away.events}/events`, { as: 'cora:cora-pw', json: { ...ev('Ice fishing', '2031-02-01'), status: 'pending' } });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.status, 'pending');
      const [toNina] = await smtp.waitFor((m) => m.to.includes('nina@example.org') && m.subject.includes('Ice fishing'));
      assert.equal(toNina!.subject, '[North] An event waits for review: Ice fishing');
      assert.ok(toNina!.text.includes(`/c/north/admin/events/${made.body.id}`), toNina!.text);
      const published = await t.api.post(`${away.events}/events/${made.body.id}`, { as: 'nina:nina-pw', json: { status: 'publish' } });
      assert.equal(published.status, 200, published.text);
      const [toCora] = await smtp.waitFor((m) => m.to.includes('cora@example.org') && m.subject.includes('published'));
      assert.equal(toCora!.subject, '[North] Your event is published: Ice fishing');
      assert.ok(published.body.url.includes('/c/north/'), published.body.url);
      assert.ok(toCora!.text.includes(published.body.url), toCora!.text);
      // The default calendar's editor is nobody in north: told nothing of its events.
      assert.ok(!smtp.messages.some((m) => m.to.includes('eve@example.org')));
    });

    it("a community submission to a calendar is told to that calendar's editors, not the default calendar's", async () => {
      const made = await t.api.post(`${t.origin}/c/north${SUB}/submissions`, { json: { ...EVENT, title: 'Lake swim' } });
      assert.equal(made.status, 201, made.text);
      const [toNina] = await smtp.waitFor((m) => m.to.includes('nina@example.org') && m.text.includes('Lake swim'));
      assert.equal(toNina!.subject, '[North] 1 new event to moderate');
      // Its link is north's moderation queue, and the submitter's is north's status page.
      assert.ok(toNina!.text.includes(`${t.origin}/c/north/admin/moderation`), toNina!.text);
      assert.ok(String(made.body.link).startsWith(`${t.origin}/c/north/events/submit/status/`), made.body.link);
      assert.ok(!smtp.messages.some((m) => m.to.includes('eve@example.org') && m.text.includes('Lake swim')));
      // The default calendar's own submissions still go to its editors.
      const home = await t.api.post(`${SUB}/submissions`, { json: { ...EVENT, title: 'Town fair' } });
      assert.equal(home.status, 201, home.text);
      const [toEve] = await smtp.waitFor((m) => m.to.includes('eve@example.org') && m.text.includes('Town fair'));
      assert.ok(!toEve!.to.includes('nina@example.org'));
    });
  });
}
