/**
 * The media library (docs/media.md): images uploaded by authors and up (`upload_files`), checked
 * by their bytes (JPEG, PNG, GIF, WebP, AVIF; SVG refused) and size (MEDIA_MAX_BYTES), made
 * upright and stripped of their metadata, resized into WordPress' sizes (process.ts) and kept in a
 * storage (a local folder or an S3-compatible bucket: storage.ts, s3.ts) under content-addressed
 * keys. Each upload is an `images` row, so the REST `image` field, ETags, sync and webhooks treat
 * it as any featured image; its alt text is kept with it. `sweep` removes the stored files no
 * image of any calendar uses (the `media sweep` command).
 *
 * @example
 *   const media = createMediaService(config, store.db, clock);
 *   const row = await media.upload({ bytes, filename: 'poster.jpg', alt: 'The poster' }, viewer);
 *   toMediaJson(row) // { id, url, alt_text, … , sizes: { medium: {…}, … } }
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import { writeTransaction } from '../../store/changes.js';
import { lastWriteGmt } from '../../store/change-log.js';
import { lockForWrite } from '../../store/locks.js';
import * as imagesStore from '../../store/images.js';
import type { Executor, ImageRow } from '../../store/schema.js';
import { apiError } from '../errors.js';
import { isQuotaExceeded, type CalendarQuotas } from '../quotas.js';
import type { Clock } from '../linked-posts/types.js';
import { can, type Viewer } from '../permissions.js';
import { storedSizes, toImageJson, type ImageSizeJson, type StoredSize } from '../representations/image.js';
import { ImageProblem, processImage } from './process.js';
import { createS3Storage } from './s3.js';
import { sniffImage, FORMATS, type SniffedImage } from './sniff.js';
import { createLocalStorage, KEY_PATTERN, type MediaStorage, type StoredHash } from './storage.js';

export { IMMUTABLE } from './s3.js';
export type { MediaStorage, StoredHash } from './storage.js';

/** The path the service answers media files under (outside the REST root). */
export const MEDIA_PATH = '/media';

/** The longest alt text kept (characters). */
export const MAX_ALT = 1000;

export interface UploadInput {
  bytes: Buffer;
  filename?: string;
  alt?: string;
}

/** A media item as the admin API answers it. */
export interface MediaJson {
  id: number;
  url: string;
  alt_text: string;
  filename: string;
  mime_type: string;
  extension: string;
  width: number | false;
  height: number | false;
  filesize: number;
  author: number;
  date_gmt: string;
  sizes: Record<string, ImageSizeJson>;
}

/** The grace period of a sweep by default (minutes): an upload stores its files before its record. */
export const SWEEP_GRACE_MINUTES = 60;

/** How many of the newest images a sweep looks for in the storage before it removes anything. */
export const SWEEP_SAMPLE = 20;

/** A file written up to this long before the database's last write still counts, to a sweep, as written after it (the storage's clock and the database's differ). */
export const SWEEP_CLOCK_MARGIN_MS = 10 * 60_000;

/** How many of the storage's hashes a sweep asks the database about in one statement. */
export const SWEEP_BATCH = 500;

export interface SweepOptions {
  /** Leave the hashes with a file written in the last this many minutes (default SWEEP_GRACE_MINUTES). */
  olderThanMinutes?: number;
  /** Find and tell, remove nothing. */
  dryRun?: boolean;
  /**
   * Remove even when the database and the storage do not look like each other's. Without it a
   * sweep that would remove files is refused (MediaSweepRefused) when no calendar has any uploaded
   * image, or when none of the newest images' files (up to SWEEP_SAMPLE) is in the storage: a
   * new database opened by mistake, another installation's, or another instance's media folder
   * makes every file look unused.
   */
  force?: boolean;
  /** Told of each hash stored as the sweep goes. */
  onProgress?: (step: SweepStep) => void;
}

/**
 * A hash the sweep went by: `recent` (written within the grace period, left), `in-use` (an image
 * of some calendar uses it), `after-last-write` (used by none, but written after the database's
 * last write: left, see `sweep`), `unused` (a dry run's find), `removed`, or `failed` (with its
 * error).
 */
export interface SweepStep extends StoredHash {
  outcome: 'recent' | 'in-use' | 'after-last-write' | 'unused' | 'removed' | 'failed';
  error?: unknown;
}

