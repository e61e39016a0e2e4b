/**
 * Where the media library's files live: the storage port and its local-disk adapter (a folder,
 * MEDIA_DIR). The S3-compatible adapter is s3.ts. Keys are `<hash>/<file>` (the hash of the
 * uploaded bytes, then `full.jpg`, `medium.jpg`, …): content-addressed, so a key's bytes never
 * change and their URLs can be cached for a year.
 *
 * @example
 *   const storage = createLocalStorage('./data/media');
 *   await storage.put('0f…/full.jpg', bytes, 'image/jpeg');
 *   (await storage.get('0f…/full.jpg'))?.length
 */
import { mkdir, opendir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';

export interface MediaStorage {
  /** `local` or `s3`, for logs and docs */
  readonly kind: 'local' | 's3';
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes under this key, or undefined when there are none. */
  get(key: string): Promise<Buffer | undefined>;
  /** Remove every file under this hash (`<hash>/…`); nothing there is no error. */
  removeAll(hash: string, files: string[]): Promise<void>;
  /** Where clients read a key directly (S3 with a public URL); undefined: through /media/. */
  publicUrl(key: string): string | undefined;
  /**
   * Every hash stored, with its files, one at a time: the folder (or the bucket, page by page) is
   * read as the caller goes, so a storage of millions of files is never held in memory at once.
   * Only files whose key matches KEY_PATTERN count; write-in-progress files do not.
   */
  list(): AsyncIterable<StoredHash>;
  /** One hash's files as they are now (as `list` tells them), or undefined when none is stored. */
  look(hash: string): Promise<StoredHash | undefined>;
}

/** A hash's files as stored: what `list` and `look` answer. */
export interface StoredHash {
  /** 32 hex digits */
  hash: string;
  /** its files' names (`full.jpg`, `medium.jpg`, …), keys `<hash>/<name>` */
  files: string[];
  /** their total size */
  bytes: number;
  /**
   * The newest modification time among them, in milliseconds since the epoch; on local disk the
   * folder's own counts too, since a write in progress (a `.part` file, then a rename) changes it.
   */
  newest: number;
}

/** A hash: the first 128 bits of the SHA-256 of the uploaded bytes, in hex. */
export const HASH_PATTERN = /^[0-9a-f]{32}$/;

/** A storage key: 32 hex digits, a slash, a variant's file name. Nothing else reaches the disk. */
export const KEY_PATTERN = /^[0-9a-f]{32}\/[a-z_]{1,20}\.[a-z]{3,4}$/;

/** Errors that say the file or folder is not there (any more): a server removed it meanwhile. */
const gone = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR';

export function createLocalStorage(folder: string): MediaStorage {
  const root = resolve(folder);
  const pathOf = (key: string): string => {
    if (!KEY_PATTERN.test(key)) throw new Error(`not a media key: ${key}`);
    return join(root, key);
  };
  /** A hash folder's files, or undefined when it is not a folder (or no longer there). */
  const lookAt = async (hash: string): Promise<StoredHash | undefined> => {
    if (!HASH_PATTERN.test(hash)) return undefined;
    const path = join(root, hash);
    try {
      const info = await stat(path);
      if (!info.isDirectory()) return undefined;
      const found: StoredHash = { hash, files: [], bytes: 0, newest: info.mtimeMs };
      for (const name of await readdir(path)) {
        // `<file>.<random>.part`: a put under way (or one that crashed), not a stored file.
        if (name.endsWith('.part') || !KEY_PATTERN.test(`${hash}/${name}`)) continue;
        const file = await stat(join(path, name)).catch((e: unknown) => {
          if (gone(e)) return undefined;
          throw e;
        });
        if (!file?.isFile()) continue;
        found.files.push(name);
        found.bytes += file.size;
        found.newest = Math.max(found.newest, file.mtimeMs);
      }
      return found;
    } catch (e) {
      if (gone(e)) return undefined;
      throw e;
    }
  };
  return {
    kind: 'local',
    async put(key, bytes) {
      const path = pathOf(key);
      // The hash's folder may go while a file is written into it: a removal of the same bytes that
      // found no record yet (the record of this upload puts back what it took: domain/media). The
      // write then starts again in a new folder.
      for (let attempt = 1; ; attempt++) {
        // Written whole under another name first, so a reader never sees half a file.
        const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
        try {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(partial, bytes);
          await rename(partial, path);
          return;
        } catch (e) {
          if (!gone(e) || attempt >= 5) throw e;
        }
      }
    },
    async get(key) {
      if (!KEY_PATTERN.test(key)) return undefined;
      try {
        return await readFile(pathOf(key));
      } catch (e) {
        if (gone(e)) return undefined;
        throw e;
      }
    },
    async removeAll(hash) {
      if (!HASH_PATTERN.test(hash)) return;
      // A put into the folder while it goes (an upload of the same bytes) leaves it not empty at the
      // end: tried again (the upload's record then puts back what it needs: domain/media).
      await rm(join(root, hash), { recursive: true, force: true, maxRetries: 5, retryDelay: 5 });
    },
    publicUrl: () => undefined,
    async *list() {
      let dir;
      try {
        // Read a few entries at a time (not readdir's whole array): the root holds a folder per upload.
        dir = await opendir(root);
      } catch (e) {
        if (gone(e)) return;
        throw e;
      }
      for await (const entry of dir) {
        if (!HASH_PATTERN.test(entry.name)) continue;
        const found = await lookAt(entry.name);
        if (found) yield found;
      }
    },
    look: lookAt,
  };
}
