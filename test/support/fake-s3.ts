/**
 * A minimal S3-compatible server on a loopback port, for the media storage's S3 adapter: path-style
 * `PUT`, `GET` and `DELETE` of objects (`/{bucket}/{key}`), kept in memory with their content type,
 * cache control and time of writing, and ListObjectsV2 (`GET /{bucket}?list-type=2` with `prefix`,
 * `max-keys` and `continuation-token`, answered in key order as S3's XML). `maxKeys` caps a page
 * below S3's 1000, so a listing of a few objects runs over several pages. Every request must be
 * signed with AWS Signature Version 4 for the expected access key (the `Authorization` header's form
 * and the payload hash header are checked; the signature itself is not recomputed); an unsigned one
 * is answered 403 as S3 does.
 *
 * @example
 *   const s3 = await startFakeS3('media', 'test-key', { maxKeys: 3 });
 *   s3.objects.get('media/0f…/full.jpg')?.type
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeObject {
  bytes: Buffer;
  type: string;
  cacheControl: string;
  /** When it was written (its LastModified); a test may set it back. */
  lastModified: Date;
}

export interface FakeS3 {
  endpoint: string;
  /** By `{bucket}/{key}`. */
  objects: Map<string, FakeObject>;
  /** Each request's method, path (`{bucket}/{key}`, or `{bucket}` for a listing) and query string (without `?`). */
  requests: Array<{ method: string; path: string; query: string }>;
  /** Set by a test: the (signed) requests to answer 403 AccessDenied, as a bucket policy refusing them would. */
  refuse?: (method: string, path: string) => boolean;
  close(): Promise<void>;
}

const xmlText = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** A ListObjectsV2 answer: the bucket's keys under `prefix` after the continuation token's key, at most `limit` of them. */
function listing(objects: Map<string, FakeObject>, bucket: string, query: URLSearchParams, cap: number): { status: number; xml: string } {
  if (query.get('list-type') !== '2') return { status: 400, xml: '<Error><Code>NotImplemented</Code><Message>only ListObjectsV2 (list-type=2)</Message></Error>' };
  const prefix = query.get('prefix') ?? '';
  const asked = query.get('max-keys');
  if (asked !== null && !/^\d+$/.test(asked)) return { status: 400, xml: '<Error><Code>InvalidArgument</Code><Message>max-keys</Message></Error>' };
  const limit = Math.min(asked === null ? 1000 : Number(asked), 1000, cap);
  const token = query.get('continuation-token');
  // The token is opaque to clients; here it is the last key answered, encoded.
  const after = token === null ? undefined : Buffer.from(token, 'base64url').toString('utf8');
  if (token !== null && after === '') return { status: 400, xml: '<Error><Code>InvalidArgument</Code><Message>continuation-token</Message></Error>' };
  const keys = [...objects.keys()]
    .filter((k) => k.startsWith(`${bucket}/`))
    .map((k) => k.slice(bucket.length + 1))
    .filter((k) => k.startsWith(prefix) && (after === undefined || k > after))
    .sort();
  const page = keys.slice(0, limit);
  const truncated = page.length > 0 && keys.length > page.length;
  const contents = page.map((key) => {
    const o = objects.get(`${bucket}/${key}`)!;
    return `<Contents><Key>${xmlText(key)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>&quot;x&quot;</ETag><Size>${o.bytes.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
  });
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Name>${xmlText(bucket)}</Name><Prefix>${xmlText(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${limit}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
    (token !== null ? `<ContinuationToken>${xmlText(token)}</ContinuationToken>` : '') +
    (truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!, 'utf8').toString('base64url')}</NextContinuationToken>` : '') +
    contents.join('') +
    '</ListBucketResult>';
  return { status: 200, xml };
}

export async function startFakeS3(bucket: string, accessKey: string, { maxKeys = 1000 }: { maxKeys?: number } = {}): Promise<FakeS3> {
  const objects = new Map<string, FakeObject>();
  const requests: FakeS3['requests'] = [];
  const fake = { objects, requests } as FakeS3;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = decodeURIComponent(url.pathname).slice(1);
      requests.push({ method: req.method ?? '', path, query: url.search.slice(1) });
      const auth = String(req.headers.authorization ?? '');
      const signed =
        auth.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKey}/`) &&
        /SignedHeaders=[^,]*host/.test(auth) &&
        /Signature=[0-9a-f]{64}$/.test(auth) &&
        req.headers['x-amz-content-sha256'] !== undefined;
      if (!signed || fake.refuse?.(req.method ?? '', path)) {
        res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
        return;
      }
      if ((path === bucket || path === `${bucket}/`) && req.method === 'GET') {
        const answer = listing(objects, bucket, url.searchParams, maxKeys);
        res.writeHead(answer.status, { 'content-type': 'application/xml' }).end(answer.xml);
        return;
      }
      if (!path.startsWith(`${bucket}/`)) {
        res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchBucket</Code></Error>');
        return;
      }
      const found = objects.get(path);
      switch (req.method) {
        case 'PUT':
          objects.set(path, { bytes: Buffer.concat(chunks), type: String(req.headers['content-type'] ?? ''), cacheControl: String(req.headers['cache-control'] ?? ''), lastModified: new Date() });
          res.writeHead(200, { etag: '"x"' }).end();
          return;
        case 'GET':
          if (!found) res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
          else res.writeHead(200, { 'content-type': found.type, 'content-length': String(found.bytes.length) }).end(found.bytes);
          return;
        case 'DELETE':
          objects.delete(path);
          res.writeHead(204).end();
          return;
        default:
          res.writeHead(405).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
