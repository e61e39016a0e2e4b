/**
 * Issue 30: the embed face. The component's files (stable URL with a short cache, hashed URL
 * `immutable`, ETag and 304, the Subresource Integrity hash matching the served bytes, CORS for any
 * origin without credentials), the iframe view (`/embed/`: list, upcoming, month, filters, locale,
 * published events only, frameable only there, no script, 304, 400), and the snippet generator.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { forEachStore, type TestServer } from '../support/harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifestOf = () => JSON.parse(readFileSync(`${root}/dist/embed/manifest.json`, 'utf8')) as { file: string; hash: string; integrity: string; gzipBytes: number; budgetGzip: number };

before(() => {
  const built = spawnSync(process.execPath, [`${root}/embed/build.mjs`, '--if-stale'], { stdio: 'inherit' });
  assert.equal(built.status, 0, 'the component builds');
});

it('fails the build when the component is over its gzip budget, writing nothing', () => {
  const before = readFileSync(`${root}/dist/embed/manifest.json`, 'utf8');
  const over = spawnSync(process.execPath, [`${root}/embed/build.mjs`], { env: { ...process.env, EMBED_GZIP_BUDGET: '1000' }, encoding: 'utf8' });
  assert.equal(over.status, 1);
  assert.match(over.stderr, /events-calendar\.js is \d+ bytes gzipped, over the budget of 1000/);
  assert.equal(readFileSync(`${root}/dist/embed/manifest.json`, 'utf8'), before);
});

forEachStore('embed face', (t: TestServer) => {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(t.origin + path, { headers });
  const page = async (path: string, headers: Record<string, string> = {}) => {
    const res = await get(path, headers);
    return { res, text: await res.text() };
  };
  const nextMonth = DateTime.utc().startOf('month').plus({ months: 1 });
  const day = (n: number) => nextMonth.plus({ days: n - 1 }).toISODate()!;
  const month = nextMonth.toFormat('yyyy-MM');
  let venueId = 0;

  before(async () => {
    const post = async (json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const gala = await post({
      title: 'Gala & Dinner',
      start_date: `${day(10)} 20:00`,
      end_date: `${day(10)} 23:00`,
      categories: ['Concerts'],
      venue: { venue: 'Opera House', city: 'Lyon' },
      cost: '30',
    });
    venueId = gala.venue.id;
    await post({ title: 'Book Fair', all_day: true, start_date: day(12), end_date: day(13), categories: ['Markets'], featured: true });
    await post({ title: 'Morning Run', start_date: `${day(3)} 07:00`, end_date: `${day(3)} 08:00`, tags: ['outdoor'] });
    await post({ title: 'Secret Draft', status: 'draft', start_date: `${day(4)} 10:00`, end_date: `${day(4)} 11:00` });
    await post({ title: 'Private Meeting', status: 'private', start_date: `${day(5)} 10:00`, end_date: `${day(5)} 11:00` });
  });

  it('serves the component at its stable URL with a short cache, an ETag and 304', async () => {
    const m = manifestOf();
    const res = await get('/embed/events-calendar.js');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(res.headers.get('etag'), `"${m.hash}"`);
    assert.match(res.headers.get('link') ?? '', new RegExp(`</embed/${m.file.replace(/\./g, '\\.')}>; rel="preload"`));
    const body = Buffer.from(await res.arrayBuffer());
    assert.deepEqual(body, readFileSync(`${root}/dist/embed/${m.file}`));
    assert.match(body.toString('utf8'), /customElements\.define\("events-calendar"/);
    const again = await get('/embed/events-calendar.js', { 'if-none-match': `"${m.hash}"` });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
  });

  it('serves the hashed asset immutable, its SRI hash matching the bytes served', async () => {
    const m = manifestOf();
    assert.match(m.file, /^events-calendar\.[0-9a-f]{12}\.js$/);
    const res = await get(`/embed/${m.file}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(`sha384-${createHash('sha384').update(body).digest('base64')}`, m.integrity, 'the manifest names the served bytes');
    assert.equal(createHash('sha256').update(body).digest('hex').slice(0, 12), m.hash, 'the name is the hash of the bytes');
    assert.ok(m.gzipBytes <= 25 * 1024 && m.budgetGzip === 25 * 1024, `within the budget (${m.gzipBytes} bytes gzipped)`);
    const other = await get('/embed/events-calendar.0123456789ab.js');
    assert.equal(other.status, 404, 'another version is not served as this one');
    await other.arrayBuffer();
  });

  it('lets any origin load the component without credentials', async () => {
    for (const path of ['/embed/events-calendar.js', `/embed/${manifestOf().file}`]) {
      const res = await get(path, { origin: 'https://shop.example.com' });
      await res.arrayBuffer();
      assert.equal(res.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(res.headers.get('access-control-allow-credentials'), null, path);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin', path);
    }
  });

  it('renders the iframe view: upcoming published events, no script, frameable by any site', async () => {
    const { res, text } = await page('/embed/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors \*/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(res.headers.get('x-frame-options'), null);
    assert.doesNotMatch(text, /<script/i);
    assert.match(text, /<base target="_top">/);
    for (const title of ['Morning Run', 'Gala &#38; Dinner', 'Book Fair']) assert.ok(text.includes(title), title);
    assert.ok(text.indexOf('Morning Run') < text.indexOf('Gala &#38; Dinner'), 'in start order');
    assert.ok(!text.includes('Secret Draft') && !text.includes('Private Meeting'), 'published events only');
    assert.match(text, /Opera House, Lyon/);
    const rest = await t.api.get('/events', { query: { search: 'gala' } });
    assert.ok(text.includes(`href="${rest.body.events[0].url}"`), 'links to the event page the API names');
  });

  it('filters the iframe view as the component does, and limits it', async () => {
    const titlesOf = async (query: string) => {
      const { res, text } = await page(`/embed/${query}`);
      assert.equal(res.status, 200, query);
      return ['Morning Run', 'Gala', 'Book Fair'].filter((x) => text.includes(x));
    };
    assert.deepEqual(await titlesOf('?category=concerts'), ['Gala']);
    assert.deepEqual(await titlesOf('?categories=markets,concerts'), ['Gala', 'Book Fair']);
    assert.deepEqual(await titlesOf('?tag=outdoor'), ['Morning Run']);
    assert.deepEqual(await titlesOf(`?venue=${venueId}`), ['Gala']);
    assert.deepEqual(await titlesOf('?featured=1'), ['Book Fair']);
    assert.deepEqual(await titlesOf('?search=run'), ['Morning Run']);
    assert.deepEqual(await titlesOf('?limit=1'), ['Morning Run']);
    assert.deepEqual(await titlesOf('?view=upcoming&limit=2'), ['Morning Run', 'Gala']);
  });

  it('renders the month view with its days, events on each day they cover, and links to the other months', async () => {
    const { res, text } = await page(`/embed/?view=month&month=${month}`);
    assert.equal(res.status, 200);
    assert.match(text, new RegExp(`<h1 id="month-title">${nextMonth.toFormat('LLLL yyyy')}</h1>`));
    assert.match(text, /<table aria-labelledby="month-title">/);
    assert.match(text, /<th scope="col" abbr="Monday">Mon<\/th>/);
    const cells = text.split('<td').slice(1);
    const cellOf = (n: number) => cells.find((c) => c.includes(`${DateTime.fromISO(day(n)).setLocale('en-GB').toFormat('cccc, d LLLL yyyy')},`))!;
    assert.match(cellOf(10), /1 event/);
    assert.match(cellOf(10), /20:00 Gala &#38; Dinner/);
    assert.match(cellOf(12), /Book Fair/);
    assert.match(cellOf(13), /Book Fair/, 'an all-day event on each of its days');
    assert.match(cellOf(14), /no events/);
    const prev = nextMonth.minus({ months: 1 }).toFormat('yyyy-MM');
    assert.ok(text.includes(`href="./?view=month&#38;month=${prev}" target="_self" rel="prev"`), 'previous month, in the frame');
    const empty = await page('/embed/?view=month&month=2001-01');
    assert.match(empty.text, /No events this month\./);
  });

  it('speaks French when asked, by argument or Accept-Language', async () => {
    const byArg = await page(`/embed/?view=month&month=${month}&locale=fr`);
    assert.match(byArg.text, /<html lang="fr">/);
    assert.match(byArg.text, /Mois précédent/);
    assert.match(byArg.text, /1 événement/);
    const byHeader = await page('/embed/', { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    assert.match(byHeader.text, /Événements à venir/);
  });

  it('answers 304 to the iframe view when nothing changed, and 400 for a value it cannot read', async () => {
    const first = await get('/embed/?view=upcoming');
    await first.text();
    const etag = first.headers.get('etag')!;
    assert.ok(etag);
    const again = await get('/embed/?view=upcoming', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    for (const query of ['?view=agenda', '?month=2031-13', '?limit=0', '?limit=500', '?venue=x', '?featured=maybe', '?locale=de']) {
      const { res, text } = await page(`/embed/${query}`);
      assert.equal(res.status, 400, query);
      assert.match(text, /cannot read/, query);
      assert.equal(res.headers.get('cache-control'), 'no-store');
    }
  });

  it('makes the snippets from the form: component with SRI, iframe, FullCalendar', async () => {
    const m = manifestOf();
    const { res, text } = await page(`/embed/snippet?view=month&category=concerts&tag=outdoor&venue=${venueId}&featured=1&search=gala&locale=fr&time-zone=event&refresh=60`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'self'/, 'the snippet page is not frameable by other sites');
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.match(text, /<form method="get" action=".\/snippet"/);
    assert.match(text, /<option value="month" selected>/);
    assert.match(text, /<input id="f-featured" name="featured" type="checkbox" value="1" checked>/);
    const decoded = (s: string) => s.replace(/&#(\d+);/g, (_x, n) => String.fromCharCode(Number(n)));
    const textarea = (id: string) => decoded(new RegExp(`<textarea id="${id}"[^>]*>([\\s\\S]*?)</textarea>`).exec(text)![1]!);
    const component = textarea('snippet-component');
    assert.equal(
      component,
      `<script type="module" src="${t.origin}/embed/${m.file}" integrity="${m.integrity}" crossorigin="anonymous"></script>\n` +
        `<events-calendar service="${t.origin}" view="month" category="concerts" tag="outdoor" venue="${venueId}" featured search="gala" locale="fr" time-zone="event" refresh="60"></events-calendar>`,
    );
    const iframe = textarea('snippet-iframe');
    assert.equal(
      iframe,
      `<iframe src="${t.origin}/embed/?view=month&amp;category=concerts&amp;tag=outdoor&amp;venue=${venueId}&amp;featured=1&amp;search=gala&amp;locale=fr" title="Events – Events Calendar" width="100%" height="720" style="border:0" loading="lazy"></iframe>`,
    );
    const src = /src="([^"]+)"/.exec(iframe)![1]!.replace(/&amp;/g, '&');
    const framed = await fetch(src);
    assert.equal(framed.status, 200, 'the iframe snippet opens the view');
    const framedText = await framed.text();
    assert.match(framedText, /<html lang="fr">/);
    assert.match(framedText, /<h1 id="month-title">/, 'the month view');
    const fc = textarea('snippet-fullcalendar');
    assert.ok(fc.includes(`url: '${t.origin}/wp-json/calendar/embed/v1/fullcalendar'`));
    assert.ok(fc.includes(`"categories":"concerts"`) && fc.includes(`"featured":"1"`));
    assert.match(text, new RegExp(`<iframe src="${t.origin.replace(/\./g, '\\.')}/embed/\\?view=month`), 'an iframe preview');
  });

  it('names the values it cannot use, and keeps the rest', async () => {
    const { res, text } = await page('/embed/snippet?view=agenda&limit=-3&category=talks');
    assert.equal(res.status, 200);
    assert.match(text, /<p role="alert" class="warn">Not used, it is not valid: view, limit\.<\/p>/);
    assert.match(text, /category="talks"/);
  });
});
