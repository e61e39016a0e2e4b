/**
 * The import queue serves calendars in turns (store/imports.ts `claimNextImport`): the next import
 * is the oldest queued one of the calendar whose imports ran least recently, not the oldest of all;
 * an import queued again after a slice goes behind the calendars that wait, and gives back its
 * attempt. And an import report taken up after its source was walked again (`takeUpRewalked`)
 * counts what the earlier run wrote as written, not skipped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/db.js';
import { inCalendar } from '../../src/store/calendar-scope.js';
import { claimNextImport, finishImport, findImport, insertImport } from '../../src/store/imports.js';
import { ImportReport } from '../../src/import/report.js';
import { STORES } from '../support/harness.js';

for (const kind of STORES) {
  describe(`imports take turns by calendar [${kind.name}]`, () => {
    let store: Store;
    before(async () => {
      const schema = kind.name === 'postgres' ? `t_turns_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
    });
    after(async () => {
      await store?.close();
    });

    it('the oldest queued import of the calendar that ran least recently; a slice goes behind', async () => {
      const db = store.db;
      const queue = (calendar: number, source: string) =>
        inCalendar(calendar, () => insertImport(db, { kind: 'ics', source, options: '{}', upload: null, user_id: 1, created_gmt: '2026-01-01 00:00:00' }));
      const a1 = await queue(1, 'a1');
      const a2 = await queue(1, 'a2');
      const b1 = await queue(2, 'b1');
      const c1 = await queue(3, 'c1');
      const claimed: string[] = [];
      const claim = async (now: string) => {
        const row = await claimNextImport(db, now);
        claimed.push(row?.source ?? '-');
        return row;
      };
      // No calendar ran: the oldest import. Its slice ends while others wait: queued again, behind them.
      assert.equal(Number((await claim('2026-01-01 00:00:01'))?.id), a1);
      await inCalendar(1, () => finishImport(db, a1, { status: 'queued', heartbeat_gmt: '2026-01-01 00:00:02', slice: true }));
      assert.equal(Number((await claim('2026-01-01 00:00:03'))?.id), b1);
      await inCalendar(2, () => finishImport(db, b1, { status: 'done', heartbeat_gmt: '2026-01-01 00:00:04' }));
      assert.equal(Number((await claim('2026-01-01 00:00:05'))?.id), c1);
      await inCalendar(3, () => finishImport(db, c1, { status: 'queued', heartbeat_gmt: '2026-01-01 00:00:06', slice: true }));
      // Calendar 1 ran longest ago: its oldest queued import (the one cut), not its next one.
      assert.equal(Number((await claim('2026-01-01 00:00:07'))?.id), a1);
      await inCalendar(1, () => finishImport(db, a1, { status: 'done', heartbeat_gmt: '2026-01-01 00:00:08' }));
      assert.equal(Number((await claim('2026-01-01 00:00:09'))?.id), c1);
      await inCalendar(3, () => finishImport(db, c1, { status: 'done', heartbeat_gmt: '2026-01-01 00:00:10' }));
      assert.equal(Number((await claim('2026-01-01 00:00:11'))?.id), a2);
      assert.deepEqual(claimed, ['a1', 'b1', 'c1', 'a1', 'c1', 'a2']);
      // Sliced twice, started once: a slice is no attempt; its first start is kept.
      const row = await inCalendar(1, () => findImport(db, a1));
      assert.equal(Number(row?.attempts), 1);
      assert.equal(row?.started_gmt, '2026-01-01 00:00:01');
    });

    it('within one second, the order this server gave the turns decides', async () => {
      const db = store.db;
      const queue = (calendar: number, source: string) =>
        inCalendar(calendar, () => insertImport(db, { kind: 'ics', source, options: '{}', upload: null, user_id: 1, created_gmt: '2026-02-01 00:00:00' }));
      const x = await queue(4, 'x');
      const y = await queue(5, 'y');
      const now = '2026-02-01 00:00:00';
      const turns = new Map<number, number>();
      const claim = async () => {
        const row = await claimNextImport(db, now, (calendar) => turns.get(calendar) ?? -1);
        if (row) turns.set(row.calendar_id, turns.size + 1 + Math.max(0, ...turns.values()));
        return row;
      };
      assert.equal(Number((await claim())?.id), x);
      await inCalendar(4, () => finishImport(db, x, { status: 'queued', heartbeat_gmt: now, slice: true }));
      assert.equal(Number((await claim())?.id), y);
      await inCalendar(5, () => finishImport(db, y, { status: 'queued', heartbeat_gmt: now, slice: true }));
      // Both ran in this second: x's turn came first, so x goes now (not y again, nor by id alone).
      assert.equal(Number((await claim())?.id), x);
      await inCalendar(4, () => finishImport(db, x, { status: 'queued', heartbeat_gmt: now, slice: true }));
      assert.equal(Number((await claim())?.id), y);
    });
  });
}

it('a report taken up after its source was walked again counts what the earlier run wrote as written', () => {
  const earlier = new ImportReport();
  for (let i = 0; i < 3; i++) earlier.count('event', 'created');
  earlier.count('event', 'updated');
  earlier.count('venue', 'created');
  earlier.wroteEvent(10, 'created');
  earlier.wroteEvent(11, 'created');
  earlier.warnings.push('one');
  const state = JSON.parse(JSON.stringify(earlier.state())) as ReturnType<ImportReport['state']>;
  // The next run walked everything again: the 4 events and the venue written before are skipped now.
  const run = new ImportReport();
  for (let i = 0; i < 4; i++) run.count('event', 'skipped');
  run.count('venue', 'skipped');
  run.skip('event', 'e9', 'no date');
  for (let i = 0; i < 2; i++) run.count('event', 'created');
  run.wroteEvent(12, 'created');
  run.warnings.push('one', 'two');
  run.takeUpRewalked(state);
  assert.deepEqual(run.counts.get('event'), { created: 5, updated: 1, unchanged: 0, skipped: 1, failed: 0 });
  assert.deepEqual(run.counts.get('venue'), { created: 1, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
  assert.deepEqual(run.eventIds.created, [10, 11, 12]);
  assert.deepEqual(run.warnings, ['one', 'two']);
  // A report kept as JSON and taken up again is the same report.
  const again = new ImportReport();
  again.restore(JSON.parse(JSON.stringify(run.state())));
  assert.deepEqual(again.state(), run.state());
});
