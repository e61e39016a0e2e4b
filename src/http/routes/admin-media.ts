/**
 * `{REST_ROOT}/calendar/admin/v1/media`: the media library (docs/media.md).
 *
 * - `POST /media`: upload an image, as a raw body (`Content-Type: image/png`, the name in
 *   `Content-Disposition: attachment; filename="…"` or `?filename=`) or a `multipart/form-data`
 *   field `file` (with `alt_text`); 201 with the item. 413 `rest_upload_file_too_big` /
 *   `rest_upload_too_many_pixels`, 415 `rest_upload_invalid_type` / `rest_upload_svg_refused`,
 *   400 `rest_upload_no_data` / `rest_upload_unreadable`.
 * - `GET /media` (`search`, `page`, `per_page` ≤ 100; `X-WP-Total`/`X-WP-TotalPages`), newest first.
 * - `GET`/`PATCH` (`alt_text`)/`DELETE /media/{id}`.
 *
 * Authors and up (`upload_files`), as WordPress' uploads; changing or deleting another's upload
 * needs `edit_others_posts` (editors and up). 401 without credentials, 403 otherwise.
 */
import type { Services } from '../../domain/services.js';
import { apiError } from '../../domain/errors.js';
import { can } from '../../domain/permissions.js';
import { isPositiveInt } from '../../domain/values.js';
import { MAX_ALT, toMediaJson } from '../../domain/media/index.js';
import type { ImageRow } from '../../store/schema.js';
import { UploadedFile } from '../../web/uploads.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { pageArg } from './common.js';

const mayUpload = (ctx: EndpointContext) => can(ctx.viewer, 'upload_files');

export function adminMediaRoutes(services: Services): RouteDecl[] {
  const media = services.media;
  const altArg: ArgSpec = { type: 'string', description: `The image's alternative text (at most ${MAX_ALT} characters; longer is cut)` };
  const idArg: ArgSpec = { type: 'integer', description: 'The media item ID', required: true, in: 'path' };
  const load = async (ctx: Omit<EndpointContext, 'record'>) => (await media.get(Number(ctx.path.id))) ?? null;
  const mayEdit = (ctx: EndpointContext<ImageRow>) => mayUpload(ctx) && (ctx.record === null || media.canEdit(ctx.viewer, ctx.record));
  const mustHave = (ctx: EndpointContext<ImageRow>): ImageRow => {
    if (!ctx.record) throw apiError('rest_media_not_found');
    return ctx.record;
  };
  return [
    route('/media', [
      endpoint({
        methods: ['GET'],
        args: {
          search: { type: 'string', description: 'Only images whose file name or alt text contains this' },
          url: { type: 'string', description: 'Only the image with this URL (its full size’s)' },
          page: pageArg(),
          per_page: { default: '20', type: 'integer', description: 'Items per page (at most 100)', validate: (v) => isPositiveInt(v) },
        },
        permission: mayUpload,
        docs: {
          responses: { '200': { description: 'Uploaded images, newest first: id, url, alt_text, filename, mime_type, width, height, filesize, sizes' }, '403': { description: 'Cannot upload files' } },
        },
        handler: async (ctx) => {
          const perPage = Math.min(100, Number(ctx.args.per_page));
          const { rows, total } = await media.list({ search: ctx.args.search, url: ctx.args.url, page: Number(ctx.args.page), perPage });
          return { body: rows.map(toMediaJson), headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
      endpoint({
        methods: ['POST'],
        args: {
          file: {
            in: 'body',
            description: `The image: a raw image/* body, or a multipart/form-data file field (JPEG, PNG, GIF, WebP or AVIF; at most MEDIA_MAX_BYTES, ${services.config.mediaMaxBytes} bytes)`,
          },
          filename: { type: 'string', description: 'The file’s name (raw bodies: also Content-Disposition)' },
          alt_text: altArg,
        },
        permission: mayUpload,
        docs: {
          responses: {
            '201': { description: 'The media item' },
            '400': { description: 'rest_upload_no_data, rest_upload_unreadable' },
            '413': { description: 'rest_upload_file_too_big, rest_upload_too_many_pixels' },
            '415': { description: 'rest_upload_invalid_type, rest_upload_svg_refused' },
          },
        },
        handler: async (ctx) => {
          const file: unknown = ctx.args.file;
          const bytes = file instanceof UploadedFile ? file.bytes : typeof file === 'string' ? Buffer.from(file, 'utf8') : undefined;
          if (!bytes) throw apiError('rest_upload_no_data');
          const filename = typeof ctx.args.filename === 'string' && ctx.args.filename !== '' ? ctx.args.filename : file instanceof UploadedFile ? file.filename : '';
          const row = await media.upload({ bytes, filename, alt: ctx.args.alt_text }, ctx.viewer);
          return { status: 201, body: toMediaJson(row), headers: { location: ctx.links.rest(`media/${row.id}`) } };
        },
      }),
    ]),
    route('/media/{id}', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        load,
        permission: mayUpload,
        docs: { responses: { '200': { description: 'The media item' }, '404': { description: 'No such media item' } } },
        handler: async (ctx) => ({ body: toMediaJson(mustHave(ctx)) }),
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { id: idArg, alt_text: altArg },
        load,
        permission: mayEdit,
        docs: { responses: { '200': { description: 'The media item, changed' }, '403': { description: 'Another author’s upload' }, '404': { description: 'No such media item' } } },
        handler: async (ctx) => {
          const row = mustHave(ctx);
          if (ctx.args.alt_text === undefined) return { body: toMediaJson(row) };
          return { body: toMediaJson(await media.setAlt(row, ctx.args.alt_text)) };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: { id: idArg, force: { type: 'boolean', description: 'Accepted for WordPress clients (media items are never trashed)' } },
        load,
        permission: mayEdit,
        docs: { responses: { '200': { description: '{ deleted: true, previous }' }, '403': { description: 'Another author’s upload' }, '404': { description: 'No such media item' } } },
        handler: async (ctx) => {
          const row = mustHave(ctx);
          await media.remove(row);
          return { body: { deleted: true, previous: toMediaJson(row) } };
        },
      }),
    ]),
  ];
}
