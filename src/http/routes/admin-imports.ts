/**
 * `{REST_ROOT}/calendar/admin/v1/imports` and `/export`: imports as background jobs and
 * the calendar's exports as downloads, what `events-calendar import` and `export` do:
 *
 * - `POST /imports` queues an import and answers 202 with it (`Location`: its URL): an `.ics`
 *   upload (`file`: a raw `text/calendar` body, a `multipart/form-data` file field, or the text in
 *   JSON; up to 10 MiB), an `.ics` URL (`url`), or a The Events Calendar site (`type=tec`, `from`:
 *   its REST root, with `namespace`, `user` + `app_password`, `author`, `author_role`: network
 *   administrators only, as they alone make accounts); `status`
 *   and `strict` for ics, `dry_run` for both. URLs on loopback, private or reserved addresses are
 *   refused (400) unless WEBHOOKS_ALLOW_PRIVATE=true, as webhook targets;
 * - `GET /imports` (newest first, paged) and `GET /imports/{id}`: status (queued, running, done,
 *   failed), progress (phase, done, total), counts (created, updated, unchanged, skipped, failed,
 *   per kind), messages (failures and skips with their reasons, warnings), error, timestamps;
 * - `POST /imports/{id}/venues` `{location?}`: create venues from the result's review list (the
 *   free-text locations that matched no venue), one or all, and give them to the import's events;
 * - `GET /export?format=json|ics`: the JSON export (every record and status, users without
 *   secrets; restorable with `import json`) or the events as iCalendar (`start_date`, `end_date`,
 *   `category` to narrow it; named after the site; imported events keep their UID), as a download
 *   (`Content-Disposition: attachment`).
 *
 * Administrators only (401 without credentials, 403 otherwise).
 */
import type { Services } from '../../domain/services.js';
import { type ImportRequest } from '../../domain/imports.js';
import { apiError, invalidParams } from '../../domain/errors.js';
import { isPositiveInt } from '../../domain/values.js';
import { isRole, managesAccounts } from '../../domain/permissions.js';
import type { CalendarExports } from '../../faces.js';
import { checkUrl } from '../../webhooks/validate.js';
import { UPLOAD_LIMIT } from '../../web/uploads.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type Reply, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { pageArg } from './common.js';

const isAdministrator = (ctx: EndpointContext) => ctx.viewer.role === 'administrator';
const notFound = () => apiError('rest_import_invalid_id');
const isDay = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? true : 'A day as YYYY-MM-DD.');

