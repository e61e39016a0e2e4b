/**
 * Featured images: given as the id of a known image or as a URL (COMPAT decision 9). A URL needs
 * the `upload_files` capability (authors and up), as in the original; it creates an image record
 * pointing at the URL, or reuses the record that already has that URL. Nothing is downloaded.
 *
 * @example
 *   await images.validateRef('https://example.com/a.png', viewer) // true
 *   const id = await images.idFor(trx, 'https://example.com/a.png', viewer)
 */
import type { Executor, ImageRow } from '../store/schema.js';
import * as imagesStore from '../store/images.js';
import { createKeptRecords } from './kept.js';
import { can, type Viewer } from './permissions.js';
import { isEmptyValue, isPositiveInt } from './values.js';

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  heic: 'image/heic',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

/** An http(s) URL, as PHP's FILTER_VALIDATE_URL would accept it. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !/^https?:\/\/[^\s/$.?#][^\s]*$/i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function extensionOf(url: string): string {
  const path = new URL(url).pathname;
  const m = /\.([A-Za-z0-9]+)$/.exec(path);
  return m ? m[1].toLowerCase() : '';
}

export interface ImageService {
  /** is_image (and is_image_or_empty with allowEmpty): a known image id, or a URL the viewer may add. */
  validateRef(value: unknown, viewer: Viewer, allowEmpty?: boolean): Promise<boolean>;
  /** The image id for a validated reference, creating a URL record if needed; null for empty. */
  idFor(db: Executor, value: unknown, viewer: Viewer): Promise<number | null>;
  /** Images by id (kept ones on the store's handle; `current: false`: without looking for changes first, see `KeptRecords`). */
  load(db: Executor, ids: number[], options?: { current?: boolean }): Promise<Map<number, ImageRow>>;
}

export function createImageService(db: Executor): ImageService {
  // Image rows by id, kept until the change log names them (the images events, venues and organizers show).
  const kept = createKeptRecords<ImageRow>(db, 'image', (trx, ids) => imagesStore.findImagesByIds(trx, ids));
  return {
    async validateRef(value, viewer, allowEmpty = false) {
      if (isEmptyValue(value)) return allowEmpty;
      if (isPositiveInt(value)) return (await kept.get(db, [Number(value)])).has(Number(value));
      if (!isHttpUrl(value)) return false;
      if (!can(viewer, 'upload_files')) return false;
      const ext = extensionOf(value);
      return ext === '' || ext in MIME_BY_EXTENSION;
    },

    async idFor(trx, value, viewer) {
      if (isEmptyValue(value)) return null;
      if (isPositiveInt(value)) return Number(value);
      const url = String(value);
      const existing = await imagesStore.findImageByUrl(trx, url);
      if (existing) return Number(existing.id);
      const extension = extensionOf(url);
      return imagesStore.insertImage(trx, {
        url,
        extension,
        mime_type: MIME_BY_EXTENSION[extension] ?? '',
        width: null,
        height: null,
        author_id: viewer.id,
        created_gmt: new Date().toISOString().slice(0, 19).replace('T', ' '),
      });
    },

    load: (trx, ids, options) => kept.get(trx, ids, options),
  };
}
