/**
 * Real-browser tests: Debian's `chromium` driven by `playwright-core` (no browser download).
 * `.ci/run` installs chromium when the machine lacks it; without one these tests fail with a clear
 * message rather than being skipped.
 *
 * @example
 *   const browser = await launchBrowser();
 *   const page = await browser.newPage();
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);

/** The browser's executable, or an error saying how to get one. */
export function chromiumPath(): string {
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium found (looked at ${CANDIDATES.join(', ')}): install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  return found;
}

/** FullCalendar (`@fullcalendar/core` + `daygrid` + `list`) for a test page, bundled with the esbuild vite installs: `window.FullCalendar`. */
export async function fullCalendarBundle(): Promise<string> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const require = createRequire(import.meta.url);
  const esbuild = require(require.resolve('esbuild', { paths: [root + 'node_modules/vite', root] })) as typeof import('esbuild');
  const out = await esbuild.build({
    stdin: {
      contents: `import { Calendar } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import listPlugin from '@fullcalendar/list';
window.FullCalendar = { Calendar, dayGridPlugin, listPlugin };`,
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'error',
  });
  return out.outputFiles[0]!.text;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core's serious and critical violations on the page, for the rules of these tags (WCAG 2.0
 * to 2.2 A and AA, best practices by default). A page whose Content-Security-Policy forbids
 * scripts (the admin pages) gets axe evaluated instead of added as a script tag.
 */
export async function seriousViolations(page: Page, tags: readonly string[] = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: AXE_SOURCE }).catch(async () => {
    await page.evaluate(AXE_SOURCE);
  });
  const { violations, passes } = (await page.evaluate(
    async (values) => {
      const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: unknown[]; passes: unknown[] }> } }).axe;
      const r = await axe.run(document, { runOnly: { type: 'tag', values } });
      return { violations: r.violations, passes: r.passes.length };
    },
    [...tags],
  )) as { violations: AxeViolation[]; passes: number };
  assert.ok(passes > 10, `axe ran its rules (${passes} passed)`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * A new browser context (its own cookies) signed in to the admin app as `login` (password
 * `{login}-pw`, as the tests create their users), on the dashboard; in French when asked.
 */
export async function signInAdmin(browser: Browser, origin: string, login: string, options: { width?: number; french?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${origin}/admin/`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(`${login}-pw`);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/admin\/$/);
  await page.locator('h1').waitFor();
  if (options.french) {
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor();
  }
  return page;
}
