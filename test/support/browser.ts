/**
 * Real-browser tests: Debian's `chromium` driven by `playwright-core` (no browser download).
 * `.ci/run` installs chromium when the machine lacks it; without one these tests fail with a clear
 * message rather than being skipped.
 *
 * @example
 *   const browser = await launchBrowser();
 *   const page = await browser.newPage();
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);

/** The browser's executable, or an error saying how to get one. */
export function chromiumPath(): string {
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium found (looked at ${CANDIDATES.join(', ')}): install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
