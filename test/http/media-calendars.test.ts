/**
 * The media library across calendars (docs/media.md, "Calendars"): files are kept by the hash of
 * their bytes, so the same image uploaded in two calendars is one set of files. Deleting one
 * calendar's image, or a refused upload's cleanup, leaves the files another calendar's image still
 * uses; a calendar serves under its prefix only the files of its own images (404 for another's, 503
 * when it is suspended); deleting a calendar removes its files that no other calendar uses.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachStore, type TestServer } from '../support/harness.js';
import { authOf, plainImage } from '../support/media.js';

const dir = mkdtempSync(join(tmpdir(), 'media-calendars-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN = '/api/calendar/admin/v1';
const NETWORK = '/api/calendar/network/v1';
const at = (t: TestServer, slug: string | null, path: string) => `${t.origin}${slug ? `/c/${slug}` : ''}${path}`;

async function upload(t: TestServer, slug: string | null, bytes: Buffer): Promise<{ status: number; body: any }> {
  const res = await fetch(at(t, slug, `${ADMIN}/media`), { method: 'POST', headers: { 'content-type': 'image/png', ...authOf(t, 'admin') }, body: new Uint8Array(bytes) });
  return { status: res.status, body: await res.json() };
}

const hashOf = (url: string) => /\/media\/([0-9a-f]{32})\//.exec(url)![1]!;
const status = async (url: string) => (await fetch(url)).status;

forEachStore(
  'media library across calendars',
  (t: TestServer) => {
    const onDisk = (hash: string) => existsSync(join(t.config.mediaDir, hash, 'full.png'));
    before(async () => {
      for (const slug of ['north', 'south', 'gone', 'busy']) await t.built.services.calendars.create({ slug, name: slug });
    });

    it('keeps the files another calendar uses when one calendar deletes its image of the same bytes', async () => {
      const bytes = await plainImage(400, 300);
      const home = await upload(t, null, bytes);
      const north = await upload(t, 'north', bytes);
      assert.equal(home.status, 201, JSON.stringify(home.body));
      assert.equal(north.status, 201, JSON.stringify(north.body));
      assert.equal(hashOf(home.body.url), hashOf(north.body.url), 'the same bytes, the same files');
      assert.ok(north.body.url.startsWith(`${t.origin}/c/north/media/`), north.body.url);
      const del = await t.api.delete(`${ADMIN}/media/${home.body.id}`, { as: 'admin' });
      assert.equal(del.status, 200, del.text);
      assert.equal(await status(north.body.url), 200);
      assert.equal(await status(north.body.sizes.medium.url), 200);
      // The last image of them going takes the files with it.
      assert.equal((await t.api.delete(at(t, 'north', `${ADMIN}/media/${north.body.id}`), { as: 'admin' })).status, 200);
      assert.equal(onDisk(hashOf(north.body.url)), false);
    });

    it('keeps the files another calendar uses when an upload of the same bytes is refused by the quota meanwhile', async () => {
      // Uploads at once each pass the quota's first look, store their files, and all but one are
      // refused in the write: each refused one cleans up its files unless an image uses them.
      for (let round = 0; round < 4; round++) {
        const images = await Promise.all(Array.from({ length: 4 }, () => plainImage(200, 200)));
        const shared = images[0]!;
        const home = await upload(t, null, shared);
        assert.equal(home.status, 201, JSON.stringify(home.body));
        // Room for one upload of these (plain images of one size: their kept files are about as large), not two.
        await t.built.services.calendars.update('busy', { quotas: { media_bytes: Math.floor(home.body.filesize * 1.5) } });
        const answers = await Promise.all(images.map((b) => upload(t, 'busy', b)));
        assert.equal(answers.filter((a) => a.status === 201).length <= 1, true, answers.map((a) => a.status).join(','));
        assert.equal(await status(home.body.url), 200, `round ${round}: ${answers.map((a) => a.status).join(',')}`);
        assert.ok(onDisk(hashOf(home.body.url)));
        // The next round starts with an empty library.
        for (const a of answers.filter((x) => x.status === 201)) await t.api.delete(at(t, 'busy', `${ADMIN}/media/${a.body.id}`), { as: 'admin' });
      }
    });

    it('puts back an upload’s files that a removal of the same bytes took after they were written, before its record (another calendar’s refused upload, a deleted image)', async () => {
      // The removal that looked before this upload's record and removed after its files were
      // written, made to happen in that instant: once the upload's first file is stored, every
      // file of its hash goes (as a refused upload's cleanup of the same bytes in another calendar
      // did, in the race two instances ran into).
      const storage = t.built.services.media.storage;
      const put = storage.put.bind(storage);
      const bytes = await plainImage(320, 240);
      let armed = true;
      storage.put = async (key, data, type) => {
        await put(key, data, type);
        if (!armed) return;
        armed = false;
        const hash = key.slice(0, 32);
        const there = await storage.look(hash);
        await storage.removeAll(hash, there?.files ?? []);
      };
      try {
        const made = await upload(t, 'south', bytes);
        assert.equal(made.status, 201, JSON.stringify(made.body));
        assert.equal(armed, false, 'the removal ran');
        assert.equal(await status(made.body.url), 200, 'its full-size file is there');
        for (const size of Object.values(made.body.sizes as Record<string, { url: string }>)) assert.equal(await status(size.url), 200, size.url);
        assert.equal((await t.api.delete(at(t, 'south', `${ADMIN}/media/${made.body.id}`), { as: 'admin' })).status, 200);
      } finally {
        storage.put = put;
      }
    });

    it('a removal that looks while an upload of the same bytes records its image leaves the files (they take turns on the hash)', async () => {
      // A deletion in one calendar and an upload of the same bytes in another, at once, many times:
      // whatever the order, the image that remains has its files.
      for (let round = 0; round < 6; round++) {
        const bytes = await plainImage(180 + round, 120);
        const first = await upload(t, 'north', bytes);
        assert.equal(first.status, 201, JSON.stringify(first.body));
        const [deleted, second] = await Promise.all([t.api.delete(at(t, 'north', `${ADMIN}/media/${first.body.id}`), { as: 'admin', query: { force: 'true' } }), upload(t, 'south', bytes)]);
        assert.equal(deleted.status, 200, deleted.text);
        assert.equal(second.status, 201, JSON.stringify(second.body));
        assert.equal(await status(second.body.url), 200, `round ${round}`);
        assert.equal((await t.api.delete(at(t, 'south', `${ADMIN}/media/${second.body.id}`), { as: 'admin' })).status, 200);
      }
    });

    it('serves a file under a calendar’s prefix only when that calendar has an image with it', async () => {
      const north = await upload(t, 'north', await plainImage(300, 200));
      assert.equal(north.status, 201, JSON.stringify(north.body));
      const path = new URL(north.body.url).pathname.replace(/^\/c\/north/, '');
      assert.equal(await status(`${t.origin}/c/north${path}`), 200);
      const other = await fetch(`${t.origin}/c/south${path}`);
      assert.equal(other.status, 404);
      assert.equal(other.headers.get('cache-control'), 'no-store');
      assert.equal(await status(`${t.origin}/c/south${path.replace('full.png', 'medium.png')}`), 404);
      // The root is the default calendar's: its own images only.
      assert.equal(await status(`${t.origin}${path}`), 404);
      const home = await upload(t, null, await plainImage(300, 200));
      assert.equal(await status(home.body.url), 200);
      assert.equal(await status(`${t.origin}/c/north${new URL(home.body.url).pathname}`), 404);
    });

    it('answers a suspended calendar’s files as its other paths (503), and nowhere else', async () => {
      await t.built.services.calendars.create({ slug: 'paused', name: 'Paused' });
      const paused = await upload(t, 'paused', await plainImage(250, 200));
      assert.equal(paused.status, 201, JSON.stringify(paused.body));
      assert.equal(await status(paused.body.url), 200);
      await t.built.services.calendars.update('paused', { status: 'suspended' });
      for (const url of [paused.body.url, paused.body.sizes.thumbnail.url]) {
        const res = await fetch(url);
        assert.equal(res.status, 503, url);
        assert.equal(((await res.json()) as { code: string }).code, 'calendar_suspended');
        // Nor are they read under another calendar's prefix, the root's included.
        const path = new URL(url).pathname.replace(/^\/c\/paused/, '');
        assert.equal(await status(`${t.origin}${path}`), 404, path);
        assert.equal(await status(`${t.origin}/c/north${path}`), 404, path);
      }
    });

    it('removes a deleted calendar’s files that no other calendar uses, and keeps those another uses', async () => {
      const own = await upload(t, 'gone', await plainImage(320, 240));
      const sharedBytes = await plainImage(320, 240);
      const shared = await upload(t, 'gone', sharedBytes);
      const home = await upload(t, null, sharedBytes);
      for (const r of [own, shared, home]) assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.ok(onDisk(hashOf(own.body.url)));
      const id = (await t.api.get(`${NETWORK}/calendars`, { as: 'admin', query: { search: 'gone' } })).body.find((c: { slug: string }) => c.slug === 'gone').id;
      const del = await t.api.delete(`${NETWORK}/calendars/${id}`, { as: 'admin', query: { force: 'true' } });
      assert.equal(del.status, 200, del.text);
      assert.equal(onDisk(hashOf(own.body.url)), false, 'its own files are removed');
      assert.equal(await status(own.body.url), 404);
      assert.equal(await status(`${t.origin}${new URL(own.body.url).pathname.replace(/^\/c\/gone/, '')}`), 404);
      assert.ok(onDisk(hashOf(home.body.url)), 'the files another calendar uses stay');
      assert.equal(await status(home.body.url), 200);
      assert.equal(await status(home.body.sizes.thumbnail.url), 200);
    });
  },
  { MEDIA_DIR: join(dir, `m-${process.pid}-${Math.random().toString(36).slice(2)}`) },
);
