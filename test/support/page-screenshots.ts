/**
 * The screenshots of the list and month views in docs/pages-and-feeds.md: seeds a demo calendar (the `seed`
 * command's generator, 400 events around today) in memory, serves it, and saves
 * `pages-list.png` and `pages-month.png` with Chromium into the directory given (default `docs/`).
 *
 * @example npx tsx test/support/page-screenshots.ts docs
 */
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { seedCalendar } from '../../src/seed/calendar.js';
import { buildApp } from '../../src/app.js';
import { freePort } from '../../bench/src/processes.js';
import { openStore } from '../../src/store/db.js';
import { launchBrowser } from './browser.js';

export async function takePageScreenshots(dir: string): Promise<string[]> {
  const port = await freePort();
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    PORT: String(port),
    LOG_LEVEL: 'silent',
    SITE_NAME: 'Springfield Events',
    CALENDAR_TIMEZONE: 'Europe/Rome',
    CALENDAR_ADMIN_USER: 'admin',
    CALENDAR_ADMIN_PASSWORD: 'demo-password',
  });
  const store = await openStore(config.databaseUrl);
  const built = await buildApp(config, { store, logger: false });
  const admin = (await built.services.users.list()).find((u) => u.login === 'admin')!;
  await seedCalendar(store, { events: 400, authorId: Number(admin.id), timezone: config.timezone, seed: 7 });
  await built.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchBrowser();
  const files: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    for (const [name, path] of [
      ['pages-list.png', '/events/'],
      ['pages-month.png', '/events/month/'],
    ] as const) {
      await page.goto(`${config.siteUrl}${path}`);
      const file = join(dir, name);
      await page.screenshot({ path: file, fullPage: false });
      files.push(file);
    }
  } finally {
    await browser.close();
    await built.close();
  }
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const files = await takePageScreenshots(resolve(process.argv[2] ?? 'docs'));
  for (const f of files) console.log(f);
}
