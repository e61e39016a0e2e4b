/**
 * What an upload is, from its first bytes (never from its name or declared type): JPEG, PNG, GIF,
 * WebP and AVIF are accepted; SVG is recognised to be refused by name (it can carry scripts).
 *
 * @example
 *   sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0])) // { format: 'jpeg', mime: 'image/jpeg', extension: 'jpg' }
 *   sniffImage(Buffer.from('<svg xmlns=…'))         // 'svg'
 */

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

export interface SniffedImage {
  format: ImageFormat;
  mime: string;
  extension: string;
}

export const FORMATS: Record<ImageFormat, SniffedImage> = {
  jpeg: { format: 'jpeg', mime: 'image/jpeg', extension: 'jpg' },
  png: { format: 'png', mime: 'image/png', extension: 'png' },
  gif: { format: 'gif', mime: 'image/gif', extension: 'gif' },
  webp: { format: 'webp', mime: 'image/webp', extension: 'webp' },
  avif: { format: 'avif', mime: 'image/avif', extension: 'avif' },
};

const starts = (b: Buffer, bytes: number[], at = 0): boolean => b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x);
const ascii = (b: Buffer, from: number, to: number): string => b.subarray(from, to).toString('latin1');

/** The accepted image type of these bytes, `'svg'` for an SVG document, or undefined. */
export function sniffImage(b: Buffer): SniffedImage | 'svg' | undefined {
  if (starts(b, [0xff, 0xd8, 0xff])) return FORMATS.jpeg;
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return FORMATS.png;
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return FORMATS.gif;
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return FORMATS.webp;
  if (ascii(b, 4, 8) === 'ftyp') {
    // ISO base media: the major brand, then the compatible brands up to the box's end.
    const boxEnd = Math.min(b.length, b.readUInt32BE(0));
    const brands = [ascii(b, 8, 12)];
    for (let at = 16; at + 4 <= boxEnd; at += 4) brands.push(ascii(b, at, at + 4));
    if (brands.includes('avif') || brands.includes('avis')) return FORMATS.avif;
    return undefined;
  }
  const head = b
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<svg') || ((head.startsWith('<?xml') || head.startsWith('<!doctype svg') || head.startsWith('<!--')) && head.includes('<svg'))) return 'svg';
  return undefined;
}
