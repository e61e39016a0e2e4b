/**
 * The public submission form's picture (docs/media.md, docs/submissions.md): one optional image
 * sent with the form (multipart), checked as uploads are, kept in the media library and attached
 * to the pending proposal so moderators see it; the event shows it once approved. A refused
 * picture is a field error and leaves nothing behind; a refused proposal takes its picture away.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachStore, type TestServer } from '../support/harness.js';
import { MOD, OPEN, formFields, page } from '../support/submissions.js';
import { jpegWithGps, mediaUrl, authOf } from '../support/media.js';

const dir = mkdtempSync(join(tmpdir(), 'media-submissions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The form as a browser sends it with a file chosen: multipart/form-data. */
async function sendWithPicture(t: TestServer, fields: Record<string, string | string[]>, picture?: { bytes: Buffer; type: string; name: string }, headers: Record<string, string> = {}) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  if (picture) body.append('picture', new Blob([new Uint8Array(picture.bytes)], { type: picture.type }), picture.name);
  const res = await fetch(`${t.origin}/events/submit/`, { method: 'POST', redirect: 'manual', headers, body });
  return { status: res.status, text: await res.text(), res };
}

const libraryCount = async (t: TestServer) => Number((await fetch(mediaUrl(t), { headers: authOf(t, 'admin') })).headers.get('x-wp-total'));

forEachStore(
  'a picture with a public submission',
  (t: TestServer) => {
    it('offers a file input (images only) and its alt text, in a multipart form, in English and French', async () => {
      const en = await page(t, '/events/submit/');
      assert.match(en.text, /<form method="post" action="\/events\/submit\/" id="submission-form" novalidate enctype="multipart\/form-data"/);
      assert.match(
        en.text,
        /<label for="f-picture">Or a picture from your device<\/label><input type="file" id="f-picture" name="picture" accept="image\/jpeg,image\/png,image\/gif,image\/webp,image\/avif" aria-describedby="f-picture-help">/,
      );
      assert.match(en.text, /<label for="f-picture-alt">/);
      const fr = await page(t, '/events/submit/', { 'accept-language': 'fr' });
      assert.match(fr.text, /Ou une image de votre appareil/);
    });

    it('keeps the picture with the pending proposal, unpublished, and shows it once approved', async () => {
      const concerts = await t.api.post('/categories', { as: 'admin', json: { name: 'Concerts' } });
      const outdoors = await t.api.post('/categories', { as: 'admin', json: { name: 'Outdoors' } });
      const before = await libraryCount(t);
      const res = await sendWithPicture(
        t,
        await formFields(t, { title: 'Pictured proposal', picture_alt: 'Musicians on the quay', 'categories[]': [String(concerts.body.id), String(outdoors.body.id)] }),
        {
          bytes: await jpegWithGps(1200, 800),
          type: 'image/jpeg',
          name: 'quay.jpg',
        },
      );
      assert.equal(res.status, 303, res.text.slice(0, 2000));
      assert.equal(await libraryCount(t), before + 1);
      const queue = await t.api.get(`${MOD}/submissions`, { as: 'admin' });
      const mine = (queue.body as any[]).find((s) => s.event?.title === 'Pictured proposal' || s.title === 'Pictured proposal');
      assert.ok(mine, JSON.stringify(queue.body).slice(0, 1500));
      const shownToModerators = JSON.stringify(mine);
      const url = /"(http:[^"]+\/media\/[0-9a-f]{32}\/full\.jpg)"/.exec(shownToModerators)?.[1];
      assert.ok(url, `the moderators see the picture: ${shownToModerators.slice(0, 1500)}`);
      // No event shows it yet: the proposal is not an event until approved.
      const anonymous = await t.api.get('/events', { query: { start_date: '2031-07-01', end_date: '2031-07-31' } });
      assert.ok(!JSON.stringify(anonymous.body).includes(url!));
      const approved = await t.api.post(`${MOD}/submissions/${mine.id}/approve`, { as: 'admin' });
      assert.equal(approved.status, 200, approved.text);
      const published = (await t.api.get(`/events/${approved.body.event_id}`)).body;
      assert.equal(published.status, 'publish');
      assert.equal(published.image.url, url);
      assert.deepEqual(Object.keys(published.image.sizes), ['medium', 'large', 'thumbnail', 'medium_large']);
      assert.deepEqual(published.categories.map((c: { name: string }) => c.name).sort(), ['Concerts', 'Outdoors']);
      const eventPage = await page(t, new URL(published.url).pathname);
      assert.match(eventPage.text, /<img [^>]*alt="Musicians on the quay"/);
    });

    it('refuses a picture that is not an accepted image as a field error, leaving nothing behind', async () => {
      const before = await libraryCount(t);
      const res = await sendWithPicture(t, await formFields(t, { title: 'Bad picture' }), { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), type: 'image/svg+xml', name: 'x.svg' });
      assert.equal(res.status, 415);
      assert.match(res.text, /<p class="error" id="f-picture-error">The picture must be a JPEG, PNG, GIF, WebP or AVIF image\.<\/p>/);
      assert.match(res.text, /<a href="#f-picture">/);
      const fr = await sendWithPicture(t, await formFields(t, { title: 'Mauvaise image' }), { bytes: Buffer.from('not an image'), type: 'image/png', name: 'x.png' }, { 'accept-language': 'fr' });
      assert.match(fr.text, /L’image doit être au format JPEG, PNG, GIF, WebP ou AVIF\./);
      assert.equal(await libraryCount(t), before);
    });

    it('takes the picture away again when the proposal itself is refused', async () => {
      const before = await libraryCount(t);
      const res = await sendWithPicture(t, await formFields(t, { title: '' }), { bytes: await jpegWithGps(400, 300), type: 'image/jpeg', name: 'orphan.jpg' });
      assert.equal(res.status, 400);
      assert.equal(await libraryCount(t), before);
    });
  },
  { ...OPEN, MEDIA_DIR: join(dir, 'media') },
);
