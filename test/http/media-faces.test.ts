/**
 * Uploaded images on the public faces (docs/media.md): the event, list and month pages (`srcset`,
 * `sizes`, `width`, `height`, the alt text, lazy loading), the iCalendar feeds and CalDAV (`ATTACH;FMTTYPE`),
 * the FullCalendar source (the URL, alt text, dimensions, `srcset`), the federation Event object
 * (`image` and `attachment` with `mediaType` and the alt text as `name`), and the REST answer
 * unchanged in shape (no alt text there: the original has none).
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachStore, keysOf, type TestServer } from '../support/harness.js';
import { jpegWithGps, uploadForm } from '../support/media.js';

const dir = mkdtempSync(join(tmpdir(), 'media-faces-'));
after(() => rmSync(dir, { recursive: true, force: true }));

forEachStore(
  'uploaded images on the public faces',
  (t: TestServer) => {
    let media: any;
    let event: any;
    const page = async (path: string) => {
      const res = await fetch(t.origin + path);
      return { status: res.status, text: await res.text() };
    };
    const imgOf = (text: string) => [...text.matchAll(/<img [^>]*>/g)].map((m) => m[0]).find((tag) => tag.includes(media.url.replace('full.jpg', ''))) ?? '';

    it('uploads an image with alt text and shows it on a published event', async () => {
      media = (await uploadForm(t, await jpegWithGps(1600, 1200), 'image/jpeg', 'stage.jpg', 'The stage lit in blue & gold')).body;
      assert.ok(media.id);
      const res = await t.api.post('/events', { as: 'admin', json: { title: 'Pictured', status: 'publish', start_date: '2031-05-14 19:00', end_date: '2031-05-14 21:00', image: String(media.id) } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      event = res.body;
      assert.deepEqual(keysOf(event.image), ['url', 'id', 'extension', 'width', 'height', 'filesize', 'sizes']);
    });

    it('shows it on the event page with srcset, sizes, width, height, alt and lazy loading', async () => {
      const { status, text } = await page(new URL(event.url).pathname);
      assert.equal(status, 200);
      const img = imgOf(text);
      assert.ok(img, 'the image is on the page');
      assert.match(img, / src="[^"]+\/full\.jpg"/);
      assert.match(img, new RegExp(`srcset="${media.sizes.medium.url} 300w, ${media.sizes.large.url} 1024w, ${media.sizes.medium_large.url} 768w, ${media.url} 1600w"`));
      assert.match(img, / sizes="[^"]+"/);
      assert.match(img, / width="1600" height="1200"/);
      assert.match(img, / alt="The stage lit in blue &amp; gold"/);
      assert.match(img, / loading="lazy"/);
      assert.match(text, new RegExp(`<meta property="og:image" content="${media.url}">`));
    });

    it('shows it on the list and month pages', async () => {
      const list = await page('/events/list/');
      const card = imgOf(list.text);
      assert.ok(card, 'the list shows the image');
      assert.match(card, / src="[^"]+\/medium\.jpg" srcset="[^"]+" sizes="[^"]+" width="300" height="225" alt="The stage lit in blue &amp; gold" loading="lazy"/);
      const month = await page('/events/month/2031-05/');
      const thumb = imgOf(month.text);
      assert.match(thumb, / src="[^"]+\/thumbnail\.jpg" width="150" height="150" alt="" loading="lazy"/);
    });

    it('attaches it in the iCalendar feeds and CalDAV with its type', async () => {
      for (const path of [`${new URL(event.url).pathname}ical/`, '/events/month/2031-05/?ical=1', '/dav/public/calendars/events/']) {
        const feed = await page(path);
        assert.equal(feed.status, 200, path);
        const unfolded = feed.text.replace(/\r\n /g, '');
        assert.ok(unfolded.includes(`\r\nATTACH;FMTTYPE=image/jpeg:${media.url}\r\n`), `${path}: ${unfolded.slice(0, 3000)}`);
      }
    });

    it('gives the FullCalendar source the URL, alt text, size and srcset', async () => {
      const res = await fetch(`${t.origin}/api/calendar/embed/v1/fullcalendar?start=2031-05-01&end=2031-06-01`);
      const [e] = (await res.json()) as any[];
      assert.equal(e.extendedProps.image, media.url);
      assert.equal(e.extendedProps.imageAlt, 'The stage lit in blue & gold');
      assert.equal(e.extendedProps.imageWidth, 1600);
      assert.equal(e.extendedProps.imageHeight, 1200);
      assert.match(e.extendedProps.imageSrcset, /medium\.jpg 300w/);
    });

    it('gives the federation Event object an Image and a Document attachment with type and alt text', async () => {
      const res = await fetch(`${t.origin}/federation/events/${event.id}`, { headers: { accept: 'application/activity+json' } });
      assert.equal(res.status, 200);
      const object = (await res.json()) as any;
      assert.deepEqual(object.image, { type: 'Image', url: media.url, mediaType: 'image/jpeg', name: 'The stage lit in blue & gold', width: 1600, height: 1200 });
      assert.deepEqual(object.attachment, [{ type: 'Document', url: media.url, mediaType: 'image/jpeg', name: 'The stage lit in blue & gold' }]);
    });

    it('follows a change of alt text on the pages and in federation (an Update)', async () => {
      const patched = await t.api.patch(`/api/calendar/admin/v1/media/${media.id}`, { as: 'admin', json: { alt_text: 'Now in red' } });
      assert.equal(patched.status, 200);
      assert.match(imgOf((await page(new URL(event.url).pathname)).text), / alt="Now in red"/);
      // Federation: the event's object changed (the Image's name), so the outbox sends an Update.
      let updated = false;
      for (let i = 0; i < 200 && !updated; i++) {
        const outbox = (await (await fetch(`${t.origin}/federation/actors/events/outbox?page=1`, { headers: { accept: 'application/activity+json' } })).json()) as { orderedItems?: any[] };
        updated = (outbox.orderedItems ?? []).some((a) => a.type === 'Update' && a.object?.image?.name === 'Now in red');
        if (!updated) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(updated, 'an Update with the new alt text is in the outbox');
    });
  },
  { MEDIA_DIR: join(dir, 'media'), FEDERATION: 'true', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true' },
);
