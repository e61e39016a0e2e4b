/**
 * The media face: the media library's files at `/media/<hash>/<variant>.<ext>` (outside the REST
 * root; docs/media.md). The URLs are content-addressed (the hash of the uploaded bytes), so the
 * answer never changes: `Cache-Control: public, max-age=31536000, immutable`, a strong `ETag`
 * (304 to `If-None-Match`), the type from the stored variant. With S3-compatible storage the
 * files are read from the bucket and passed on (or, with MEDIA_S3_PUBLIC_URL, the URLs point at
 * the bucket's public address and these routes are not used by the images' URLs).
 *
 * Uploads are public files, as in WordPress (`wp-content/uploads`): anyone who has the URL reads
 * it, whether the event showing it is published or not; the URL is not guessable (128 bits of a
 * hash of the file) and not listed anywhere a visitor can read until the event is public.
 *
 * @example
 *   registerMediaFace(app, { services }); // GET /media/0f3a…/medium.jpg → 200 image/jpeg
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IMMUTABLE, MEDIA_PATH } from '../domain/media/index.js';

export function registerMediaFace(app: FastifyInstance, { services }: Pick<FaceDeps, 'services'>): void {
  const answer = async (req: FastifyRequest<{ Params: { hash: string; file: string } }>, reply: FastifyReply) => {
    const key = `${req.params.hash}/${req.params.file}`;
    const etag = `"${key.replace('/', '-')}"`;
    const notFound = () => reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not found\n');
    if (!/^[0-9a-f]{32}$/.test(req.params.hash)) return notFound();
    // Files are kept by the hash of their bytes, once for every calendar: a calendar serves only
    // the files of its own images, so one calendar's files are never read under another's prefix.
    if (!(await services.media.heldHere(req.params.hash))) return notFound();
    const ifNoneMatch = req.headers['if-none-match'];
    const found = await services.media.read(key);
    if (!found) return notFound();
    reply.header('cache-control', IMMUTABLE).header('etag', etag).header('x-content-type-options', 'nosniff');
    if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return reply.code(304).send();
    return reply.code(200).header('content-type', found.mime).header('content-length', String(found.bytes.length)).send(found.bytes);
  };
  app.route({ method: ['GET', 'HEAD'], url: `${MEDIA_PATH}/:hash/:file`, handler: answer });
}
