/**
 * File uploads as request parameters (issue 28, the admin API's imports): a raw `text/calendar`
 * body becomes the parameter `file` (its text); a `multipart/form-data` body (parsed by Node's own
 * `Response.formData()`, undici) becomes one parameter per field, a file field's text under its
 * name and the first file's name under `filename`. Bodies up to {@link UPLOAD_LIMIT} bytes (413
 * `rest_payload_too_large` beyond); other bodies keep the general limit.
 *
 * @example
 *   registerUploadParsers(app); // POST …/imports with Content-Type: text/calendar → args.file
 */
import type { FastifyInstance } from 'fastify';
import { invalidParams } from '../domain/errors.js';

/** The largest upload accepted (10 MiB). */
export const UPLOAD_LIMIT = 10 * 1024 * 1024;

export function registerUploadParsers(app: FastifyInstance): void {
  app.addContentTypeParser(['text/calendar'], { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT }, (_req, body, done) => {
    done(null, { file: (body as Buffer).toString('utf8') });
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT }, async (req: { headers: Record<string, unknown> }, body: Buffer) => {
    let form: Array<[string, string | File]>;
    try {
      const parsed = await new Response(new Uint8Array(body), { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      form = [];
      parsed.forEach((value, name) => form.push([name, value]));
    } catch {
      throw invalidParams({ file: 'The multipart/form-data body does not parse.' });
    }
    const out: Record<string, string> = {};
    for (const [name, value] of form) {
      if (name in out) continue;
      if (typeof value === 'string') out[name] = value;
      else {
        out[name] = await value.text();
        out.filename ??= value.name;
      }
    }
    return out;
  });
}
