/**
 * Community submissions over REST, declared like every other route (so the namespace
 * indexes and `/doc` list them):
 *
 * - `{REST_ROOT}/calendar/submissions/v1`: `GET /challenge` (the ALTCHA challenge, when
 *   SUBMISSIONS_POW=on), `POST /submissions` (201: the submission and its private `token`), `GET`,
 *   `PUT` (edit while pending or when changes were asked for) and `DELETE` (withdraw)
 *   `/submissions/{token}`;
 * - in `calendar/admin/v1` (editors and administrators): `GET /submissions` (the queue: `status`,
 *   `flagged`, `email`, paging), `GET /submissions/{id}` (with its log), `POST
 *   /submissions/{id}/approve` (`publish_at`, `event` edits, `merge_venue`, `merge_organizers`),
 *   `/reject` and `/request-changes` (`reason`), `POST /submissions/bulk`, `GET /submissions/log`;
 *   administrators only: `GET` and `DELETE /submitter-data?email=` (export, erase).
 *
 * With SUBMISSIONS=off none of them is registered (404 everywhere).
 */
import { missingParams } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { SUBMISSION_STATUSES } from '../../domain/submissions/index.js';
import { localeOf } from '../../domain/submissions/locale.js';
import { isPositiveInt } from '../../domain/values.js';
import { listHeaders } from '../paging.js';
import { anyone, endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { pageArg } from './common.js';
import { docRoutes } from './doc.js';
import { namespaceRoutes } from './namespace.js';

/** The namespace of the public submission routes. */
export const SUBMISSIONS_NAMESPACE = 'calendar/submissions/v1';

const fieldArgs = (creating: boolean): Record<string, ArgSpec> => ({
  title: { type: 'string', description: 'The event title (at most 200 characters)', required: creating },
  description: { type: 'string', description: 'The description: p, br, strong, em, a, ul, ol, li, blockquote are kept, other markup dropped' },
  start_date: { type: 'string', description: 'The start (Y-m-d H:i, or any date the event API reads), in `timezone`', required: creating },
  end_date: { type: 'string', description: 'The end', required: creating },
  timezone: { type: 'string', description: 'The time zone (IANA name); the site’s by default' },
  all_day: { type: 'boolean', description: 'Whether the event lasts all day' },
  venue: { docType: 'object', description: 'An existing venue’s ID, or a new venue {venue, address, city, province, zip, country, phone, website} (stored pending)' },
  organizer: { docType: 'object', description: 'An existing organizer’s ID, or a new organizer {organizer, email, phone, website} (stored pending)' },
  categories: { type: 'array', items: { type: 'integer' }, maxItems: 20, description: 'IDs of existing event categories' },
  image: { type: 'string', description: 'An image URL (http or https)' },
  cost: { type: 'string', description: 'The cost' },
  website: { type: 'string', description: 'The event website (http or https)' },
});

const tokenArg: ArgSpec = { type: 'string', description: 'The private token given when the submission was made', required: true, in: 'path' };

export function submissionRoutes(services: Services): RouteDecl[] {
  const submissions = services.submissions;
  const routes: RouteDecl[] = [];
  routes.push(...namespaceRoutes(services, () => routes));
  routes.push(...docRoutes(services, () => routes));
  if (submissions.pow) {
    const pow = submissions.pow;
    routes.push(
      route('/challenge', [
        endpoint({
          methods: ['GET'],
          args: {},
          permission: anyone,
          docs: {
            responses: {
              '200': {
                description:
                  'An ALTCHA challenge (algorithm, challenge, maxnumber, salt, signature): find n ≤ maxnumber with SHA-256(salt + n) = challenge, send base64(JSON {algorithm, challenge, number, salt, signature}) as `altcha`',
              },
            },
          },
          handler: async () => ({ body: await pow.challenge(), headers: { 'cache-control': 'no-store' } }),
        }),
      ]),
    );
  }
  routes.push(
    route('/submissions', [
      endpoint({
        methods: ['POST'],
        args: {
          ...fieldArgs(true),
          name: { type: 'string', description: 'Your name (private: shown to moderators only); a signed-in user’s own by default' },
          email: { type: 'string', description: 'Your e-mail address (private); a signed-in user’s own by default' },
          altcha: { type: 'string', description: 'The solved proof of work (base64 JSON), when SUBMISSIONS_POW=on' },
        },
        permission: anyone,
        docs: {
          responses: {
            '201': { description: 'The submission (pending) and its private `token` and `link`: keep them to see, edit or withdraw it' },
            '400': { description: 'A field is missing or invalid, too many links, or the proof of work is missing' },
            '401': { description: 'SUBMISSIONS=registered and not signed in' },
            '429': { description: 'Too many submissions from this address or e-mail (Retry-After)' },
          },
        },
        handler: async (ctx) => {
          const { token, submission } = await submissions.create(ctx.args, {
            viewer: ctx.viewer,
            ip: ctx.client?.ip ?? '',
            locale: localeOf(ctx.client?.acceptLanguage),
            ...(ctx.args.altcha !== undefined ? { pow: ctx.args.altcha } : {}),
          });
          return {
            status: 201,
            body: { ...submission, token, link: `${services.links.siteUrl}/events/submit/status/${token}` },
            headers: { location: ctx.links.rest(`submissions/${token}`), 'cache-control': 'no-store' },
          };
        },
      }),
    ]),
    route('/submissions/{token}', [
      endpoint({
        methods: ['GET'],
        args: { token: tokenArg },
        permission: anyone,
        docs: { responses: { '200': { description: 'The submission: status, reason, the event as submitted' }, '404': { description: 'No submission with this token' } } },
        handler: async (ctx) => ({ body: await submissions.view(String(ctx.path.token)), headers: { 'cache-control': 'no-store' } }),
      }),
      endpoint({
        methods: ['PUT', 'PATCH'],
        args: { token: tokenArg, ...fieldArgs(false) },
        permission: anyone,
        docs: { responses: { '200': { description: 'The edited submission (pending again)' }, '409': { description: 'Already decided or withdrawn' } } },
        handler: async (ctx) => {
          const input: Record<string, unknown> = {};
          for (const k of Object.keys(fieldArgs(false))) if (ctx.sent.has(k)) input[k] = ctx.args[k];
          return { body: await submissions.edit(String(ctx.path.token), input), headers: { 'cache-control': 'no-store' } };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: { token: tokenArg },
        permission: anyone,
        docs: { responses: { '200': { description: 'The withdrawn submission (its event trashed)' }, '409': { description: 'Already decided' } } },
        handler: async (ctx) => ({ body: await submissions.withdraw(String(ctx.path.token)) }),
      }),
    ]),
  );
  return routes;
}

const isModerator = (ctx: EndpointContext) => ctx.viewer.caps.has('edit_others_tribe_events') && ctx.viewer.caps.has('publish_tribe_events');
const isAdministrator = (ctx: EndpointContext) => ctx.viewer.role === 'administrator';

const idArg: ArgSpec = { type: 'integer', description: 'The submission ID', required: true, in: 'path' };
const reasonArg = (required: boolean): ArgSpec => ({
  type: 'string',
  description: 'Why (shown to the submitter through their link and e-mail)',
  required,
  validate: (v) => typeof v === 'string' && v.length <= 5000,
});
const perPageArg: ArgSpec = { default: '20', type: 'integer', description: 'Items per page (at most 100)', validate: (v) => isPositiveInt(v) };
const emailArg: ArgSpec = { type: 'string', description: 'The submitter’s e-mail address', required: true, validate: (v) => typeof v === 'string' && v.trim() !== '' && v.length <= 200 };

/** Approval options from the arguments. */
function approvalOf(args: Record<string, any>): Parameters<Services['submissions']['approve']>[2] {
  const out: NonNullable<Parameters<Services['submissions']['approve']>[2]> = {};
  if (typeof args.publish_at === 'string' && args.publish_at.trim() !== '') out.publishAt = args.publish_at.trim();
  if (args.event && typeof args.event === 'object' && !Array.isArray(args.event)) {
    const allowed = ['title', 'description', 'start_date', 'end_date', 'timezone', 'all_day', 'cost', 'website', 'categories', 'image', 'venue', 'organizer'];
    out.edits = Object.fromEntries(Object.entries(args.event as Record<string, unknown>).filter(([k]) => allowed.includes(k)));
  }
  if (args.merge_venue !== undefined) out.mergeVenue = Number(args.merge_venue);
  if (Array.isArray(args.merge_organizers)) out.mergeOrganizers = (args.merge_organizers as unknown[]).map(Number);
  if (typeof args.reason === 'string') out.reason = args.reason;
  return out;
}

const approveArgs: Record<string, ArgSpec> = {
  publish_at: { type: 'string', description: 'Publish at this time (site time zone unless an offset is given) instead of now' },
  event: { type: 'object', description: 'Event fields to change before approving (edit then approve), as in an event update' },
  merge_venue: { type: 'integer', description: 'Merge the submission’s new venue into this existing venue (the new one is trashed)' },
  merge_organizers: { type: 'array', items: { type: 'integer' }, description: 'Merge the submission’s new organizers into these existing organizers' },
  reason: reasonArg(false),
};

/** The moderation routes, in `calendar/admin/v1`. */
export function adminSubmissionRoutes(services: Services): RouteDecl[] {
  const submissions = services.submissions;
  const one = async (ctx: EndpointContext, action: 'approve' | 'reject' | 'request_changes', id: number) => {
    if (action === 'approve') return submissions.approve(ctx.viewer, id, approvalOf(ctx.args));
    const reason = String(ctx.args.reason ?? '').trim();
    if (reason === '') throw missingParams(['reason']);
    return action === 'reject' ? submissions.reject(ctx.viewer, id, reason) : submissions.requestChanges(ctx.viewer, id, reason);
  };
  const page = (ctx: EndpointContext) => ({ page: Number(ctx.args.page), perPage: Math.min(100, Number(ctx.args.per_page)) });
  return [
    route('/submissions', [
      endpoint({
        methods: ['GET'],
        args: {
          status: {
            type: 'array',
            items: { type: 'string' },
            description: `Only these states (${SUBMISSION_STATUSES.join(', ')}); pending and changes_requested by default`,
            validate: (v) => (Array.isArray(v) ? v : String(v).split(',')).every((s) => s === 'any' || (SUBMISSION_STATUSES as readonly string[]).includes(String(s).trim())),
          },
          flagged: { type: 'boolean', description: 'Only submissions flagged (true: likely duplicates) or not (false)' },
          email: { type: 'string', description: 'Only this submitter’s submissions' },
          page: pageArg(),
          per_page: perPageArg,
        },
        permission: isModerator,
        docs: {
          responses: {
            '200': { description: 'The queue, newest first, with the submitter’s identity, flags and the event' },
            '401': { description: 'Not logged in' },
            '403': { description: 'Not an editor or administrator' },
          },
        },
        handler: async (ctx) => {
          const raw =
            ctx.args.status === undefined
              ? ['pending', 'changes_requested']
              : (Array.isArray(ctx.args.status) ? ctx.args.status : String(ctx.args.status).split(',')).map((s: unknown) => String(s).trim());
          const statuses = raw.includes('any') ? undefined : raw;
          const { page: p, perPage } = page(ctx);
          const { items, total } = await submissions.list({
            ...(statuses ? { statuses } : {}),
            ...(ctx.args.flagged !== undefined ? { flagged: Boolean(ctx.args.flagged) } : {}),
            ...(ctx.args.email ? { email: String(ctx.args.email) } : {}),
            page: p,
            perPage,
          });
          return { body: items, headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
    ]),
    route('/submissions/log', [
      endpoint({
        methods: ['GET'],
        args: { submission: { type: 'integer', description: 'Only this submission’s entries' }, page: pageArg(), per_page: perPageArg },
        permission: isModerator,
        docs: { responses: { '200': { description: 'The moderation log, newest first: who, when, what, why' } } },
        handler: async (ctx) => {
          const { page: p, perPage } = page(ctx);
          const { items, total } = await submissions.log({ ...(ctx.args.submission !== undefined ? { submissionId: Number(ctx.args.submission) } : {}), page: p, perPage });
          return { body: items, headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
    ]),
    route('/submissions/bulk', [
      endpoint({
        methods: ['POST'],
        args: {
          ids: { type: 'array', items: { type: 'integer' }, maxItems: 100, required: true, description: 'The submissions' },
          action: { type: 'string', enum: ['approve', 'reject', 'request_changes'], required: true, description: 'What to do with each' },
          reason: reasonArg(false),
          publish_at: approveArgs.publish_at!,
        },
        permission: isModerator,
        docs: { responses: { '200': { description: 'One result per submission: {id, ok, status} or {id, ok: false, error}' } } },
        handler: async (ctx) => {
          const results = [];
          for (const id of ctx.args.ids as number[]) {
            try {
              const done = await one(ctx, ctx.args.action, Number(id));
              results.push({ id: Number(id), ok: true, status: done.status });
            } catch (e) {
              const err = e as { code?: string; message?: string };
              if (err.code === 'rest_missing_callback_param') throw e;
              results.push({ id: Number(id), ok: false, error: { code: err.code ?? 'error', message: err.message ?? String(e) } });
            }
          }
          return { body: results };
        },
      }),
    ]),
    route('/submissions/{id}', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        permission: isModerator,
        docs: { responses: { '200': { description: 'The submission with its log' }, '404': { description: 'No such submission' } } },
        handler: async (ctx) => ({ body: await submissions.get(Number(ctx.path.id)) }),
      }),
    ]),
    route('/submissions/{id}/approve', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg, ...approveArgs },
        permission: isModerator,
        docs: {
          responses: { '200': { description: 'The approved submission: its event published (or scheduled), new venue and organizers approved or merged' }, '409': { description: 'Already decided' } },
        },
        handler: async (ctx) => ({ body: await one(ctx, 'approve', Number(ctx.path.id)) }),
      }),
    ]),
    route('/submissions/{id}/reject', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg, reason: reasonArg(true) },
        permission: isModerator,
        docs: { responses: { '200': { description: 'The rejected submission (its event trashed; the reason shown to the submitter)' }, '409': { description: 'Already decided' } } },
        handler: async (ctx) => ({ body: await one(ctx, 'reject', Number(ctx.path.id)) }),
      }),
    ]),
    route('/submissions/{id}/request-changes', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg, reason: reasonArg(true) },
        permission: isModerator,
        docs: { responses: { '200': { description: 'The submission, waiting for the submitter’s changes' }, '409': { description: 'Not pending' } } },
        handler: async (ctx) => ({ body: await one(ctx, 'request_changes', Number(ctx.path.id)) }),
      }),
    ]),
    route('/submitter-data', [
      endpoint({
        methods: ['GET'],
        args: { email: emailArg },
        permission: isAdministrator,
        docs: {
          responses: { '200': { description: 'Every submission of this submitter with their identity and the moderation log (a privacy export)' }, '403': { description: 'Not an administrator' } },
        },
        handler: async (ctx) => ({ body: await submissions.exportSubmitter(String(ctx.args.email)), headers: { 'cache-control': 'no-store' } }),
      }),
      endpoint({
        methods: ['DELETE'],
        args: { email: emailArg },
        permission: isAdministrator,
        docs: { responses: { '200': { description: '{erased: N}: the submitter’s name, e-mail and address erased from N submissions' } } },
        handler: async (ctx) => ({ body: { erased: await submissions.eraseSubmitter(ctx.viewer, String(ctx.args.email)) } }),
      }),
    ]),
  ];
}
