/**
 * The media storage on an S3-compatible service (AWS S3, MinIO, Cloudflare R2, Garage, …): objects
 * PUT, GET and DELETEd with path-style URLs (`{endpoint}/{bucket}/{key}`), signed with AWS
 * Signature Version 4 by `aws4fetch` (small, maintained, built on fetch; the AWS SDK's S3 client
 * would add megabytes for three calls). Objects are written with their content type and the same
 * year-long `Cache-Control` as /media/ sends, so a CDN in front of MEDIA_S3_PUBLIC_URL caches them.
 * What is stored is listed with ListObjectsV2 (`GET /{bucket}?list-type=2`), a page at a time.
 *
 * @example
 *   const storage = createS3Storage({ endpoint: 'http://127.0.0.1:9000', bucket: 'media', region: 'us-east-1', accessKey: 'k', secretKey: 's' });
 */
import { AwsClient } from 'aws4fetch';
import { HASH_PATTERN, KEY_PATTERN, type MediaStorage, type StoredHash } from './storage.js';

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKey: string;
  secretKey: string;
  publicUrl?: string;
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The most keys S3 answers in one ListObjectsV2 page (servers may answer fewer). */
const PAGE_KEYS = 1000;

/** One ListObjectsV2 page: its objects, and the token of the next page when there is one. */
interface ListedPage {
  objects: Array<{ key: string; size: number; modified: number }>;
  next: string | undefined;
}

/** A ListObjectsV2 answer (`<ListBucketResult>`), read with fast-xml-parser (loaded with the first listing: the CLI's other commands do not need it). */
async function readListing(xml: string): Promise<ListedPage> {
  const { XMLParser } = await import('fast-xml-parser');
  // Every value as text (a key of digits stays a key; sizes are read below); `Contents` a list even when there is one.
  const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'Contents' });
  const result = (parser.parse(xml) as { ListBucketResult?: Record<string, unknown> }).ListBucketResult;
  if (!result || typeof result !== 'object') throw new Error(`S3 ListObjectsV2 answered no ListBucketResult: ${xml.slice(0, 200)}`);
  const contents = (result.Contents ?? []) as Array<Record<string, unknown>>;
  const objects = contents.map((c) => {
    const modified = Date.parse(String(c.LastModified ?? ''));
    // A time that cannot be read counts as now: such an object is never taken for an old one.
    return { key: String(c.Key ?? ''), size: Number(c.Size) || 0, modified: Number.isNaN(modified) ? Date.now() : modified };
  });
  const truncated = String(result.IsTruncated ?? '').toLowerCase() === 'true';
  const next = typeof result.NextContinuationToken === 'string' && result.NextContinuationToken !== '' ? result.NextContinuationToken : undefined;
  if (truncated && next === undefined) throw new Error('S3 ListObjectsV2 answered a truncated page without a NextContinuationToken');
  return { objects, next: truncated ? next : undefined };
}

export function createS3Storage(options: S3Options): MediaStorage {
  const client = new AwsClient({ accessKeyId: options.accessKey, secretAccessKey: options.secretKey, region: options.region, service: 's3', retries: 2 });
  const urlOf = (key: string) => `${options.endpoint}/${encodeURIComponent(options.bucket)}/${key}`;
  const failed = async (what: string, res: Response) => new Error(`S3 ${what} answered ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
  /**
   * The bucket's keys (under `prefix`), grouped by hash. S3 answers keys in their (UTF-8 binary)
   * order, so a hash's keys are consecutive: a group is complete when the next hash starts, and at
   * most one page and one group are held at a time; a group may run over a page's end.
   */
  async function* listed(prefix?: string): AsyncGenerator<StoredHash> {
    let group: StoredHash | undefined;
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ 'list-type': '2', 'max-keys': String(PAGE_KEYS) });
      if (prefix) query.set('prefix', prefix);
      if (token) query.set('continuation-token', token);
      const res = await client.fetch(`${options.endpoint}/${encodeURIComponent(options.bucket)}?${query}`, { method: 'GET' });
      if (!res.ok) throw await failed('ListObjectsV2', res);
      const page = await readListing(await res.text());
      for (const o of page.objects) {
        // Only the service's own keys: anything else in the bucket is not the media library's.
        if (!KEY_PATTERN.test(o.key)) continue;
        const hash = o.key.slice(0, 32);
        if (group && group.hash !== hash) {
          yield group;
          group = undefined;
        }
        group ??= { hash, files: [], bytes: 0, newest: 0 };
        group.files.push(o.key.slice(33));
        group.bytes += o.size;
        group.newest = Math.max(group.newest, o.modified);
      }
      token = page.next;
    } while (token !== undefined);
    if (group) yield group;
  }

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
    list: () => listed(),
    async look(hash) {
      if (!HASH_PATTERN.test(hash)) return undefined;
      for await (const found of listed(`${hash}/`)) if (found.hash === hash) return found;
      return undefined;
    },
  };
}