export interface SweepResult {
  /** hashes in the storage */
  stored: number;
  /** of them, written within the grace period: left without a look */
  recent: number;
  /** the older ones, looked up in the database */
  checked: number;
  /** of them, used by no image but written after the database's last write: left */
  afterLastWrite: number;
  /** of them, used by no image of any calendar (removed, or with a dry run to be) */
  unused: number;
  /** their size */
  unusedBytes: number;
  removed: number;
  bytesFreed: number;
  /** removals that failed; the others were still made */
  failed: number;
  /** the first failure's error, when there was one */
  firstError?: unknown;
}

/** A sweep that would remove files although the database and the storage do not look like each other's (SweepOptions.force). */
export class MediaSweepRefused extends Error {}

export interface MediaService {
  readonly storage: MediaStorage;
  /** Check, process, store and record an upload; throws the API's upload errors. */
  upload(input: UploadInput, viewer: Viewer, on?: Executor): Promise<ImageRow>;
  /** The library, newest first. */
  list(query: { search?: string; url?: string; page: number; perPage: number }): Promise<{ rows: ImageRow[]; total: number }>;
  /** An uploaded image (not a URL one) by id. */
  get(id: number): Promise<ImageRow | undefined>;
  /** Whether the viewer may change or delete this item: its uploader, or editors and up. */
  canEdit(viewer: Viewer, row: ImageRow): boolean;
  setAlt(row: ImageRow, alt: string): Promise<ImageRow>;
  /** Delete the record and, when no other record shares them, its files; posts showing it show none. */
  remove(row: ImageRow): Promise<void>;
  /** A stored file by `<hash>/<file>`, with its content type; undefined when there is none. */
  read(key: string): Promise<{ bytes: Buffer; mime: string } | undefined>;
  /** Whether the calendar of the work at hand has an uploaded image with the files under this hash. */
  heldHere(hash: string): Promise<boolean>;
  /**
   * Read before a calendar is deleted: what its uploads' files are. The function it answers,
   * called once the calendar's rows are gone, removes those files that no other calendar uses.
   */
  calendarFilesRemoval(calendarId: number): Promise<() => Promise<void>>;
  /** Alt texts of these images (for the pages, feeds and federation, which read the REST shape without it). */
  alts(ids: number[]): Promise<Map<number, string>>;
  /**
   * Remove the stored files no image of any calendar uses (an upload that stopped between its files
   * and its record, a removal whose storage call failed, calendars deleted by a version that left
   * their files), but those written within the grace period. One failed removal does not stop the
   * others: they are counted, the first error kept. A listing or database error stops it (thrown).
   */
  sweep(options?: SweepOptions): Promise<SweepResult>;
}

/** The storage the settings choose: an S3-compatible bucket when MEDIA_S3_BUCKET is set, else MEDIA_DIR. */
export function storageFor(config: Config): MediaStorage {
  if (config.mediaS3Bucket && config.mediaS3Endpoint && config.mediaS3AccessKey && config.mediaS3SecretKey) {
    return createS3Storage({
      endpoint: config.mediaS3Endpoint,
      bucket: config.mediaS3Bucket,
      region: config.mediaS3Region,
      accessKey: config.mediaS3AccessKey,
      secretKey: config.mediaS3SecretKey,
      ...(config.mediaS3PublicUrl ? { publicUrl: config.mediaS3PublicUrl } : {}),
    });
  }
  return createLocalStorage(config.mediaDir);
}

/** The files of an uploaded image under its hash: the full size and each stored size. */
function filesOf(row: Pick<ImageRow, 'extension' | 'sizes'>): string[] {
  return [`full.${row.extension}`, ...storedSizes(row).map((s) => s.file)];
}

const MIME_BY_EXTENSION: Record<string, string> = Object.fromEntries(Object.values(FORMATS).map((f) => [f.extension, f.mime]));

/** An upload's file name as kept and searched: its last path segment, control characters removed, at most 200 characters. */
function cleanFilename(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return cleaned === '' ? fallback : cleaned;
}

