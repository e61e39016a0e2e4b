/**
 * The media library (docs/media.md): uploads as raw bodies and multipart forms, the variants and
 * their dimensions, metadata stripped (a GPS location in EXIF, read back with an independent EXIF
 * reader), type and size limits with their errors, the legacy REST `image` object of an uploaded
 * image, the files' long-cache answers, alt text, search, delete and who may do what.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import exifReader from 'exif-reader';
import { forEachStore, keysOf, type TestServer } from '../support/harness.js';
import { authOf, jpegWithGps, mediaUrl, noisePng, plainImage, uploadForm, uploadRaw } from '../support/media.js';

const dir = mkdtempSync(join(tmpdir(), 'media-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

forEachStore(
  'media library',
  (t: TestServer) => {
    const folder = () => t.config.mediaDir;

    it('uploads a raw JPEG: variants in WordPress sizes, EXIF (GPS) stripped, upright', async () => {
      const jpeg = await jpegWithGps(1600, 1200);
      assert.ok(exifReader((await sharp(jpeg).metadata()).exif!).GPSInfo, 'the test image carries a GPS location');
      const res = await uploadRaw(t, jpeg, 'image/jpeg', 'admin', 'poster.jpg');
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.filename, 'poster.jpg');
      assert.equal(res.body.mime_type, 'image/jpeg');
      assert.equal(res.body.width, 1600);
      assert.equal(res.body.height, 1200);
      assert.deepEqual(Object.keys(res.body.sizes), ['medium', 'large', 'thumbnail', 'medium_large']);
      assert.deepEqual(Object.fromEntries(Object.entries(res.body.sizes as Record<string, { width: number; height: number }>).map(([k, v]) => [k, [v.width, v.height]])), {
        medium: [300, 225],
        large: [1024, 768],
        thumbnail: [150, 150],
        medium_large: [768, 576],
      });
      for (const url of [res.body.url, ...Object.values(res.body.sizes as Record<string, { url: string; width: number; height: number }>).map((s) => s.url)]) {
        const file = await fetch(url);
        assert.equal(file.status, 200, url);
        const bytes = Buffer.from(await file.arrayBuffer());
        const meta = await sharp(bytes).metadata();
        assert.equal(meta.format, 'jpeg');
        assert.equal(meta.exif, undefined, `no EXIF left in ${url}`);
        assert.ok(!bytes.includes(Buffer.from('Exif\0\0')), 'no EXIF segment');
        assert.ok(!bytes.includes(Buffer.from('Someone')), 'no copyright text either');
      }
      // Stored on disk under the hash of the bytes, in MEDIA_DIR.
      const hash = /\/media\/([0-9a-f]{32})\/full\.jpg$/.exec(res.body.url)?.[1];
      assert.ok(hash && existsSync(join(folder(), hash)));
      assert.deepEqual(readdirSync(join(folder(), hash!)).sort(), ['full.jpg', 'large.jpg', 'medium.jpg', 'medium_large.jpg', 'thumbnail.jpg']);
    });

    it('turns an image upright by its EXIF orientation', async () => {
      const rotated = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#0a0' } })
        .jpeg()
        .withMetadata({ orientation: 6 })
        .toBuffer();
      const res = await uploadRaw(t, rotated, 'image/jpeg');
      assert.equal(res.status, 201);
      assert.deepEqual([res.body.width, res.body.height], [200, 400]);
      const meta = await sharp(Buffer.from(await (await fetch(res.body.url)).arrayBuffer())).metadata();
      assert.deepEqual([meta.width, meta.height, meta.orientation], [200, 400, undefined]);
    });

    it('takes a multipart upload with alt text; PNG, WebP, GIF and AVIF too; small images have no larger sizes', async () => {
      const png = await uploadForm(t, await plainImage(200, 100, 'png'), 'image/png', 'small.png', 'A blue square');
      assert.equal(png.status, 201, JSON.stringify(png.body));
      assert.equal(png.body.alt_text, 'A blue square');
      assert.equal(png.body.extension, 'png');
      assert.deepEqual(Object.keys(png.body.sizes), ['thumbnail']);
      for (const format of ['webp', 'gif', 'avif'] as const) {
        const res = await uploadRaw(t, await plainImage(320, 200, format), `image/${format}`);
        assert.equal(res.status, 201, `${format}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.mime_type, `image/${format}`);
        assert.deepEqual(Object.keys(res.body.sizes), ['medium', 'thumbnail']);
        const file = await fetch(res.body.sizes.medium.url);
        assert.equal(file.headers.get('content-type'), `image/${format}`);
        assert.equal((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).width, 300);
      }
    });

    it('refuses what is not an accepted image, by its bytes: 415, SVG by name; 400 for nothing or broken bytes', async () => {
      const svg = await uploadRaw(t, Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml');
      assert.equal(svg.status, 415);
      assert.equal(svg.body.code, 'rest_upload_svg_refused');
      assert.equal(svg.body.data.status, 415);
      const text = await uploadForm(t, Buffer.from('just some text, not a picture'), 'image/png', 'lie.png', '');
      assert.equal(text.status, 415);
      assert.equal(text.body.code, 'rest_upload_invalid_type');
      const pdf = await uploadRaw(t, Buffer.from('%PDF-1.7\n'), 'image/jpeg');
      assert.equal(pdf.body.code, 'rest_upload_invalid_type');
      const broken = await uploadRaw(t, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]), 'image/jpeg');
      assert.equal(broken.status, 400);
      assert.equal(broken.body.code, 'rest_upload_unreadable');
      const empty = await fetch(mediaUrl(t), { method: 'POST', headers: { ...authOf(t, 'admin'), 'content-type': 'application/json' }, body: '{}' });
      assert.equal(empty.status, 400);
      assert.equal(((await empty.json()) as { code: string }).code, 'rest_upload_no_data');
    });

    it('refuses files over MEDIA_MAX_BYTES (413) and images over MEDIA_MAX_PIXELS (413), writing nothing', async () => {
      const before = (await (await fetch(mediaUrl(t), { headers: authOf(t, 'admin') })).json()) as unknown[];
      const big = await noisePng(300, 300);
      assert.ok(big.length > 200_000);
      const tooBig = await uploadRaw(t, big, 'image/png');
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.body.code, 'rest_upload_file_too_big');
      assert.match(tooBig.body.message, /at most 200000 bytes/);
      const tooBigForm = await uploadForm(t, big, 'image/png', 'big.png', '');
      assert.equal(tooBigForm.body.code, 'rest_upload_file_too_big');
      const wide = await uploadRaw(t, await plainImage(2100, 2000, 'png'), 'image/png');
      assert.equal(wide.status, 413);
      assert.equal(wide.body.code, 'rest_upload_too_many_pixels');
      const afterList = (await (await fetch(mediaUrl(t), { headers: authOf(t, 'admin') })).json()) as unknown[];
      assert.equal(afterList.length, before.length);
    });

    it('gives an event the uploaded image in the original`s attachment shape, sizes listed', async () => {
      const up = await uploadRaw(t, await jpegWithGps(1600, 1200), 'image/jpeg', 'admin', 'shape.jpg');
      const ev = await t.api.post('/events', {
        as: 'admin',
        json: { title: 'With a picture', status: 'publish', start_date: '2027-03-01 10:00', end_date: '2027-03-01 12:00', image: String(up.body.id) },
      });
      assert.equal(ev.status, 201, JSON.stringify(ev.body));
      const image = (await t.api.get(`/events/${ev.body.id}`)).body.image;
      assert.deepEqual(keysOf(image), ['url', 'id', 'extension', 'width', 'height', 'filesize', 'sizes']);
      assert.equal(image.id, up.body.id);
      assert.equal(image.url, up.body.url);
      assert.equal(image.extension, 'jpg');
      assert.equal(typeof image.filesize, 'number');
      assert.deepEqual(Object.keys(image.sizes), ['medium', 'large', 'thumbnail', 'medium_large']);
      assert.deepEqual(Object.keys(image.sizes.medium), ['width', 'height', 'mime-type', 'filesize', 'url']);
      assert.equal(image.sizes.medium['mime-type'], 'image/jpeg');
      assert.match(image.sizes.medium.url, /\/media\/[0-9a-f]{32}\/medium\.jpg$/);
    });

    it('serves files with a year-long immutable cache, type, ETag and 304; unknown files 404', async () => {
      const up = await uploadRaw(t, await plainImage(500, 400, 'png'), 'image/png');
      const res = await fetch(up.body.sizes.medium.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(res.headers.get('content-type'), 'image/png');
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[0-9a-f]{32}-medium\.png"$/);
      await res.arrayBuffer();
      const again = await fetch(up.body.sizes.medium.url, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal((await fetch(up.body.url.replace('full.png', 'huge.png'))).status, 404);
      assert.equal((await fetch(`${t.origin}/media/..%2F..%2Fetc/passwd`)).status, 404);
      assert.equal((await fetch(`${t.origin}/media/00000000000000000000000000000000/full.png`)).status, 404);
    });

    it('lists, searches, changes alt text and deletes (files too, and the events show no image)', async () => {
      const up = await uploadForm(t, await plainImage(640, 480, 'jpeg'), 'image/jpeg', 'harbour-view.jpg', 'The harbour at dusk');
      const list = await fetch(mediaUrl(t, '?search=harbour'), { headers: authOf(t, 'admin') });
      assert.equal(list.status, 200);
      assert.equal(list.headers.get('x-wp-total'), '1');
      const items = (await list.json()) as Array<{ id: number }>;
      assert.deepEqual(
        items.map((i) => i.id),
        [up.body.id],
      );
      const byUrl = (await (await fetch(mediaUrl(t, `?url=${encodeURIComponent(up.body.url)}`), { headers: authOf(t, 'admin') })).json()) as Array<{ id: number }>;
      assert.deepEqual(
        byUrl.map((i) => i.id),
        [up.body.id],
      );
      const byAlt = (await (await fetch(mediaUrl(t, '?search=DUSK'), { headers: authOf(t, 'admin') })).json()) as unknown[];
      assert.equal(byAlt.length, 1);
      const patched = await t.api.patch(`/api/calendar/admin/v1/media/${up.body.id}`, { as: 'admin', json: { alt_text: '  New words  ' } });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.alt_text, 'New words');
      const ev = await t.api.post('/events', {
        as: 'admin',
        json: { title: 'Soon without', status: 'publish', start_date: '2027-03-02 10:00', end_date: '2027-03-02 12:00', image: String(up.body.id) },
      });
      const etag = (await t.api.get(`/events/${ev.body.id}`)).headers.get('etag');
      const hash = /\/media\/([0-9a-f]{32})\//.exec(up.body.url)![1]!;
      assert.ok(existsSync(join(folder(), hash)));
      const del = await t.api.delete(`/api/calendar/admin/v1/media/${up.body.id}`, { as: 'admin' });
      assert.equal(del.status, 200);
      assert.equal(del.body.deleted, true);
      assert.ok(!existsSync(join(folder(), hash)), 'its files are gone');
      assert.equal((await fetch(up.body.url)).status, 404);
      const after = await t.api.get(`/events/${ev.body.id}`);
      assert.equal(after.body.image, false);
      assert.notEqual(after.headers.get('etag'), etag);
      assert.equal((await t.api.get(`/api/calendar/admin/v1/media/${up.body.id}`, { as: 'admin' })).status, 404);
    });

    it('lets authors upload and edit their own; contributors and anonymous clients may not; editors edit anyone`s', async () => {
      await t.user('author', `author${++n}`);
      await t.user('contributor', `contrib${n}`);
      await t.user('editor', `editor${n}`);
      await t.user('author', `other${n}`);
      const png = await plainImage(200, 200, 'png');
      const anonymous = await uploadRaw(t, png, 'image/png', null);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.code, 'rest_forbidden');
      const contributor = await uploadRaw(t, png, 'image/png', `contrib${n}`);
      assert.equal(contributor.status, 403);
      assert.equal((await fetch(mediaUrl(t), { headers: authOf(t, `contrib${n}`) })).status, 403);
      assert.equal((await fetch(mediaUrl(t))).status, 401);
      const mine = await uploadRaw(t, png, 'image/png', `author${n}`);
      assert.equal(mine.status, 201);
      const own = await t.api.patch(`/api/calendar/admin/v1/media/${mine.body.id}`, { as: `author${n}`, json: { alt_text: 'mine' } });
      assert.equal(own.status, 200);
      const others = await t.api.patch(`/api/calendar/admin/v1/media/${mine.body.id}`, { as: `other${n}`, json: { alt_text: 'not mine' } });
      assert.equal(others.status, 403);
      assert.equal((await t.api.delete(`/api/calendar/admin/v1/media/${mine.body.id}`, { as: `other${n}` })).status, 403);
      assert.equal((await t.api.delete(`/api/calendar/admin/v1/media/${mine.body.id}`, { as: null })).status, 401);
      const editor = await t.api.patch(`/api/calendar/admin/v1/media/${mine.body.id}`, { as: `editor${n}`, json: { alt_text: 'by the editor' } });
      assert.equal(editor.status, 200);
      assert.equal(editor.body.alt_text, 'by the editor');
    });
  },
  { MEDIA_DIR: join(dir, `m-${process.pid}-${Math.random().toString(36).slice(2)}`), MEDIA_MAX_BYTES: '200000', MEDIA_MAX_PIXELS: '4000000' },
);
