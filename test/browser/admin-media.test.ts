/**
 * The media library in the admin app (Chromium, SQLite): in the event editor an editor uploads a
 * picture with the file picker, then by dropping a file on the drop zone, then by pasting one into
 * it, gives the picture alt text (saved to the library), chooses an image from the library dialog
 * and removes it; on the Media screen edits an image's alt text and deletes one; the public event,
 * list and month pages show the picture and the submission form offers one. In English and French,
 * at 390 px and on a desktop, with axe-core (WCAG 2.2 AA) on every screen and page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations, signInAdmin } from '../support/browser.js';
import { plainImage } from '../support/media.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

const TEXT = {
  en: {
    alt: 'Alt text',
    saveAlt: 'Save alt text',
    altSaved: 'Alt text saved.',
    library: 'Choose from the library',
    remove: 'Remove the image',
    media: 'Media library',
    delete: 'Delete',
    deleted: 'Image deleted.',
  },
  fr: {
    alt: 'Texte alternatif',
    saveAlt: 'Enregistrer le texte alternatif',
    altSaved: 'Texte alternatif enregistré.',
    library: 'Choisir dans la médiathèque',
    remove: 'Retirer l’image',
    media: 'Médiathèque',
    delete: 'Supprimer',
    deleted: 'Image supprimée.',
  },
} as const;

async function axe(page: Page, where: string, width: number): Promise<string[]> {
  const failures = (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  if (scroll > width) failures.push(`${where}: ${scroll} px wide at ${width}`);
  return failures;
}

/** Wait until the editor's image URL field names a new upload of this type, and answer its URL. */
async function uploadedUrl(page: Page, before: string, ext: string): Promise<string> {
  const field = page.locator('#f-image');
  await page.waitForFunction(
    ([prev, e]) => {
      const v = (document.getElementById('f-image') as HTMLInputElement | null)?.value ?? '';
      return v !== prev && new RegExp(`/media/[0-9a-f]{32}/full\\.${e}$`).test(v);
    },
    [before, ext] as const,
  );
  return field.inputValue();
}

/** A file made in the page (for drop and paste events, which carry a DataTransfer). */
async function dispatchWithFile(page: Page, kind: 'drop' | 'paste', bytes: Buffer, name: string): Promise<void> {
  await page.evaluate(
    ([k, b64, n]) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([data], n, { type: 'image/png' }));
      const zone = document.querySelector<HTMLElement>('.media-picker .media-drop')!;
      zone.focus();
      if (k === 'drop') {
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      } else zone.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    [kind, bytes.toString('base64'), name] as const,
  );
}

