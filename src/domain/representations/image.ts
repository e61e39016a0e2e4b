/**
 * The featured image object (shapes.md §2.4). Images created from a URL have unknown dimensions,
 * which are `false` (COMPAT decision 9); `sizes` is then an empty object. Uploaded images (the
 * media library, docs/media.md) carry WordPress' attachment metadata as WordPress ≥ 6.0 sends it:
 * `width`, `height`, `filesize`, then `sizes` keyed by size name, each `{width, height,
 * mime-type, filesize, url}`.
 *
 * @example toImageJson({ id: 4, url: 'http://x/a.png', extension: 'png', width: 1200, height: 800, … })
 *   // { url: 'http://x/a.png', id: 4, extension: 'png', width: 1200, height: 800, sizes: {} }
 */
import type { ImageRow } from '../../store/schema.js';

export interface ImageJson {
  url: string;
  id: number;
  extension: string;
  width: number | false;
  height: number | false;
  filesize?: number;
  sizes: Record<string, ImageSizeJson>;
}

export interface ImageSizeJson {
  width: number;
  height: number;
  'mime-type': string;
  filesize: number;
  url: string;
}

/** One resized variant as the `images.sizes` column keeps it (JSON list, WordPress' order). */
export interface StoredSize {
  name: string;
  width: number;
  height: number;
  mime: string;
  filesize: number;
  /** the file's name beside the full size's (`medium.jpg`) */
  file: string;
}

/** The variants kept for an image ('' or unreadable: none). */
export function storedSizes(image: Pick<ImageRow, 'sizes'>): StoredSize[] {
  if (!image.sizes) return [];
  try {
    const parsed = JSON.parse(image.sizes) as unknown;
    return Array.isArray(parsed) ? (parsed as StoredSize[]) : [];
  } catch {
    return [];
  }
}

/** A variant's URL: its file beside the full size's (content-addressed, so the folder is the image's). */
export function sizeUrl(image: Pick<ImageRow, 'url'>, file: string): string {
  return image.url.slice(0, image.url.lastIndexOf('/') + 1) + file;
}

/** What the faces show beside the REST shape, which has no room for it: the alt text and the type. */
export interface ImageDetails {
  alt: string;
  mime: string;
}

/**
 * The details of the image objects made here, by object: the pages, feeds, component and
 * federation read the kept representations (these objects), while the REST answer keeps the
 * original's keys exactly (an `alt` key there would not be the original's shape).
 */
const detailsByObject = new WeakMap<object, ImageDetails>();

/** The alt text and type of an image object of a kept representation (undefined for another object). */
export function imageDetails(image: unknown): ImageDetails | undefined {
  return typeof image === 'object' && image !== null ? detailsByObject.get(image) : undefined;
}

export function toImageJson(image: ImageRow): ImageJson {
  const sizes: Record<string, ImageSizeJson> = {};
  for (const s of storedSizes(image)) sizes[s.name] = { width: s.width, height: s.height, 'mime-type': s.mime, filesize: s.filesize, url: sizeUrl(image, s.file) };
  const out: ImageJson = {
    url: image.url,
    id: Number(image.id),
    extension: image.extension,
    width: image.width ?? false,
    height: image.height ?? false,
    ...(image.filesize ? { filesize: Number(image.filesize) } : {}),
    sizes,
  };
  detailsByObject.set(out, { alt: image.alt ?? '', mime: image.mime_type });
  return out;
}
