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
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
}

/** A storage key: 32 hex digits, a slash, a variant's file name. Nothing else reaches the disk. */
export const KEY_PATTERN = /^[0-9a-f]{32}\/[a-z_]{1,20}\.[a-z]{3,4}$/;

export function createLocalStorage(folder: string): MediaStorage {
  const root = resolve(folder);
  const pathOf = (key: string): string => {
    if (!KEY_PATTERN.test(key)) throw new Error(`not a media key: ${key}`);
    return join(root, key);
  };
  return {
    kind: 'local',
    async put(key, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Written whole under another name first, so a reader never sees half a file.
      const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
      await writeFile(partial, bytes);
      await rename(partial, path);
    },
    async get(key) {
      if (!KEY_PATTERN.test(key)) return undefined;
      try {
        return await readFile(pathOf(key));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
        throw e;
      }
    },
    async removeAll(hash) {
      if (!/^[0-9a-f]{32}$/.test(hash)) return;
      await rm(join(root, hash), { recursive: true, force: true });
    },
    publicUrl: () => undefined,
  };
}