export function adminImportRoutes(services: Services, exports: CalendarExports): RouteDecl[] {
  const queue = services.imports.queue;
  const allowPrivate = services.config.webhooksAllowPrivate;
  const urlArg = (description: string): ArgSpec => ({
    type: 'string',
    description: `${description}. Loopback, private and link-local targets are refused unless WEBHOOKS_ALLOW_PRIVATE=true.`,
    validate: (v) => checkUrl(v, allowPrivate),
  });
  return [
    route('/imports', [
      endpoint({
        methods: ['GET'],
        args: { page: pageArg(), per_page: { default: '20', type: 'integer', description: 'Imports per page (at most 100)', validate: (v) => isPositiveInt(v) } },
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'Imports, newest first' }, '403': { description: 'Not an administrator' } } },
        handler: async (ctx) => {
          const perPage = Math.min(100, Number(ctx.args.per_page));
          const { items, total } = await queue.list(Number(ctx.args.page), perPage);
          return { body: items, headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
      endpoint({
        methods: ['POST'],
        args: {
          type: { type: 'string', enum: ['ics', 'tec'], description: 'ics (an .ics upload or URL; the default) or tec (a The Events Calendar site)' },
          file: {
            type: 'string',
            description: `ics: the .ics file (a raw text/calendar body, a multipart/form-data file field, or its text; at most ${UPLOAD_LIMIT} bytes)`,
            validate: (v) => (typeof v === 'string' && v.length <= UPLOAD_LIMIT ? true : `At most ${UPLOAD_LIMIT} bytes.`),
          },
          filename: { type: 'string', description: 'ics: the uploaded file’s name (shown in the history; multipart uploads send it)' },
          url: urlArg('ics: the URL of an .ics file or feed'),
          status: { type: 'string', enum: ['publish', 'draft', 'pending', 'private'], description: 'ics: status of the events created (default publish)' },
          strict: { type: 'boolean', description: 'ics: all or nothing (stop before writing if an event would be skipped)' },
          from: urlArg("tec: the site's REST root, e.g. https://example.org/wp-json"),
          namespace: {
            type: 'string',
            description: "tec: the calendar's namespace at the source (default tribe/events/v1)",
            validate: (v) => /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/.test(String(v).replace(/^\/+|\/+$/g, '')),
          },
          user: { type: 'string', description: 'tec: a source user who may read unpublished events (with app_password)' },
          app_password: { type: 'string', description: 'tec: an application password of user (stored encrypted until the import ends; never answered)' },
          author: { type: 'string', description: 'tec: the local login made the author of everything imported (instead of users for the authors)' },
          author_role: {
            type: 'string',
            description:
              'tec: role of the users created for authors (default subscriber; in a calendar other than the default one, their role there, the account’s own being subscriber). Network administrators only (403 otherwise): anyone else’s import creates no users',
            validate: (v) => isRole(String(v)) || 'Not a role.',
          },
          dry_run: { type: 'boolean', description: 'Read everything and report what would be created, updated or skipped; write nothing' },
        },
        permission: isAdministrator,
        docs: {
          responses: {
            '202': { description: 'The queued import (status queued); follow it at Location' },
            '400': { description: 'No source or two, a URL refused, not iCalendar' },
            '413': { description: 'The upload is too large' },
          },
        },
        handler: async (ctx) => {
          const queued = await queue.enqueue(ctx.viewer, importRequestOf(ctx.args));
          return { status: 202, body: queued, headers: { location: ctx.links.rest(`imports/${queued.id}`) } };
        },
      }),
    ]),
    route('/imports/{id}', [
      endpoint({
        methods: ['GET'],
        args: { id: { type: 'integer', description: 'The import ID', required: true, in: 'path' } },
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: 'The import: status, progress { phase, done, total }, counts, messages, error, created_gmt, started_gmt, finished_gmt' },
            '404': { description: 'No such import' },
          },
        },
        handler: async (ctx) => {
          const found = await queue.get(Number(ctx.path.id));
          if (!found) throw notFound();
          return { body: found, headers: { 'cache-control': 'no-store' } };
        },
      }),
    ]),
    route('/imports/{id}/venues', [
      endpoint({
        methods: ['POST'],
        args: {
          id: { type: 'integer', description: 'The import ID', required: true, in: 'path' },
          location: { type: 'string', description: 'The location (from venues_for_review) to create a venue of; without it, every one not created yet' },
        },
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: 'The review list, each created location with its venue id; its events that had no venue now have it' },
            '400': { description: 'A location not in the review list' },
            '404': { description: 'No such import, or one not ended' },
          },
        },
        handler: async (ctx) => {
          const review = await services.imports.createReviewedVenues(ctx.viewer, Number(ctx.path.id), ctx.args.location === undefined ? undefined : String(ctx.args.location));
          if (!review) throw notFound();
          return { body: review };
        },
      }),
    ]),
    route('/export', [
      endpoint({
        methods: ['GET'],
        args: {
          format: { type: 'string', enum: ['json', 'ics'], default: 'json', description: 'json (everything, restorable with `import json`) or ics (the events)' },
          start_date: { type: 'string', description: 'ics: only events that end on or after this day (YYYY-MM-DD)', validate: isDay },
          end_date: { type: 'string', description: 'ics: only events that start on or before this day (YYYY-MM-DD)', validate: isDay },
          category: { type: 'string', description: 'ics: only events of this category (its id or slug)' },
        },
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: 'The export as a download (Content-Disposition: attachment); the iCalendar one is named after the site (X-WR-CALNAME, NAME)' },
            '400': { description: 'A bad date, a range that ends before it starts, an unknown category, or a filter with the JSON export' },
            '403': { description: 'Not an administrator' },
          },
        },
        handler: async (ctx) => exportAnswer(services, exports, ctx),
      }),
    ]),
  ];
}

