/**
 * File uploads as request parameters (the admin API's imports): a raw `text/calendar`
 * body becomes the parameter `file` (its text); a `multipart/form-data` body (parsed by Node's own
 * `Response.formData()`, undici) becomes one parameter per field, a file field's text under its
 * name and the first file's name under `filename`; an `image/*` file field or raw `image/*` body
 * becomes an {@link UploadedFile}. Bodies up to {@link UPLOAD_LIMIT} bytes (images: MEDIA_MAX_BYTES; 413
 * `rest_payload_too_large` beyond); other bodies keep the general limit.
 *
 * @example
 *   registerUploadParsers(app); // POST …/imports with Content-Type: text/calendar → args.file
 */
import type { FastifyInstance } from 'fastify';
import { invalidParams } from '../domain/errors.js';

/** The largest upload accepted (10 MiB). */
export const UPLOAD_LIMIT = 10 * 1024 * 1024;

/**
 * An uploaded image's bytes, as a parameter (the media library, docs/media.md): a raw `image/*`
 * body becomes the parameter `file`; a multipart file field sent as `image/*` keeps its bytes
 * (other file fields are read as text, as the imports want them).
 */
export class UploadedFile {
  readonly bytes: Buffer;
  readonly filename: string;
  readonly type: string;

  constructor(bytes: Buffer, filename: string, type: string) {
    this.bytes = bytes;
    this.filename = filename;
    this.type = type;
  }
}

/** Room beyond the largest image for a multipart body's other fields and boundaries. */
export const MULTIPART_SLACK = 1024 * 1024;

/** `filename` of a `Content-Disposition` header (`attachment; filename="poster.jpg"`), if any. */
function dispositionFilename(header: unknown): string {
  const text = typeof header === 'string' ? header : '';
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(text);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      /* the plain form below */
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(text);
  return plain ? (plain[1] ?? plain[2] ?? '') : '';
}

/** `mediaMaxBytes`: the largest image upload (MEDIA_MAX_BYTES); image bodies may be that large (plus room for a form's fields). */
export function registerUploadParsers(app: FastifyInstance, options: { mediaMaxBytes?: number } = {}): void {
  const mediaLimit = (options.mediaMaxBytes ?? UPLOAD_LIMIT) + MULTIPART_SLACK;
  // A raw image body: the media library's upload (`Content-Type: image/png`, the name in Content-Disposition or ?filename=).
  app.addContentTypeParser(/^image\/[a-z0-9.+-]+$/i, { parseAs: 'buffer', bodyLimit: mediaLimit }, (req, body, done) => {
    done(null, { file: new UploadedFile(body as Buffer, dispositionFilename(req.headers['content-disposition']), String(req.headers['content-type'])) });
  });
  app.addContentTypeParser(['text/calendar'], { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT }, (_req, body, done) => {
    done(null, { file: (body as Buffer).toString('utf8') });
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: Math.max(UPLOAD_LIMIT, mediaLimit) }, async (req: { headers: Record<string, unknown> }, body: Buffer) => {
    let form: Array<[string, string | File]>;
    try {
      const parsed = await new Response(new Uint8Array(body), { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      form = [];
      parsed.forEach((value, name) => form.push([name, value]));
    } catch {
      throw invalidParams({ file: 'The multipart/form-data body does not parse.' });
    }
    const out: Record<string, string | string[] | UploadedFile> = {};
    for (const [name, value] of form) {
      // `name[]` fields (checkboxes: the submission form's categories) are lists, as a form body's are.
      if (name.endsWith('[]') && name.length > 2 && typeof value === 'string') {
        const list = out[name.slice(0, -2)];
        if (Array.isArray(list)) list.push(value);
        else if (list === undefined) out[name.slice(0, -2)] = [value];
        continue;
      }
      if (name in out) continue;
      if (typeof value === 'string') out[name] = value;
      else if (/^image\//i.test(value.type)) {
        // An empty file field (a form sent without choosing a file) is no parameter.
        if (value.size > 0) out[name] = new UploadedFile(Buffer.from(await value.arrayBuffer()), value.name, value.type);
      } else {
        out[name] = await value.text();
        out.filename ??= value.name;
      }
    }
    return out;
  });
}
