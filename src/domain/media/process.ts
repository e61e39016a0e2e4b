/**
 * Uploaded images made ready to serve, with sharp (libvips: decoding and encoding run on its own
 * threads, off the event loop): turned upright by their EXIF orientation, their metadata (EXIF with
 * any GPS location, XMP, IPTC, comments) dropped by re-encoding without it, and resized into
 * WordPress' sizes: `medium` (within 300 × 300), `large` (within 1024 × 1024), `thumbnail` (150 ×
 * 150, cropped), `medium_large` (768 wide), each only when the original is larger, in WordPress'
 * metadata order; the full size is the original re-encoded (within 2560 × 2560, WordPress' "big
 * image" threshold). The pixel count is checked from the header before anything is decoded.
 *
 * @example
 *   const made = await processImage(bytes, FORMATS.jpeg, { maxPixels: 40e6 });
 *   made.full.width; made.variants.map((v) => v.name) // ['medium', 'large', 'thumbnail', 'medium_large']
 */
import type sharpFunction from 'sharp';
import type { Metadata, Sharp } from 'sharp';
import { onFirstUse } from '../on-first-use.js';
import type { ImageFormat, SniffedImage } from './sniff.js';

export interface MadeFile {
  /** `full`, `medium`, `large`, `thumbnail`, `medium_large` */
  name: string;
  width: number;
  height: number;
  bytes: Buffer;
}

export interface MadeImage {
  full: MadeFile;
  variants: MadeFile[];
}

/** Why an image could not be made: too many pixels, or bytes that do not decode. */
export class ImageProblem extends Error {
  readonly kind: 'pixels' | 'unreadable';

  constructor(kind: 'pixels' | 'unreadable', message: string) {
    super(message);
    this.kind = kind;
  }
}

interface SizeRule {
  name: string;
  width: number;
  height: number | null;
  crop: boolean;
}

/** WordPress' default sizes, in the order its attachment metadata lists them. */
const SIZES: SizeRule[] = [
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium_large', width: 768, height: null, crop: false },
];

const BIG_IMAGE = 2560;

function encode(pipeline: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 82, mozjpeg: true });
    case 'png':
      return pipeline.png({ compressionLevel: 8 });
    case 'gif':
      return pipeline.gif();
    case 'webp':
      return pipeline.webp({ quality: 80 });
    case 'avif':
      return pipeline.avif({ quality: 55, effort: 2 });
  }
}

/** Whether a size is made for an image of these (upright) dimensions: only when it is smaller. */
function wanted(rule: SizeRule, width: number, height: number): boolean {
  return width > rule.width || (rule.height !== null && height > rule.height);
}

// sharp (libvips, a native addon) is loaded with the first image, not at every start.
const sharpOf = onFirstUse<typeof sharpFunction>(() => import('sharp').then((m) => m.default));

export async function processImage(bytes: Buffer, type: SniffedImage, options: { maxPixels: number }): Promise<MadeImage> {
  const sharp = await sharpOf();
  const open = () => sharp(bytes, { limitInputPixels: options.maxPixels, failOn: 'error', animated: false });
  let meta: Metadata;
  try {
    // The header only (nothing decoded yet), so the pixel count is checked here, with its numbers.
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch {
    throw new ImageProblem('unreadable', 'The file is not a readable image.');
  }
  if (meta.format !== type.format && !(type.format === 'avif' && meta.format === 'heif')) throw new ImageProblem('unreadable', 'The file is not a readable image.');
  const width0 = meta.width ?? 0;
  const height0 = meta.height ?? 0;
  if (width0 < 1 || height0 < 1) throw new ImageProblem('unreadable', 'The file is not a readable image.');
  if (width0 * height0 > options.maxPixels) throw new ImageProblem('pixels', `The image has ${width0 * height0} pixels; at most ${options.maxPixels} are accepted.`);
  // Orientations 5-8 swap width and height once turned upright.
  const swapped = (meta.orientation ?? 1) >= 5;
  const width = swapped ? height0 : width0;
  const height = swapped ? width0 : height0;
  const make = async (name: string, resize: (p: Sharp) => Sharp): Promise<MadeFile> => {
    try {
      const { data, info } = await encode(resize(open().rotate()), type.format).toBuffer({ resolveWithObject: true });
      return { name, width: info.width, height: info.height, bytes: data };
    } catch {
      throw new ImageProblem('unreadable', 'The file is not a readable image.');
    }
  };
  const full = await make('full', (p) => (width > BIG_IMAGE || height > BIG_IMAGE ? p.resize(BIG_IMAGE, BIG_IMAGE, { fit: 'inside' }) : p));
  const variants: MadeFile[] = [];
  for (const rule of SIZES) {
    if (!wanted(rule, full.width, full.height)) continue;
    variants.push(
      await make(rule.name, (p) =>
        rule.crop ? p.resize(rule.width, rule.height!, { fit: 'cover', withoutEnlargement: true }) : p.resize(rule.width, rule.height ?? undefined, { fit: 'inside', withoutEnlargement: true }),
      ),
    );
  }
  return { full, variants };
}
