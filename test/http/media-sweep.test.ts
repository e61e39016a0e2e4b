/**
 * The media sweep (docs/media.md, "Removing files nothing refers to"): the stored hashes no image
 * of any calendar uses, older than the grace period, are removed; those in use, those written
 * within the grace period (an upload in progress) and anything that is not a hash folder stay; a dry
 * run removes nothing; one failed removal does not stop the others. On local disk (files written
 * straight into MEDIA_DIR, their times set back with utimes), on S3-compatible storage (the fake
 * server of test/support/fake-s3.ts answering ListObjectsV2 a few keys a page), and through
 * `events-calendar media sweep` (its lines, summary and exit codes).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachStore, STORES, type TestServer } from '../support/harness.js';
import { acrossCalendars } from '../../src/store/calendar-scope.js';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { startFakeS3 } from '../support/fake-s3.js';
import { authOf, plainImage } from '../support/media.js';
import { createMediaService, SWEEP_BATCH, type MediaStorage, type SweepStep } from '../../src/domain/media/index.js';

const dir = mkdtempSync(join(tmpdir(), 'media-sweep-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN = '/api/calendar/admin/v1';
const TWO_HOURS = 120;

async function upload(t: TestServer, slug: string | null, bytes: Buffer): Promise<{ id: number; hash: string }> {
  const res = await fetch(`${t.origin}${slug ? `/c/${slug}` : ''}${ADMIN}/media`, { method: 'POST', headers: { 'content-type': 'image/png', ...authOf(t, 'admin') }, body: new Uint8Array(bytes) });
  const body = (await res.json()) as { id: number; url: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return { id: body.id, hash: /\/media\/([0-9a-f]{32})\//.exec(body.url)![1]! };
}

/** Set a hash folder's files, then the folder itself, to `minutes` ago. */
function age(mediaDir: string, hash: string, minutes = TWO_HOURS): void {
  const then = new Date(Date.now() - minutes * 60_000);
  for (const name of readdirSync(join(mediaDir, hash))) utimesSync(join(mediaDir, hash, name), then, then);
  utimesSync(join(mediaDir, hash), then, then);
}

/** Files under a new hash written straight into the media folder, as an upload that stopped before its record leaves them. */
function orphan(mediaDir: string, minutes = TWO_HOURS): string {
  const hash = randomBytes(16).toString('hex');
  mkdirSync(join(mediaDir, hash), { recursive: true });
  writeFileSync(join(mediaDir, hash, 'full.png'), randomBytes(300));
  writeFileSync(join(mediaDir, hash, 'medium.png'), randomBytes(200));
  if (minutes > 0) age(mediaDir, hash, minutes);
  return hash;
}

const stepsOf = async (t: TestServer, options: { dryRun?: boolean; olderThanMinutes?: number; force?: boolean } = {}) => {
  const steps = new Map<string, SweepStep>();
  const result = await t.built.services.media.sweep({ ...options, onProgress: (s) => steps.set(s.hash, s) });
  return { result, steps };
};

