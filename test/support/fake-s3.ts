/**
 * A minimal S3-compatible server on a loopback port, for the media storage's S3 adapter: path-style
 * `PUT`, `GET` and `DELETE` of objects (`/{bucket}/{key}`), kept in memory with their content type
 * and cache control. Every request must be signed with AWS Signature Version 4 for the expected
 * access key (the `Authorization` header's form and the payload hash header are checked; the
 * signature itself is not recomputed); an unsigned one is answered 403 as S3 does.
 *
 * @example
 *   const s3 = await startFakeS3('media', 'test-key');
 *   s3.objects.get('media/0f…/full.jpg')?.type
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeObject {
  bytes: Buffer;
  type: string;
  cacheControl: string;
}

export interface FakeS3 {
  endpoint: string;
  objects: Map<string, FakeObject>;
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

export async function startFakeS3(bucket: string, accessKey: string): Promise<FakeS3> {
  const objects = new Map<string, FakeObject>();
  const requests: FakeS3['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
      requests.push({ method: req.method ?? '', path });
      const auth = String(req.headers.authorization ?? '');
      const signed =
        auth.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKey}/`) &&
        /SignedHeaders=[^,]*host/.test(auth) &&
        /Signature=[0-9a-f]{64}$/.test(auth) &&
        req.headers['x-amz-content-sha256'] !== undefined;
      if (!signed) {
        res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
        return;
      }
      if (!path.startsWith(`${bucket}/`)) {
        res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchBucket</Code></Error>');
        return;
      }
      const found = objects.get(path);
      switch (req.method) {
        case 'PUT':
          objects.set(path, { bytes: Buffer.concat(chunks), type: String(req.headers['content-type'] ?? ''), cacheControl: String(req.headers['cache-control'] ?? '') });
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
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
