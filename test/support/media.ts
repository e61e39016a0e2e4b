/**
 * Images for the media library's tests, made with sharp: a JPEG carrying a GPS location in its
 * EXIF, plain images of a size, noise (large files), and uploads to the admin API.
 *
 * @example
 *   const jpeg = await jpegWithGps(1600, 1200);
 *   const res = await uploadRaw(t, jpeg, 'image/jpeg', 'admin', 'poster.jpg');
 */
import sharp from 'sharp';
import { randomBytes } from 'node:crypto';
import type { TestServer } from './harness.js';

/** A colour of its own for each image made, so that two stores' tests never share files (content-addressed). */
const anyColour = () => ({ r: Math.floor(Math.random() * 256), g: Math.floor(Math.random() * 256), b: Math.floor(Math.random() * 256) });

/** A JPEG whose EXIF holds a GPS location (and a copyright), as a phone writes one. */
export async function jpegWithGps(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: anyColour() } })
    .jpeg()
    .withExif({ IFD0: { Copyright: 'Someone' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2931/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4000/100' } })
    .toBuffer();
}

export async function plainImage(width: number, height: number, format: 'png' | 'webp' | 'gif' | 'avif' | 'jpeg' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: anyColour() } })
    .toFormat(format)
    .toBuffer();
}

/** A PNG of random pixels: it does not compress, so its size is about width × height × 3 bytes. */
export async function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

/** Basic credentials of a harness user ('admin', a role's login) as a header. */
export function authOf(t: TestServer, who: string | null): Record<string, string> {
  if (who === null) return {};
  const credentials = who === 'admin' ? 'admin:admin-password' : `${who}:${who}-pw`;
  return { authorization: 'Basic ' + Buffer.from(credentials).toString('base64') };
}

export const mediaUrl = (t: TestServer, path = '') => `${t.origin}${t.config.restRoot}/calendar/admin/v1/media${path}`;

/** Upload as a raw body. */
export async function uploadRaw(t: TestServer, bytes: Buffer, type: string, who: string | null = 'admin', filename?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': type, ...authOf(t, who) };
  if (filename) headers['content-disposition'] = `attachment; filename="${filename}"`;
  const res = await fetch(mediaUrl(t), { method: 'POST', headers, body: new Uint8Array(bytes) });
  return { status: res.status, body: await res.json() };
}

/** Upload as a multipart form (a file field `file` and `alt_text`). */
export async function uploadForm(t: TestServer, bytes: Buffer, type: string, filename: string, alt: string, who: string | null = 'admin'): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  form.set('alt_text', alt);
  const res = await fetch(mediaUrl(t), { method: 'POST', headers: authOf(t, who), body: form });
  return { status: res.status, body: await res.json() };
}