forEachStore(
  'media sweep on local disk',
  (t: TestServer) => {
    const mediaDir = () => t.config.mediaDir;
    const onDisk = (hash: string) => existsSync(join(mediaDir(), hash));
    before(async () => {
      // The store before this one left its files in the same folder: each starts from none.
      rmSync(mediaDir(), { recursive: true, force: true });
      for (const slug of ['north', 'south']) await t.built.services.calendars.create({ slug, name: slug });
    });

    it('removes an old orphan folder, keeps an image in use, a fresh orphan and what is not a hash folder; a dry run removes nothing', async () => {
      const used = await upload(t, null, await plainImage(400, 300));
      age(mediaDir(), used.hash);
      const old = orphan(mediaDir());
      // A put that stopped halfway leaves its temporary file: not one of the hash's files.
      writeFileSync(join(mediaDir(), old, 'large.png.0a1b2c3d4e5f.part'), randomBytes(50));
      age(mediaDir(), old);
      const fresh = orphan(mediaDir(), 0);
      // Old files being written again (an upload of the same bytes): the new `.part` makes the folder new.
      const rewritten = orphan(mediaDir());
      writeFileSync(join(mediaDir(), rewritten, 'full.png.abcdefabcdef.part'), randomBytes(10));
      const notHash = join(mediaDir(), 'not-a-hash');
      mkdirSync(notHash, { recursive: true });
      writeFileSync(join(notHash, 'full.png'), 'x');
      writeFileSync(join(mediaDir(), 'README.txt'), 'x');
      for (const path of [notHash, join(mediaDir(), 'README.txt')]) utimesSync(path, new Date(0), new Date(0));

      const dry = await stepsOf(t, { dryRun: true });
      assert.equal(dry.steps.get(old)?.outcome, 'unused');
      assert.deepEqual(dry.steps.get(old)?.files.sort(), ['full.png', 'medium.png']);
      assert.equal(dry.steps.get(old)?.bytes, 500);
      assert.equal(dry.steps.get(used.hash)?.outcome, 'in-use');
      assert.equal(dry.steps.get(fresh)?.outcome, 'recent');
      assert.equal(dry.steps.get(rewritten)?.outcome, 'recent');
      assert.equal(dry.steps.size, 4, [...dry.steps.keys()].join(' '));
      assert.deepEqual(
        { stored: dry.result.stored, recent: dry.result.recent, checked: dry.result.checked, unused: dry.result.unused, unusedBytes: dry.result.unusedBytes, removed: dry.result.removed },
        { stored: 4, recent: 2, checked: 2, unused: 1, unusedBytes: 500, removed: 0 },
      );
      assert.ok(onDisk(old), 'a dry run removes nothing');

      const swept = await stepsOf(t);
      assert.equal(swept.steps.get(old)?.outcome, 'removed');
      assert.equal(swept.result.removed, 1);
      assert.equal(swept.result.bytesFreed, 500);
      assert.equal(swept.result.failed, 0);
      assert.equal(onDisk(old), false, 'the old orphan is removed, its .part file with it');
      for (const hash of [used.hash, fresh, rewritten]) assert.ok(onDisk(hash), hash);
      assert.ok(existsSync(join(notHash, 'full.png')));
      assert.ok(existsSync(join(mediaDir(), 'README.txt')));
      assert.equal((await fetch(`${t.origin}/media/${used.hash}/medium.png`)).status, 200);
      // With no grace the fresh orphan is still kept: written after the database's last write, it
      // could be an upload a copy of the database does not know of.
      assert.equal((await stepsOf(t, { olderThanMinutes: 0 })).steps.get(fresh)?.outcome, 'after-last-write');
      assert.ok(onDisk(fresh));
      // Forced, it goes too; the image in use still stays.
      const now = await stepsOf(t, { olderThanMinutes: 0, force: true });
      assert.equal(now.steps.get(fresh)?.outcome, 'removed');
      assert.equal(onDisk(fresh), false);
      assert.ok(onDisk(used.hash));
    });

    it('keeps the files another calendar still uses after the first calendar’s image of them is deleted', async () => {
      const bytes = await plainImage(320, 240);
      const north = await upload(t, 'north', bytes);
      const south = await upload(t, 'south', bytes);
      assert.equal(north.hash, south.hash);
      const del = await t.api.delete(`${t.origin}/c/north${ADMIN}/media/${north.id}`, { as: 'admin' });
      assert.equal(del.status, 200, del.text);
      age(mediaDir(), north.hash);
      // The sweep runs in no calendar (the default one's): south's image is found across calendars.
      const swept = await stepsOf(t);
      assert.equal(swept.steps.get(north.hash)?.outcome, 'in-use');
      assert.ok(onDisk(north.hash));
      assert.equal((await fetch(`${t.origin}/c/south/media/${south.hash}/full.png`)).status, 200);
    });

    it('looks again just before it removes: an image uploaded meanwhile keeps its files', async () => {
      // An orphan of real bytes: an image's files, put back after its record and files went.
      const bytes = await plainImage(333, 222);
      const first = await upload(t, null, bytes);
      const kept = join(dir, `kept-${first.hash}`);
      cpSync(join(mediaDir(), first.hash), kept, { recursive: true });
      assert.equal((await t.api.delete(`${t.origin}${ADMIN}/media/${first.id}`, { as: 'admin' })).status, 200);
      cpSync(kept, join(mediaDir(), first.hash), { recursive: true });
      age(mediaDir(), first.hash);
      // Between the sweep's first look (unused, old) and its removal, the same bytes are uploaded
      // again: the files written anew, the image recorded.
      const storage = t.built.services.media.storage;
      let again: { id: number; hash: string } | undefined;
      const racing: MediaStorage = {
        ...storage,
        look: async (hash) => {
          if (hash === first.hash && !again) again = await upload(t, null, bytes);
          return storage.look(hash);
        },
      };
      const media = createMediaService(t.config, t.built.store.db, { nowGmt: () => new Date().toISOString() }, racing);
      const steps = new Map<string, SweepStep>();
      // Forced: the library may hold no other image to recognise the folder by.
      await media.sweep({ force: true, onProgress: (s) => steps.set(s.hash, s) });
      assert.ok(again, 'the upload ran between the looks');
      assert.notEqual(steps.get(first.hash)?.outcome, 'removed');
      assert.ok(onDisk(first.hash));
      assert.equal((await fetch(`${t.origin}/media/${first.hash}/full.png`)).status, 200);
    });

    it('goes on past a failed removal and tells the first error with the counts', async () => {
      const [first, second, third] = [orphan(mediaDir()), orphan(mediaDir()), orphan(mediaDir())];
      const storage = t.built.services.media.storage;
      const failing: MediaStorage = {
        ...storage,
        removeAll: async (hash, files) => {
          if (hash === first || hash === third) throw new Error(`disk says no to ${hash}`);
          await storage.removeAll(hash, files);
        },
      };
      const media = createMediaService(t.config, t.built.store.db, { nowGmt: () => new Date().toISOString() }, failing);
      const steps: SweepStep[] = [];
      const result = await media.sweep({ onProgress: (s) => steps.push(s) });
      assert.equal(result.failed, 2);
      assert.equal(result.removed, 1);
      const failed = steps.filter((s) => s.outcome === 'failed');
      assert.deepEqual(failed.map((s) => s.hash).sort(), [first, third].sort());
      // The first failure met (the folder is read in its own order) is the one told.
      assert.equal((result.firstError as Error).message, `disk says no to ${failed[0]!.hash}`);
      assert.equal(onDisk(second), false);
      assert.ok(onDisk(first) && onDisk(third));
      await t.built.services.media.sweep();
      assert.equal(onDisk(first) || onDisk(third), false);
    });

    it('asks the database about the stored hashes SWEEP_BATCH at a time, not one by one', async () => {
      const kept = await upload(t, null, await plainImage(251, 171));
      age(mediaDir(), kept.hash);
      const orphans = Array.from({ length: SWEEP_BATCH + 100 }, () => orphan(mediaDir()));
      let statements = 0;
      const counted = t.built.store.db.withPlugin({
        transformQuery: ({ node }) => {
          statements++;
          return node;
        },
        transformResult: async ({ result }) => result,
      });
      const media = createMediaService(t.config, counted, { nowGmt: () => new Date().toISOString() }, t.built.services.media.storage);
      const steps = new Map<string, SweepStep>();
      const result = await media.sweep({ dryRun: true, onProgress: (s) => steps.set(s.hash, s) });
      assert.ok(result.stored > SWEEP_BATCH, String(result.stored));
      // (and one look at the change log's newest entry, once a hash is found unused)
      assert.ok(statements >= 1 && statements <= Math.ceil(result.stored / SWEEP_BATCH) + 1, `${statements} statements for ${result.stored} hashes`);
      assert.equal(steps.get(kept.hash)?.outcome, 'in-use');
      for (const hash of orphans) assert.equal(steps.get(hash)?.outcome, 'unused', hash);
      // Swept for real (the hashes looked at again one by one before each removal): the orphans go.
      const swept = await t.built.services.media.sweep();
      assert.ok(swept.removed >= orphans.length, JSON.stringify(swept));
      assert.equal(orphans.some(onDisk), false);
      assert.ok(onDisk(kept.hash));
    });
  },
  { MEDIA_DIR: join(dir, `local-${process.pid}`) },
);