/** The import a `POST /imports` asks for: a TEC site, or an .ics upload or URL (one of them). */
function importRequestOf(a: EndpointContext['args']): ImportRequest {
  const type = a.type ?? (a.from !== undefined ? 'tec' : 'ics');
  if (type === 'tec') {
    if (a.from === undefined) throw invalidParams({ from: 'A tec import needs from (the site’s REST root).' });
    if ((a.user === undefined) !== (a.app_password === undefined)) throw invalidParams({ app_password: 'user and app_password go together.' });
    return {
      kind: 'tec',
      from: String(a.from),
      ...(a.namespace !== undefined ? { namespace: String(a.namespace).replace(/^\/+|\/+$/g, '') } : {}),
      ...(a.user !== undefined ? { user: String(a.user), appPassword: String(a.app_password) } : {}),
      ...(a.author !== undefined ? { author: String(a.author) } : {}),
      ...(a.author_role !== undefined ? { authorRole: String(a.author_role) } : {}),
      dryRun: Boolean(a.dry_run),
    };
  } else {
    if ((a.file === undefined) === (a.url === undefined)) throw invalidParams({ file: 'Give an .ics file (file) or a URL (url), one of them.' });
    if (a.file !== undefined && !/BEGIN:VCALENDAR/i.test(String(a.file))) throw invalidParams({ file: 'This is not an iCalendar file (no BEGIN:VCALENDAR).' });
    const name =
      String(a.filename ?? 'upload.ics')
        .replace(/[\\/\r\n]/g, '_')
        .slice(0, 200) || 'upload.ics';
    return {
      kind: 'ics',
      ...(a.file !== undefined ? { upload: { name, text: String(a.file) } } : { url: String(a.url) }),
      ...(a.status !== undefined ? { status: String(a.status) } : {}),
      strict: Boolean(a.strict),
      dryRun: Boolean(a.dry_run),
    };
  }
}

/** `GET /export`: the JSON backup or the (filtered) iCalendar export, as a download. */
async function exportAnswer(services: Services, exports: CalendarExports, ctx: EndpointContext): Promise<Reply> {
  const day = services.clock.nowGmt().slice(0, 10);
  const json = ctx.args.format !== 'ics';
  const a = ctx.args;
  const filtered = a.start_date !== undefined || a.end_date !== undefined || a.category !== undefined;
  // The JSON export is a backup: a partial one would restore a partial calendar.
  if (json && filtered) throw invalidParams({ format: 'start_date, end_date and category filter the iCalendar export (format=ics) only.' });
  if (a.start_date !== undefined && a.end_date !== undefined && String(a.end_date) < String(a.start_date)) throw invalidParams({ end_date: 'The range ends before it starts.' });
  let categoryId: number | undefined;
  if (a.category !== undefined) {
    const ref = String(a.category);
    const term = await services.categories.find(/^\d+$/.test(ref) ? Number(ref) : ref);
    if (!term) throw invalidParams({ category: 'No such category.' });
    categoryId = Number(term.id);
  }
  const filter = {
    ...(a.start_date !== undefined ? { start: String(a.start_date) } : {}),
    ...(a.end_date !== undefined ? { end: String(a.end_date) } : {}),
    ...(categoryId !== undefined ? { categoryId } : {}),
  };
  // Accounts are one login across the service: the backup carries them all only for whoever may list them.
  const text = json ? JSON.stringify(await exports.json({ everyAccount: managesAccounts(ctx.viewer) })) + '\n' : await exports.ics(filter);
  return {
    raw: true,
    body: text,
    headers: {
      'content-type': json ? 'application/json; charset=UTF-8' : 'text/calendar; charset=UTF-8',
      'content-disposition': `attachment; filename="calendar-${day}.${json ? 'json' : 'ics'}"`,
      'cache-control': 'no-store',
    },
  };
}
