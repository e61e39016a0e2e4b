/**
 * The media storage on an S3-compatible service (AWS S3, MinIO, Cloudflare R2, Garage, …): objects
 * PUT, GET and DELETEd with path-style URLs (`{endpoint}/{bucket}/{key}`), signed with AWS
 * Signature Version 4 by `aws4fetch` (small, maintained, built on fetch; the AWS SDK's S3 client
 * would add megabytes for three calls). Objects are written with their content type and the same
 * year-long `Cache-Control` as /media/ sends, so a CDN in front of MEDIA_S3_PUBLIC_URL caches them.
 *
 * @example
 *   const storage = createS3Storage({ endpoint: 'http://127.0.0.1:9000', bucket: 'media', region: 'us-east-1', accessKey: 'k', secretKey: 's' });
 */
import { AwsClient } from 'aws4fetch';
import { KEY_PATTERN, type MediaStorage } from './storage.js';

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKey: string;
  secretKey: string;
  publicUrl?: string;
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

export function createS3Storage(options: S3Options): MediaStorage {
  const client = new AwsClient({ accessKeyId: options.accessKey, secretAccessKey: options.secretKey, region: options.region, service: 's3', retries: 2 });
  const urlOf = (key: string) => `${options.endpoint}/${encodeURIComponent(options.bucket)}/${key}`;
  const failed = async (what: string, res: Response) => new Error(`S3 ${what} answered ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      if (!KEY_PATTERN.test(key)) throw new Error(`not a media key: ${key}`);
      const res = await client.fetch(urlOf(key), { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': contentType, 'cache-control': IMMUTABLE } });
      if (!res.ok) throw await failed('PUT', res);
      await res.arrayBuffer();
    },
    async get(key) {
      if (!KEY_PATTERN.test(key)) return undefined;
      const res = await client.fetch(urlOf(key), { method: 'GET' });
      if (res.status === 404) {
        await res.arrayBuffer();
        return undefined;
      }
      if (!res.ok) throw await failed('GET', res);
      return Buffer.from(await res.arrayBuffer());
    },
    async removeAll(hash, files) {
      for (const file of files) {
        const key = `${hash}/${file}`;
        if (!KEY_PATTERN.test(key)) continue;
        const res = await client.fetch(urlOf(key), { method: 'DELETE' });
        if (!res.ok && res.status !== 404) throw await failed('DELETE', res);
        await res.arrayBuffer();
      }
    },
    publicUrl: (key) => (options.publicUrl ? `${options.publicUrl}/${key}` : undefined),
  };
}