describe('the media library in the admin app', () => {
  let t: TestServer;
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'admin-media-'));

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { MEDIA_DIR: join(dir, 'media'), SUBMISSIONS: 'anyone' });
    await t.user('editor', 'edna');
    await t.user('contributor', 'cora');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers contributors (no upload_files) the image URL alone, and no Media screen', async () => {
    const page = await signInAdmin(browser, t.origin, 'cora');
    try {
      await page.goto(`${t.origin}/admin/events/new`);
      await page.locator('#f-image').waitFor();
      assert.equal(await page.locator('#event-picture-file').count(), 0);
      assert.equal(await page.getByRole('button', { name: TEXT.en.library }).count(), 0);
      assert.equal(await page.locator('nav#site-nav a', { hasText: 'Media' }).count(), 0);
    } finally {
      await page.context().close();
    }
  });

  for (const kind of ['venues', 'organizers'] as const) {
    it(`gives a ${kind === 'venues' ? 'venue' : 'organizer'} a picture in its editor, uploaded by file picker, kept by a save (390 px and desktop)`, async () => {
      const made = await t.api.post(`/${kind}`, { as: 'admin', json: kind === 'venues' ? { venue: 'Harbour hall' } : { organizer: 'Harbour friends' } });
      assert.equal(made.status, 201, made.text);
      for (const width of [390, 1280]) {
        const page = await signInAdmin(browser, t.origin, 'edna', { width });
        try {
          await page.goto(`${t.origin}/admin/${kind}/${made.body.id}`);
          await page.locator('#f-image').waitFor();
          const before = await page.locator('#f-image').inputValue();
          await page.locator('#event-picture-file').setInputFiles({ name: `${kind}-${width}.png`, mimeType: 'image/png', buffer: await plainImage(800, 500, 'png') });
          const url = await uploadedUrl(page, before, 'png');
          assert.deepEqual(await axe(page, `${kind} editor`, width), []);
          await page.getByRole('button', { name: 'Save', exact: true }).click();
          await page.getByText('Saved.').first().waitFor();
          const stored = (await t.api.get(`/${kind}/${made.body.id}`, { as: 'admin' })).body;
          assert.equal(stored.image.url, url);
        } finally {
          await page.context().close();
        }
      }
    });
  }

  for (const [lang, width] of [
    ['en', 390],
    ['fr', 390],
    ['en', 1280],
    ['fr', 1280],
  ] as const) {
    it(`uploads by file picker, drop and paste, sets alt text, chooses and removes; the Media screen edits and deletes (${lang}, ${width} px)`, async () => {
      const text = TEXT[lang];
      const page = await signInAdmin(browser, t.origin, 'edna', { width, french: lang === 'fr' });
      try {
        await page.goto(`${t.origin}/admin/events/new`);
        await page.locator('#f-image').waitFor();
        const failures: string[] = [];

        // 1. The file picker (a real file input, reached by keyboard through its label).
        await page.locator('#event-picture-file').setInputFiles({ name: `picked-${lang}-${width}.png`, mimeType: 'image/png', buffer: await plainImage(900, 600, 'png') });
        const picked = await uploadedUrl(page, '', 'png');
        await page.locator('.media-picker img.image-preview').waitFor();
        const alt = page.getByLabel(text.alt, { exact: true });
        await alt.fill(`A ${lang} picture`);
        await page.getByRole('button', { name: text.saveAlt }).click();
        await page.getByText(text.altSaved).first().waitFor();
        const item = (await t.api.get(`/api/calendar/admin/v1/media?url=${encodeURIComponent(picked)}`, { as: 'admin' })).body[0];
        assert.equal(item.alt_text, `A ${lang} picture`);
        assert.equal(await page.locator('.media-picker img.image-preview').getAttribute('alt'), `A ${lang} picture`);
        failures.push(...(await axe(page, 'editor', width)));

        // 2. Drag and drop onto the zone.
        await dispatchWithFile(page, 'drop', await plainImage(640, 480, 'png'), 'dropped.png');
        const dropped = await uploadedUrl(page, picked, 'png');
        // 3. Paste into the zone.
        await dispatchWithFile(page, 'paste', await plainImage(500, 500, 'png'), 'pasted.png');
        const pasted = await uploadedUrl(page, dropped, 'png');
        assert.notEqual(pasted, dropped);

        // 4. Choose the first upload again from the library dialog (keyboard: Enter on its button).
        await page.getByRole('button', { name: text.library }).click();
        const dialog = page.getByRole('dialog');
        const choice = dialog.getByRole('button', { name: new RegExp(`picked-${lang}-${width}\\.png`) });
        await choice.focus();
        failures.push(...(await axe(page, 'library dialog', width)));
        await page.keyboard.press('Enter');
        await page.waitForFunction((url) => (document.getElementById('f-image') as HTMLInputElement).value === url, picked);
        // 5. Remove it.
        await page.getByRole('button', { name: text.remove }).click();
        assert.equal(await page.locator('#f-image').inputValue(), '');

        // The Media screen: alt text in place, delete.
        await page.goto(`${t.origin}/admin/media`);
        await page.getByRole('heading', { level: 1, name: text.media }).waitFor();
        await page.locator('table.data img.media-thumb').first().waitFor();
        const droppedRow = page.locator('tr', { has: page.getByText('dropped.png', { exact: true }) }).first();
        await droppedRow.getByRole('textbox').fill('Dropped, then described');
        await droppedRow.getByRole('button', { name: text.saveAlt }).click();
        await page.getByText(text.altSaved).first().waitFor();
        const droppedItem = (await t.api.get(`/api/calendar/admin/v1/media?url=${encodeURIComponent(dropped)}`, { as: 'admin' })).body[0];
        assert.equal(droppedItem.alt_text, 'Dropped, then described');
        failures.push(...(await axe(page, 'media screen', width)));
        const pastedRow = page.locator('tr', { has: page.getByText('pasted.png', { exact: true }) }).first();
        await pastedRow.getByRole('button', { name: new RegExp(`^${text.delete}`) }).click();
        await page.getByRole('dialog').getByRole('button', { name: text.delete, exact: true }).click();
        await page.getByText(text.deleted).first().waitFor();
        assert.equal((await t.api.get(`/api/calendar/admin/v1/media?url=${encodeURIComponent(pasted)}`, { as: 'admin' })).body.length, 0);

        // The public pages that show the picture, and the submission form with its picture field.
        // A day of its own per run: a month cell shows three events.
        const day = `2031-05-${String(10 + (lang === 'fr' ? 1 : 0) + (width > 400 ? 2 : 0)).padStart(2, '0')}`;
        const made = await t.api.post('/events', {
          as: 'admin',
          json: { title: `Pictured ${lang} ${width}`, status: 'publish', start_date: `${day} 19:00`, end_date: `${day} 21:00`, image: picked },
        });
        assert.equal(made.status, 201, made.text);
        for (const [where, path] of [
          ['event page', new URL(made.body.url).pathname],
          ['list page', '/events/list/'],
          ['month page', '/events/month/2031-05/'],
          ['submission form', '/events/submit/'],
        ] as const) {
          await page.goto(`${t.origin}${path}`);
          if (where !== 'submission form') {
            const img = page.locator(`img[src*="${picked.replace(/full\.png$/, '')}"]`).first();
            await img.waitFor();
            await img.evaluate((el: HTMLImageElement) => (el.complete ? undefined : new Promise((resolve) => el.addEventListener('load', resolve, { once: true }))));
            assert.ok(await img.evaluate((el: HTMLImageElement) => el.naturalWidth > 0), `${where}: the image loads`);
          } else await page.locator('#f-picture').waitFor();
          failures.push(...(await axe(page, where, width)));
        }
        assert.deepEqual(failures, []);
      } finally {
        await page.context().close();
      }
    });
  }
});
