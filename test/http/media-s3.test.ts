/**
 * The media library on S3-compatible storage (MEDIA_S3_*), against a loopback fake S3 server
 * (test/support/fake-s3.ts: signed path-style PUT, GET and DELETE): the variants are PUT with their
 * type and a year-long cache, /media/ passes them on from the bucket, deletion removes them (a
 * calendar's deletion too, but for the objects another calendar uses); with
 * MEDIA_S3_PUBLIC_URL the images' URLs point at the bucket's public address instead.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { forEachStore, type TestServer } from '../support/harness.js';
import { loadConfig } from '../../src/config.js';
import { startFakeS3 } from '../support/fake-s3.js';
import { authOf, jpegWithGps, plainImage, uploadRaw } from '../support/media.js';

const s3 = await startFakeS3('calendar-media', 'test-access');
after(() => s3.close());
const env = { MEDIA_S3_ENDPOINT: s3.endpoint, MEDIA_S3_BUCKET: 'calendar-media', MEDIA_S3_ACCESS_KEY: 'test-access', MEDIA_S3_SECRET_KEY: 'test-secret', MEDIA_S3_REGION: 'eu-west-1' };

it('refuses a bucket without its endpoint and keys, and endpoints that are not http(s) URLs', () => {
  assert.throws(() => loadConfig({ MEDIA_S3_BUCKET: 'media' }), /MEDIA_S3_BUCKET needs MEDIA_S3_ENDPOINT, MEDIA_S3_ACCESS_KEY and MEDIA_S3_SECRET_KEY/);
  assert.throws(() => loadConfig({ ...env, MEDIA_S3_ENDPOINT: 'ftp://x' }), /MEDIA_S3_ENDPOINT must be an http\(s\) URL/);
  assert.equal(loadConfig({ ...env, MEDIA_S3_PUBLIC_URL: 'https://cdn.example.org/m/' }).mediaS3PublicUrl, 'https://cdn.example.org/m');
});

forEachStore(
  'media library on S3-compatible storage',
  (t: TestServer) => {
    it('puts the variants in the bucket, serves them through /media/ and deletes them', async () => {
      const up = await uploadRaw(t, await jpegWithGps(1200, 900), 'image/jpeg', 'admin', 'bucket.jpg');
      assert.equal(up.status, 201, JSON.stringify(up.body));
      const hash = /\/media\/([0-9a-f]{32})\/full\.jpg$/.exec(up.body.url)?.[1];
      assert.ok(hash, up.body.url);
      assert.ok(up.body.url.startsWith(`${t.origin}/media/`));
      const keys = [...s3.objects.keys()].filter((k) => k.includes(hash!)).sort();
      assert.deepEqual(
        keys,
        ['full.jpg', 'large.jpg', 'medium.jpg', 'medium_large.jpg', 'thumbnail.jpg'].map((f) => `calendar-media/${hash}/${f}`),
      );
      const medium = s3.objects.get(`calendar-media/${hash}/medium.jpg`)!;
      assert.equal(medium.type, 'image/jpeg');
      assert.equal(medium.cacheControl, 'public, max-age=31536000, immutable');
      assert.equal((await sharp(medium.bytes).metadata()).exif, undefined);
      const served = await fetch(up.body.sizes.medium.url);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), medium.bytes);
      const del = await t.api.delete(`/api/calendar/admin/v1/media/${up.body.id}`, { as: 'admin' });
      assert.equal(del.status, 200);
      assert.deepEqual(
        [...s3.objects.keys()].filter((k) => k.includes(hash!)),
        [],
      );
      assert.equal((await fetch(up.body.sizes.medium.url)).status, 404);
    });

    it('removes a deleted calendar’s objects from the bucket, keeping those another calendar uses', async () => {
      const calendar = await t.built.services.calendars.create({ slug: 'bucketed', name: 'Bucketed' });
      const send = async (slug: string | null, bytes: Buffer) => {
        const res = await fetch(`${t.origin}${slug ? `/c/${slug}` : ''}/api/calendar/admin/v1/media`, {
          method: 'POST',
          headers: { 'content-type': 'image/png', ...authOf(t, 'admin') },
          body: new Uint8Array(bytes),
        });
        assert.equal(res.status, 201);
        return /\/media\/([0-9a-f]{32})\//.exec(((await res.json()) as { url: string }).url)![1]!;
      };
      const shared = await plainImage(320, 240);
      const own = await send('bucketed', await plainImage(320, 240));
      await send('bucketed', shared);
      const home = await send(null, shared);
      const held = (hash: string) => [...s3.objects.keys()].filter((k) => k.includes(hash)).length;
      assert.ok(held(own) > 0);
      const del = await t.api.delete(`/api/calendar/network/v1/calendars/${calendar.id}`, { as: 'admin', query: { force: 'true' } });
      assert.equal(del.status, 200, del.text);
      assert.equal(held(own), 0, 'its own objects are deleted');
      assert.ok(held(home) > 0, 'the objects another calendar uses stay');
    });
  },
  env,
);

forEachStore(
  'media library on S3-compatible storage with a public URL',
  (t: TestServer) => {
    it('gives the images URLs at MEDIA_S3_PUBLIC_URL', async () => {
      const up = await uploadRaw(t, await plainImage(400, 300, 'webp'), 'image/webp');
      assert.equal(up.status, 201, JSON.stringify(up.body));
      assert.match(up.body.url, /^https:\/\/cdn\.example\.org\/media\/[0-9a-f]{32}\/full\.webp$/);
      assert.match(up.body.sizes.medium.url, /^https:\/\/cdn\.example\.org\/media\/[0-9a-f]{32}\/medium\.webp$/);
    });
  },
  { ...env, MEDIA_S3_PUBLIC_URL: 'https://cdn.example.org/media/' },
);
