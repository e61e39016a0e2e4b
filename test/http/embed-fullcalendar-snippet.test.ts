/**
 * The snippet generator's FullCalendar code is paste-ready: script tags of FullCalendar's global
 * build served by this service (versioned URLs, a year's immutable cache, CORS for any origin) with
 * `integrity` hashes that match the bytes served, the chosen locale's file and option, the chosen
 * first day of the week (the calendar's own by default), and the event source with the filters;
 * the same snippets as JSON for the admin app's screen.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { forEachStore } from '../support/harness.js';

const sri = (bytes: ArrayBuffer) => `sha384-${createHash('sha384').update(Buffer.from(bytes)).digest('base64')}`;

forEachStore(
  'the FullCalendar snippet',
  (t) => {
    it('serves the global build under versioned URLs whose integrity hashes match', async () => {
      const res = await fetch(`${t.origin}/embed/snippet.json?view=month&category=concerts&locale=fr&first-day=0`);
      assert.equal(res.status, 200);
      const snippet = (await res.json()) as { fullcalendar: string; scripts: Array<{ src: string; integrity: string }>; first_day: number; invalid: string[] };
      assert.deepEqual(
        snippet.scripts.map((s) => s.src.replace(/fullcalendar-[\d.]+/, 'fullcalendar-V').replace(t.origin, '')),
        ['/embed/vendor/fullcalendar-V/core.min.js', '/embed/vendor/fullcalendar-V/daygrid.min.js', '/embed/vendor/fullcalendar-V/list.min.js', '/embed/vendor/fullcalendar-V/locales/fr.min.js'],
      );
      for (const s of snippet.scripts) {
        const file = await fetch(s.src, { headers: { origin: 'https://elsewhere.example' } });
        assert.equal(file.status, 200, s.src);
        assert.equal(file.headers.get('content-type'), 'text/javascript; charset=utf-8');
        assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal(file.headers.get('access-control-allow-origin'), '*');
        assert.equal(sri(await file.arrayBuffer()), s.integrity, `${s.src}: the integrity hash is the served bytes'`);
        assert.ok(snippet.fullcalendar.includes(`<script src="${s.src}" integrity="${s.integrity}" crossorigin="anonymous"></script>`));
      }
      assert.match(snippet.fullcalendar, /new FullCalendar\.Calendar\(document\.getElementById\('events-calendar'\)/);
      assert.match(snippet.fullcalendar, /initialView: 'dayGridMonth'/);
      assert.match(snippet.fullcalendar, /firstDay: 0,/);
      assert.match(snippet.fullcalendar, /locale: 'fr',/);
      assert.ok(snippet.fullcalendar.includes(`url: '${t.origin}/wp-json/calendar/embed/v1/fullcalendar', extraParams: {"categories":"concerts"}`));
      assert.doesNotMatch(snippet.fullcalendar, /import /, 'no bundler');
      assert.equal(snippet.first_day, 0);
      assert.deepEqual(snippet.invalid, []);

      assert.equal((await fetch(`${t.origin}/embed/vendor/fullcalendar-0.0.1/core.min.js`)).status, 404, 'another version');
      assert.equal((await fetch(snippet.scripts[0]!.src.replace('core.min.js', 'nope.js'))).status, 404);
    });

    it('English and the calendar’s first day by default; an unreadable first day is named; a search cannot close the script', async () => {
      const plain = (await (await fetch(`${t.origin}/embed/snippet.json`)).json()) as { fullcalendar: string; scripts: unknown[]; first_day: number };
      assert.equal(plain.scripts.length, 3, 'no locale file for English');
      assert.equal(plain.first_day, 6, 'CALENDAR_WEEK_START=saturday');
      assert.doesNotMatch(plain.fullcalendar, /locale:/);
      assert.match(plain.fullcalendar, /initialView: 'listMonth'/);
      const bad = (await (await fetch(`${t.origin}/embed/snippet.json?first-day=9&search=${encodeURIComponent('</script><b>')}`)).json()) as { invalid: string[]; fullcalendar: string };
      assert.deepEqual(bad.invalid, ['first-day']);
      assert.equal(bad.fullcalendar.split('</script>').length - 1, 4, 'only the tags' + "' own closings");
      const page = await (await fetch(`${t.origin}/embed/snippet?first-day=1&locale=fr`, { headers: { 'accept-language': 'fr' } })).text();
      assert.match(page, /<select id="f-first-day" name="first-day">/);
      assert.match(page, /<option value="1" selected>lundi<\/option>/);
      assert.match(page, /locales\/fr\.min\.js/);
    });
  },
  { CALENDAR_WEEK_START: 'saturday' },
);