export function cleanAlt(alt: unknown): string {
  return String(alt ?? '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_ALT);
}

export function toMediaJson(row: ImageRow): MediaJson {
  const image = toImageJson(row);
  return {
    id: Number(row.id),
    url: row.url,
    alt_text: row.alt,
    filename: row.filename,
    mime_type: row.mime_type,
    extension: row.extension,
    width: image.width,
    height: image.height,
    filesize: Number(row.filesize ?? 0),
    author: Number(row.author_id),
    date_gmt: row.created_gmt,
    sizes: image.sizes,
  };
}

export function createMediaService(
  config: Config,
  db: Executor,
  clock: { nowGmt(): string } | Clock,
  storage: MediaStorage = storageFor(config),
  quotas?: Pick<CalendarQuotas, 'limit' | 'write' | 'check'>,
): MediaService {
  const urlOf = (key: string) => storage.publicUrl(key) ?? `${config.siteUrl}${MEDIA_PATH}/${key}`;

  const check = (bytes: Buffer): SniffedImage => {
    if (bytes.length === 0) throw apiError('rest_upload_no_data');
    if (bytes.length > config.mediaMaxBytes) throw apiError('rest_upload_file_too_big', { args: [bytes.length, config.mediaMaxBytes], data: { max_bytes: config.mediaMaxBytes } });
    const type = sniffImage(bytes);
    if (type === 'svg') throw apiError('rest_upload_svg_refused');
    if (!type) throw apiError('rest_upload_invalid_type', { data: { accepted: Object.values(FORMATS).map((f) => f.mime) } });
    return type;
  };

  /**
   * Remove a hash's files unless an image of any calendar has them, as one step against the record
   * of an upload of the same bytes: the check and the removal hold the hash's lock (PostgreSQL's
   * transaction-scoped advisory lock; SQLite's write transaction), which an upload's record takes
   * too, and that record puts back any of its files a removal took before it (`upload`). Without
   * it, a removal that looked before another calendar's upload recorded its image took the files
   * that image had just written. Answers whether they went.
   */
  const removeUnused = (on: Executor, hash: string, files: string[]): Promise<boolean> =>
    writeTransaction(on, async (trx) => {
      await lockForWrite(trx, `media:${hash}`);
      if (await imagesStore.storageKeyUsedInAnyCalendar(trx, hash)) return false;
      await storage.removeAll(hash, files);
      return true;
    });

  return {
    storage,

    async upload(input, viewer, on = db) {
      const type = check(input.bytes);
      const made = await processImage(input.bytes, type, { maxPixels: config.mediaMaxPixels }).catch((e: unknown) => {
        if (e instanceof ImageProblem && e.kind === 'pixels') throw apiError('rest_upload_too_many_pixels', { args: [e.message.match(/\d+/)?.[0] ?? '', config.mediaMaxPixels] });
        if (e instanceof ImageProblem) throw apiError('rest_upload_unreadable');
        throw e;
      });
      const hash = createHash('sha256').update(input.bytes).digest('hex').slice(0, 32);
      const fullFile = `full.${type.extension}`;
      // The calendar's `media_bytes` quota counts the kept full-size files: a look before the files
      // are stored (an upload past it stores nothing), the count that holds in the write below.
      const quota = quotas ? await quotas.limit('media_bytes') : 0;
      if (quota > 0) await quotas!.check(on, 'media_bytes', made.full.bytes.length, quota);
      // The files first: a record never points at files that are not there. Same bytes, same files.
      const files = [made.full, ...made.variants];
      for (const f of files) await storage.put(`${hash}/${f.name}.${type.extension}`, f.bytes, type.mime);
      const sizes: StoredSize[] = made.variants.map((v) => ({ name: v.name, width: v.width, height: v.height, mime: type.mime, filesize: v.bytes.length, file: `${v.name}.${type.extension}` }));
      const insert = async (trx: Executor) => {
        await lockForWrite(trx, `media:${hash}`);
        const id = await imagesStore.insertImage(trx, {
          url: urlOf(`${hash}/${fullFile}`),
          extension: type.extension,
          mime_type: type.mime,
          width: made.full.width,
          height: made.full.height,
          author_id: viewer.id,
          created_gmt: clock.nowGmt(),
          storage_key: hash,
          alt: cleanAlt(input.alt),
          filename: cleanFilename(input.filename, fullFile),
          filesize: made.full.bytes.length,
          sizes: JSON.stringify(sizes),
        });
        // A removal of the same bytes (a refused upload, an image deleted in another calendar, the
        // sweep) that looked before this record may have taken the files since they were written:
        // with the hash's lock held, what is gone is put back before the record is seen.
        const there = new Set((await storage.look(hash))?.files ?? []);
        for (const f of files) if (!there.has(`${f.name}.${type.extension}`)) await storage.put(`${hash}/${f.name}.${type.extension}`, f.bytes, type.mime);
        return id;
      };
      const id = await (quota > 0 ? quotas!.write(on, 'media_bytes', made.full.bytes.length, insert) : writeTransaction(on, insert)).catch(async (e: unknown) => {
        // Refused by the quota meanwhile (uploads at once): its files go unless a record shares them,
        // in any calendar (the same bytes uploaded elsewhere are the same files).
        if (isQuotaExceeded(e))
          await removeUnused(
            on,
            hash,
            files.map((f) => `${f.name}.${type.extension}`),
          ).catch(() => undefined);
        throw e;
      });
      const [row] = await imagesStore.findImagesByIds(on, [id]);
      return row!;
    },

    async list(query) {
      return imagesStore.findMediaPage(db, {
        ...(query.search ? { search: query.search } : {}),
        ...(query.url ? { url: query.url } : {}),
        limit: query.perPage,
        offset: (query.page - 1) * query.perPage,
      });
    },

    async get(id) {
      const [row] = await imagesStore.findImagesByIds(db, [id]);
      return row && row.storage_key !== '' ? row : undefined;
    },

    canEdit: (viewer, row) => can(viewer, 'upload_files') && (Number(row.author_id) === viewer.id || can(viewer, 'edit_others_posts')),

    async setAlt(row, alt) {
      await writeTransaction(db, (trx) => imagesStore.updateImageAlt(trx, Number(row.id), cleanAlt(alt)));
      const [updated] = await imagesStore.findImagesByIds(db, [Number(row.id)]);
      return updated!;
    },

    async remove(row) {
      await writeTransaction(db, (trx) => imagesStore.deleteImage(trx, Number(row.id)));
      // Another calendar's image of the same bytes has the same files: they stay while any has one.
      await removeUnused(db, row.storage_key, filesOf(row));
    },

    heldHere: (hash) => imagesStore.calendarHoldsStorageKey(db, hash),

    async calendarFilesRemoval(calendarId) {
      const uploads = await imagesStore.findUploadsOfCalendar(db, calendarId);
      return async () => {
        let failure: unknown;
        for (const row of uploads) {
          try {
            await removeUnused(db, row.storage_key, filesOf(row));
          } catch (e) {
            // The others are still removed; the first failure is told once they are.
            failure ??= e;
          }
        }
        if (failure !== undefined) throw failure;
      };
    },

    async read(key) {
      if (!KEY_PATTERN.test(key)) return undefined;
      const bytes = await storage.get(key);
      if (!bytes) return undefined;
      const ext = key.slice(key.lastIndexOf('.') + 1);
      return { bytes, mime: MIME_BY_EXTENSION[ext] ?? 'application/octet-stream' };
    },

    async alts(ids) {
      const out = new Map<number, string>();
      const rows = await imagesStore.findImagesByIds(db, [...new Set(ids)]);
      for (const r of rows) if (r.alt) out.set(Number(r.id), r.alt);
      return out;
    },

    async sweep({ olderThanMinutes = SWEEP_GRACE_MINUTES, dryRun = false, force = false, onProgress } = {}) {
      // Files' times are the storage's (the disk's, the bucket's): the wall clock, not the calendar's clock.
      const cutoff = Date.now() - olderThanMinutes * 60_000;
      const result: SweepResult = { stored: 0, recent: 0, checked: 0, afterLastWrite: 0, unused: 0, unusedBytes: 0, removed: 0, bytesFreed: 0, failed: 0 };
      // Files written after the database's last write (its change log's newest entry, of any
      // calendar) are left: in the installation itself they can only be an upload that stopped
      // before its record, which a sweep after any later write removes; against a copy of its
      // database from before (a restored backup, a staging copy) they are the images uploaded
      // since, which that copy does not know of. The storage's clock is not the database's: a
      // margin of SWEEP_CLOCK_MARGIN_MS. Unless forced.
      let lastWrite: number | null | undefined;
      const afterLastWrite = async (found: StoredHash) => {
        if (force) return false;
        if (lastWrite === undefined) {
          const gmt = await lastWriteGmt(db);
          lastWrite = gmt ? Date.parse(`${gmt.replace(' ', 'T')}Z`) : null;
        }
        return lastWrite !== null && found.newest > lastWrite - SWEEP_CLOCK_MARGIN_MS;
      };
      const tell = (found: StoredHash, outcome: SweepStep['outcome'], error?: unknown) => onProgress?.({ ...found, outcome, ...(error !== undefined ? { error } : {}) });
      const used = (hash: string) => imagesStore.storageKeyUsedInAnyCalendar(db, hash);
      let libraryLooked = false;
      // Before the first removal: do this database and this storage belong together? Some of the
      // newest images' files must be here (one uploaded image whose files are elsewhere, or none
      // at all, is more often the wrong DATABASE_URL or MEDIA_DIR than a library nobody uses).
      const refuseStrangers = async () => {
        const sample = await imagesStore.newestStorageKeys(db, SWEEP_SAMPLE);
        if (sample.length === 0) throw new MediaSweepRefused('no calendar of this database has any uploaded image, yet the media storage holds files: is it the database these files belong to?');
        for (const hash of sample) if (await storage.look(hash)) return;
        throw new MediaSweepRefused(
          `none of the files of this database's ${sample.length} newest uploaded image${sample.length === 1 ? '' : 's'} is in this media storage: are they the database and the storage of one installation?`,
        );
      };
      let failure: { error: unknown } | undefined;
      // The storage's hashes are asked of the database SWEEP_BATCH at a time (one statement each),
      // not one by one: a library of 100,000 files takes 200 statements, not 100,000.
      const batch: StoredHash[] = [];
      const settle = async () => {
        const old = batch.filter((listed) => listed.newest <= cutoff);
        const inUse = await imagesStore.storageKeysUsedInAnyCalendar(db, [...new Set(old.map((l) => l.hash))]);
        for (const listed of batch.splice(0)) await step(listed, inUse.has(listed.hash));
      };
      const step = async (listed: StoredHash, inUse: boolean) => {
        result.stored++;
        if (listed.newest > cutoff) {
          result.recent++;
          tell(listed, 'recent');
          return;
        }
        result.checked++;
        if (inUse) {
          tell(listed, 'in-use');
          return;
        }
        let found = listed;
        if (!dryRun) {
          if (!libraryLooked && !force) await refuseStrangers();
          libraryLooked = true;
          // Looked at again just before it goes: an upload of the same bytes writes the files again
          // (so they are new) before it records its row, and a restored record (an import) writes
          // no file at all, so the database is asked again after the files.
          const now = await storage.look(listed.hash);
          if (!now) return;
          if (now.newest > cutoff) {
            result.recent++;
            tell(now, 'recent');
            return;
          }
          if (await used(now.hash)) {
            tell(now, 'in-use');
            return;
          }
          found = now;
        }
        if (await afterLastWrite(found)) {
          result.afterLastWrite++;
          tell(found, 'after-last-write');
          return;
        }
        result.unused++;
        result.unusedBytes += found.bytes;
        if (dryRun) {
          tell(found, 'unused');
          return;
        }
        try {
          // Checked once more under the hash's lock, with the removal: an upload's record of these
          // bytes either came before (they stay) or puts back what goes (`removeUnused`).
          if (!(await removeUnused(db, found.hash, found.files))) {
            result.unused--;
            result.unusedBytes -= found.bytes;
            tell(found, 'in-use');
            return;
          }
          result.removed++;
          result.bytesFreed += found.bytes;
          tell(found, 'removed');
        } catch (e) {
          // The others are still removed; the first failure is told with the counts.
          result.failed++;
          failure ??= { error: e };
          tell(found, 'failed', e);
        }
      };
      for await (const listed of storage.list()) {
        batch.push(listed);
        if (batch.length >= SWEEP_BATCH) await settle();
      }
      await settle();
      return failure ? { ...result, firstError: failure.error } : result;
    },
  };
}
