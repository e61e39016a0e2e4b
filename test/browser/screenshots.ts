/**
 * The screenshots in docs/ of the admin app's screens and the public pages an editor's day goes
 * through (not a test: run it by hand after a screen changes, then look at the pictures):
 *
 *   node --import tsx test/browser/screenshots.ts
 *
 * It starts a server on an in-memory database, writes a few events (a weekly series, one with a
 * picture, one waiting for review), an invitation and an import, signs in as the administrator at
 * desktop width and saves each screen as docs/<name>.png.
 */
import { join } from 'node:path';
import { startServer } from '../support/harness.js';
import { launchBrowser, signInAdmin } from '../support/browser.js';
import { plainImage, uploadRaw } from '../support/media.js';

const DOCS = join(import.meta.dirname, '..', '..', 'docs');

const t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
const browser = await launchBrowser();
try {
  await t.user('contributor', 'carl');
  await t.user('administrator', 'ada');
  const picture = await uploadRaw(t, await plainImage(1600, 900, 'jpeg'), 'image/jpeg', 'admin', 'harbour.jpg');
  await t.api.post(`/api/calendar/admin/v1/media/${picture.body.id}`, { as: 'admin', json: { alt_text: 'The harbour at dusk' } });
  const series = await t.api.post('/events', {
    as: 'admin',
    json: {
      title: 'Tuesday jazz',
      status: 'publish',
      start_date: '2027-03-02 19:00',
      end_date: '2027-03-02 21:00',
      cost: '€5 suggested donation',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=8'],
      image: String(picture.body.id),
    },
  });
  if (series.status !== 201) throw new Error(`the series: ${series.text}`);
  await t.api.post('/events', { as: 'admin', json: { title: 'Harbour walk', status: 'publish', start_date: '2027-03-06 10:00', end_date: '2027-03-06 12:00', image: String(picture.body.id) } });
  await t.api.post('/events', { as: 'carl', json: { title: 'Poetry evening', status: 'pending', start_date: '2027-03-09 18:00', end_date: '2027-03-09 20:00' } });
  await t.api.post('/api/calendar/admin/v1/invitations', { as: 'admin', json: { email: 'edna@example.org', role: 'editor', name: 'Edna' } });

  const page = await signInAdmin(browser, t.origin, 'ada');
  const shot = async (path: string, name: string, ready: () => Promise<unknown>) => {
    const started = performance.now();
    await page.goto(`${t.origin}${path}`);
    await ready();
    // How long the screen took to be usable (navigation to its content shown), for the record.
    const ms = Math.round(performance.now() - started);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
    console.log(`docs/${name}.png  ${path}  ${ms} ms`);
  };
  const h1 = () => page.locator('h1').first().waitFor();
  await shot('/admin/events', 'admin-series-rows', async () => {
    await h1();
    await page
      .getByRole('button', { name: /Show dates/ })
      .first()
      .click();
    await page.locator('.series-dates li').first().waitFor();
  });
  await shot(`/admin/events/${series.body.id}`, 'admin-editor-picture', () => page.locator('#f-title').waitFor());
  await shot('/admin/media', 'admin-media', h1);
  await shot('/admin/reviews', 'admin-reviews', h1);
  await shot('/admin/my-account', 'admin-account', h1);
  await shot('/admin/invitations', 'admin-invitations', h1);
  await shot('/admin/embed', 'admin-embed', h1);
  await shot('/admin/settings', 'admin-settings', h1);
  await shot('/admin/import-export', 'admin-import-export', h1);
  await shot('/event/tuesday-jazz/2027-03-09/', 'pages-event-series', () => page.locator('h1').waitFor());
} finally {
  await browser.close();
  await t.close();
}