forEachStore(
  'media sweep against a copy of the database from before',
  (t: TestServer) => {
    const mediaDir = () => t.config.mediaDir;
    const onDisk = (hash: string) => existsSync(join(mediaDir(), hash));
    const DAY = 24 * 60;
    before(() => rmSync(mediaDir(), { recursive: true, force: true }));

    it('keeps the files written after the database’s last write (the uploads since the copy) unless forced; after a later write they go', async () => {
      // The copy, made three days ago: its newest image and every write it logged are of then.
      const copied = await upload(t, null, await plainImage(300, 200));
      age(mediaDir(), copied.hash, 3 * DAY + 60);
      const then = new Date(Date.now() - 3 * DAY * 60_000).toISOString().slice(0, 19).replace('T', ' ');
      await acrossCalendars(() => t.built.store.db.updateTable('changes').set({ created_gmt: then }).execute());
      // Uploaded since (two hours ago: past the grace period), unknown to the copy; and an old orphan.
      const since = orphan(mediaDir(), TWO_HOURS);
      const stale = orphan(mediaDir(), 4 * DAY);
      const dry = await stepsOf(t, { dryRun: true });
      assert.equal(dry.steps.get(since)?.outcome, 'after-last-write');
      assert.equal(dry.steps.get(stale)?.outcome, 'unused');
      assert.equal(dry.steps.get(copied.hash)?.outcome, 'in-use');
      assert.equal(dry.result.afterLastWrite, 1);
      assert.equal(dry.result.unused, 1);
      const forced = new Map<string, SweepStep>();
      await t.built.services.media.sweep({ dryRun: true, force: true, onProgress: (s) => forced.set(s.hash, s) });
      assert.equal(forced.get(since)?.outcome, 'unused', 'forced, it would go');
      const swept = await stepsOf(t);
      assert.equal(swept.result.removed, 1);
      assert.equal(swept.steps.get(since)?.outcome, 'after-last-write');
      assert.ok(onDisk(since) && onDisk(copied.hash));
      assert.equal(onDisk(stale), false);
      // In the installation itself such files are an upload that stopped: once anything is written
      // later (past the clocks' margin), they go.
      const event = await t.api.post('/events', { as: 'admin', json: { title: 'Written later', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' } });
      assert.equal(event.status, 201, event.text);
      const later = await stepsOf(t);
      assert.equal(later.steps.get(since)?.outcome, 'removed');
      assert.equal(onDisk(since), false);
      assert.ok(onDisk(copied.hash));
    });
  },
  { MEDIA_DIR: join(dir, `copy-${process.pid}`) },
);

const s3 = await startFakeS3('sweep-media', 'test-access', { maxKeys: 2 });
after(() => s3.close());
const s3Env = { MEDIA_S3_ENDPOINT: s3.endpoint, MEDIA_S3_BUCKET: 'sweep-media', MEDIA_S3_ACCESS_KEY: 'test-access', MEDIA_S3_SECRET_KEY: 'test-secret', MEDIA_S3_REGION: 'eu-west-1' };

/** Objects under a new hash put straight into the bucket, `minutes` old. */
function orphanObjects(files: string[], minutes = TWO_HOURS): string {
  const hash = randomBytes(16).toString('hex');
  for (const f of files) s3.objects.set(`sweep-media/${hash}/${f}`, { bytes: randomBytes(100), type: 'image/png', cacheControl: '', lastModified: new Date(Date.now() - minutes * 60_000) });
  return hash;
}
const held = (hash: string) => [...s3.objects.keys()].filter((k) => k.startsWith(`sweep-media/${hash}/`)).length;
function ageObjects(hash: string, minutes = TWO_HOURS): void {
  for (const [key, o] of s3.objects) if (key.startsWith(`sweep-media/${hash}/`)) o.lastModified = new Date(Date.now() - minutes * 60_000);
}

forEachStore(
  'media sweep on S3-compatible storage',
  (t: TestServer) => {
    before(() => s3.objects.clear());

    it('removes an orphan object group and keeps a used one, over several list pages', async () => {
      const used = await upload(t, null, await plainImage(1200, 900));
      ageObjects(used.hash);
      assert.equal(held(used.hash), 5);
      const old = orphanObjects(['full.png', 'large.png', 'medium.png', 'thumbnail.png']);
      const fresh = orphanObjects(['full.png', 'medium.png'], 0);
      // Keys that are not the library's: neither counted nor removed.
      const foreign = ['sweep-media/notes.txt', `sweep-media/${randomBytes(16).toString('hex')}/Not A Variant.txt`];
      for (const key of foreign) s3.objects.set(key, { bytes: Buffer.from('x'), type: 'text/plain', cacheControl: '', lastModified: new Date(0) });
      const sent = s3.requests.length;

      const dry = await stepsOf(t, { dryRun: true });
      assert.equal(dry.steps.get(old)?.outcome, 'unused');
      assert.equal(dry.steps.get(old)?.bytes, 400);
      assert.equal(held(old), 4);
      const lists = s3.requests.slice(sent).filter((r) => r.method === 'GET' && r.path === 'sweep-media');
      assert.ok(lists.length > 3, `${lists.length} pages`);
      assert.ok(lists.slice(1).every((r) => new URLSearchParams(r.query).has('continuation-token')));

      const swept = await stepsOf(t);
      // Each hash is one group though its keys ran over pages of two.
      assert.equal(swept.result.stored, 3);
      assert.deepEqual(swept.steps.get(used.hash)?.files, ['full.png', 'large.png', 'medium.png', 'medium_large.png', 'thumbnail.png']);
      assert.equal(swept.steps.get(used.hash)?.outcome, 'in-use');
      assert.equal(swept.steps.get(old)?.outcome, 'removed');
      assert.equal(swept.steps.get(fresh)?.outcome, 'recent');
      assert.equal(swept.result.bytesFreed, 400);
      assert.equal(held(old), 0);
      assert.equal(held(used.hash), 5);
      assert.equal(held(fresh), 2);
      for (const key of foreign) assert.ok(s3.objects.has(key), key);
      assert.equal((await fetch(`${t.origin}/media/${used.hash}/full.png`)).status, 200);
    });
  },
  s3Env,
);

for (const kind of STORES) {
  describe(`events-calendar media sweep [${kind.name}]`, () => {
    let work: string;
    let url: string;
    let t: TestServer;
    const mediaDir = () => join(work, 'media');
    before(async () => {
      work = mkdtempSync(join(dir, 'cli-'));
      ({ server: t, url } = await cliTarget(kind, work, 'sweep', { MEDIA_DIR: join(work, 'media') }));
    });
    after(() => t?.close());

    it('refuses a bad --older-than, and a sweep of a database with no uploaded image unless told', { timeout: 240_000 }, async () => {
      const env = cliEnv(url, { LOG_LEVEL: 'silent', MEDIA_DIR: mediaDir() });
      for (const bad of ['abc', '1.5', '-5', '']) {
        const r = await cli(['media', 'sweep', '--older-than', bad], env);
        assert.equal(r.code, 2, `${bad}: ${r.stdout} ${r.stderr}`);
        assert.match(r.stderr, /--older-than takes a whole number of minutes/);
      }
      const old = orphan(mediaDir());
      const refused = await cli(['media', 'sweep'], env);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /no calendar of this database has any uploaded image/);
      assert.equal(refused.stdout, '');
      assert.ok(existsSync(join(mediaDir(), old)));
      const allowed = await cli(['media', 'sweep', '--force'], env);
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.match(allowed.stdout, new RegExp(`^removed ${old}  500 bytes \\(2 files\\)$`, 'm'));
      assert.equal(existsSync(join(mediaDir(), old)), false);
      const help = await cli(['media', 'sweep', '--help'], env);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /--older-than <minutes>/);
      assert.match(help.stdout, /--dry-run/);
      assert.match(help.stdout, /safe while servers run/);
    });

    it('prints a line per hash removed (or, with --dry-run, to be) and a summary', { timeout: 240_000 }, async () => {
      const env = cliEnv(url, { LOG_LEVEL: 'silent', MEDIA_DIR: mediaDir() });
      const used = await upload(t, null, await plainImage(400, 300));
      age(mediaDir(), used.hash);
      const left = readdirSync(mediaDir()).filter((name) => name !== used.hash);
      const old = orphan(mediaDir());
      const fresh = orphan(mediaDir(), 0);
      const stored = left.length + 3;

      const dry = await cli(['media', 'sweep', '--dry-run'], env);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, new RegExp(`^would remove ${old}  500 bytes \\(2 files\\)$`, 'm'));
      assert.doesNotMatch(dry.stdout, new RegExp(`${used.hash}|${fresh}`));
      assert.match(dry.stdout, new RegExp(`^${stored} stored, 1 newer than 60 minutes left, ${stored - 1} checked: ${stored - 2} unused \\(.*\\); dry run, nothing removed$`, 'm'));
      assert.ok(existsSync(join(mediaDir(), old)));

      const swept = await cli(['media', 'sweep'], env);
      assert.equal(swept.code, 0, swept.stderr);
      assert.match(swept.stdout, new RegExp(`^removed ${old}  500 bytes \\(2 files\\)$`, 'm'));
      assert.equal(swept.stdout.trim().split('\n').length, stored - 2 + 1, swept.stdout);
      assert.match(swept.stdout, new RegExp(`: ${stored - 2} unused, ${stored - 2} removed \\(.* freed\\)$`, 'm'));
      assert.equal(existsSync(join(mediaDir(), old)), false);
      assert.ok(existsSync(join(mediaDir(), used.hash)));
      assert.ok(existsSync(join(mediaDir(), fresh)));

      // With no grace, the fresh orphan is kept and told: written after the database's last write.
      const kept = await cli(['media', 'sweep', '--older-than', '0'], env);
      assert.equal(kept.code, 0, kept.stderr);
      assert.match(kept.stdout, new RegExp(`^kept ${fresh}  500 bytes \\(2 files\\): written after the database's last write$`, 'm'));
      assert.match(kept.stdout, /^2 stored, 0 newer than 0 minutes left, 2 checked, 1 written after the database's last write kept: 0 unused, 0 removed \(0 bytes freed\)$/m);
      assert.ok(existsSync(join(mediaDir(), fresh)));
      const again = await cli(['media', 'sweep', '--older-than', '0', '--force'], env);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`^removed ${fresh}  500 bytes \\(2 files\\)$`, 'm'));
      assert.match(again.stdout, /^2 stored, 0 newer than 0 minutes left, 2 checked: 1 unused, 1 removed \(500 bytes freed\)$/m);
      assert.ok(existsSync(join(mediaDir(), used.hash)));
    });

    it('refuses to sweep a storage that holds none of the newest images’ files (another instance’s folder) unless forced', { timeout: 240_000 }, async () => {
      // The database has uploads (their files in mediaDir()); the folder named is another one.
      await upload(t, null, await plainImage(320, 200));
      const other = join(work, 'other-media');
      const stranger = orphan(other);
      const env = cliEnv(url, { LOG_LEVEL: 'silent', MEDIA_DIR: other });
      const refused = await cli(['media', 'sweep'], env);
      assert.equal(refused.code, 2, `${refused.stdout}\n${refused.stderr}`);
      assert.match(refused.stderr, /none of the files of this database's \d+ newest uploaded images? is in this media storage/);
      assert.match(refused.stderr, /Nothing removed; check DATABASE_URL and the media settings, or give --force\./);
      assert.ok(existsSync(join(other, stranger)));
      // A dry run is not refused: it removes nothing.
      const dry = await cli(['media', 'sweep', '--dry-run'], env);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, new RegExp(`^would remove ${stranger} `, 'm'));
      const forced = await cli(['media', 'sweep', '--force'], env);
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(forced.stdout, new RegExp(`^removed ${stranger}  500 bytes \\(2 files\\)$`, 'm'));
      assert.equal(existsSync(join(other, stranger)), false);
    });

    it('exits 1 when a removal fails, after removing the others', { timeout: 240_000 }, async () => {
      const env = cliEnv(url, { LOG_LEVEL: 'silent', ...s3Env });
      const refusedHash = orphanObjects(['full.png', 'medium.png']);
      const removedHash = orphanObjects(['full.png']);
      s3.refuse = (method, path) => method === 'DELETE' && path.startsWith(`sweep-media/${refusedHash}/`);
      try {
        // Forced: this database's images have their files on local disk, not in this bucket.
        const r = await cli(['media', 'sweep', '--force'], env);
        assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
        assert.match(r.stdout, new RegExp(`^removed ${removedHash}  100 bytes \\(1 file\\)$`, 'm'));
        assert.match(r.stderr, new RegExp(`^error: could not remove ${refusedHash}: S3 DELETE answered 403`, 'm'));
        assert.match(r.stderr, /^error: 1 removal failed; the first: S3 DELETE answered 403/m);
        assert.match(r.stdout, /, 1 failed$/m);
        assert.doesNotMatch(r.stderr, /\n\s+at /);
        assert.equal(held(removedHash), 0);
        assert.equal(held(refusedHash), 2);
      } finally {
        delete s3.refuse;
      }
    });
  });
}
