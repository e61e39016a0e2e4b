/**
 * What a server keeps per calendar is bounded: after a list read in each of 300 calendars, the
 * structures kept for calendars (64 calendars' slots, 256 calendars' links and their kept
 * representations) and the change feed's listeners stay within their bounds. Before, every
 * calendar ever asked left its kept representations behind, held by their feed listener (with a
 * 64 KiB admission table each: 10,000 calendars asked once grew the server by 770 MB).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { forEachStore } from '../support/harness.js';

/** More calendars than the service keeps links (and their kept representations) for: 256. */
const CALENDARS = 300;

forEachStore(
  'calendars: what is kept per calendar is bounded',
  (t) => {
    before(async () => {
      for (let i = 1; i <= CALENDARS; i++) await t.built.services.calendars.create({ slug: `k${i}`, name: `Kept ${i}` });
    });

    const kept = async (kind: string): Promise<number> => {
      const text = await (await fetch(`${t.origin}/metrics`)).text();
      return Number(new RegExp(`^calendar_kept_entries\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    };

    it('keeps 64 calendars’ structures and their listeners, not one set per calendar ever asked', async () => {
      const listenersBefore = await kept('feed_listeners');
      for (let i = 1; i <= CALENDARS; i++) {
        const res = await fetch(`${t.origin}/c/k${i}${t.config.restRoot}/calendar/events/v1/events`);
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      assert.equal(await kept('calendar_slots'), 64);
      // What was kept for calendars let go is collected; a write's batch then drops their listeners.
      v8.setFlagsFromString('--expose-gc');
      const gc = vm.runInNewContext('gc') as () => void;
      gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      const write = await t.api.post('/events', { as: 'admin', json: { title: 'A batch', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' } });
      assert.equal(write.status, 201, write.text);
      await t.api.get('/events');
      const listeners = await kept('feed_listeners');
      // Those of the calendars kept (64 calendars' slots, 256 calendars' links at most), not two for
      // each of the 300 ever asked.
      assert.ok(listeners - listenersBefore <= 64 + 256, `listeners: ${listenersBefore} before, ${listeners} after`);
      assert.ok(listeners - listenersBefore < CALENDARS, `listeners: ${listenersBefore} before, ${listeners} after`);
    });
  },
  { METRICS: 'true' },
);
