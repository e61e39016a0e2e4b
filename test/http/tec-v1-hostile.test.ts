/**
 * `tec/v1` under hostile input: every route of its namespace index and every method, with values of
 * the wrong type, out of range, huge, or holding NUL bytes, as a guest and as the administrator,
 * answers below 500, in WordPress' error shape (or the original's `{error}` bodies), and a refused
 * update changes nothing. PATCH is PUT's twin (one endpoint), so PUT stands for both.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { tecClient } from '../support/tec-v1.js';

const HOSTILE: unknown[] = [
  null,
  true,
  -1,
  0,
  1e300,
  2 ** 53,
  '',
  ' ',
  'x'.repeat(5000),
  'a\u0000b',
  '2025-13-45 99:99:99',
  'next blursday',
  [],
  [1, 'two', { three: 3 }],
  Array.from({ length: 500 }, (_, i) => i + 1),
  { nested: { deep: [1, 2] } },
  '<script>alert(1)</script>',
  "1' OR '1'='1",
];

forEachStore(
  'tec/v1: hostile requests to every route',
  (t) => {
    const tec = tecClient(t);
    const ids: Record<string, number> = {};
    before(async () => {
      const venue = await tec.post('/venues', { as: 'admin', json: { title: 'Hall', address: '1 Main St' } });
      const organizer = await tec.post('/organizers', { as: 'admin', json: { title: 'Org' } });
      const event = await tec.post('/events', {
        as: 'admin',
        json: { title: 'Target', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 12:00:00', venues: [venue.body.id], organizers: [organizer.body.id] },
      });
      assert.equal(event.status, 201, event.text);
      ids.events = event.body.id;
      ids.venues = venue.body.id;
      ids.organizers = organizer.body.id;
    });

    it('answers every route, method and hostile value below 500, in an error shape, writing nothing when refused', async () => {
      const index = (await t.api.get(`${t.origin}/wp-json/tec/v1`)).body;
      let sent = 0;
      for (const [key, entry] of Object.entries<any>(index.routes)) {
        const base = key.replace(/^\/tec\/v1/, '');
        const kind = /^\/(events|venues|organizers)/.exec(base)?.[1];
        const path = base.replace(/\(\?P<id>[^)]*\)/, String(kind ? ids[kind] : 1));
        for (const e of entry.endpoints as Array<{ methods: string[]; args: Record<string, unknown> | unknown[] }>) {
          const names = Array.isArray(e.args) ? [] : Object.keys(e.args).filter((n) => n !== 'id');
          for (const method of e.methods.filter((m) => m !== 'PATCH')) {
            // DELETE would take the targets away: its hostile values go to an unknown id.
            const target = method === 'DELETE' ? path.replace(/\d+$/, '999999') : path;
            for (const name of names) {
              for (const value of HOSTILE) {
                // Reads as a guest, writes as the administrator (past the permission, into the handlers).
                for (const who of method === 'GET' ? [null] : ['admin']) {
                  const before = method === 'PUT' && target.startsWith('/events/') ? (await t.api.get(`/events/${ids.events}`, { as: 'admin' })).text : undefined;
                  const res =
                    method === 'GET' || method === 'DELETE'
                      ? await tec.request(method, target, { as: who, query: { [name]: typeof value === 'string' ? value : JSON.stringify(value) } })
                      : await tec.request(method, target, { as: who, json: { [name]: value } });
                  sent++;
                  assert.ok(res.status < 500, `${method} ${target} ${name}=${JSON.stringify(value).slice(0, 60)}: ${res.status} ${res.text.slice(0, 300)}`);
                  if (res.status >= 400) {
                    const body = res.body;
                    assert.ok((typeof body?.code === 'string' && typeof body?.message === 'string') || typeof body?.error === 'string', `${method} ${target} ${name}: ${res.text.slice(0, 200)}`);
                    if (before !== undefined && target.startsWith('/events/'))
                      assert.equal((await t.api.get(`/events/${ids.events}`, { as: 'admin' })).text, before, `${method} ${target} ${name} changed the event`);
                  }
                }
              }
            }
          }
        }
      }
      assert.ok(sent > 500, `${sent} requests`);
    });
  },
  { RATE_LIMIT_MAX: '0', LOGIN_MAX_FAILURES: '0' },
);
