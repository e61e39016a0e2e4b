/**
 * Issue 17: an old embedded calendar widget on another site loads the list with a `<script>` tag
 * and `?_jsonp=callback`, as WordPress allows. Run once in a real browser (Chromium), on SQLite: the
 * store does not matter here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser } from '../support/browser.js';
import { freePort } from '../../bench/src/processes.js';

describe('JSONP from another origin in a browser', () => {
  let t: TestServer;
  let widgetSite: Server;
  let widgetOrigin: string;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    for (const title of ['Widget one', 'Widget two']) {
      const res = await t.api.post('/events', { as: 'admin', json: { title, start_date: '2031-02-01 10:00', end_date: '2031-02-01 11:00' } });
      assert.equal(res.status, 201);
    }
    await t.api.post('/events', { as: 'admin', json: { title: 'Hidden draft', status: 'draft', start_date: '2031-02-01 10:00', end_date: '2031-02-01 11:00' } });
    // Another site (another origin: another port) whose page embeds the calendar with script tags.
    const port = await freePort();
    widgetOrigin = `http://127.0.0.1:${port}`;
    widgetSite = createServer((req, res) => {
      const url = new URL(req.url ?? '/', widgetOrigin);
      const callback = url.searchParams.get('callback') ?? 'showEvents';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>widget</title></head><body>
<script>
  window.loaded = null; window.failed = false;
  window.showEvents = function (data) { window.loaded = data; };
</script>
<script src="${t.base}/events?start_date=2031-01-01&end_date=2031-12-31&_jsonp=${encodeURIComponent(callback)}" onerror="window.failed = true"></script>
</body></html>`);
    });
    await new Promise<void>((resolve) => widgetSite.listen(port, '127.0.0.1', resolve));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => widgetSite?.close(resolve));
    await t?.close();
  });

  it('runs the callback with the public list', async () => {
    const page = await browser.newPage();
    await page.goto(`${widgetOrigin}/`);
    await page.waitForFunction(() => (window as unknown as { loaded: unknown }).loaded !== null, undefined, { timeout: 10_000 });
    const data = (await page.evaluate(() => (window as unknown as { loaded: { total: number; events: Array<{ title: string }> } }).loaded)) as {
      total: number;
      events: Array<{ title: string }>;
    };
    assert.equal(data.total, 2, 'drafts stay hidden: a script tag is anonymous');
    assert.deepEqual(data.events.map((e) => e.title).sort(), ['Widget one', 'Widget two']);
    await page.close();
  });

  it('refuses an invalid callback name: the script does not run', async () => {
    const page = await browser.newPage();
    await page.goto(`${widgetOrigin}/?callback=${encodeURIComponent('alert(1)//')}`);
    await page.waitForFunction(() => (window as unknown as { failed: boolean }).failed, undefined, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { loaded: unknown }).loaded), null);
    await page.close();
  });
});
