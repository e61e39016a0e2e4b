/**
 * `{REST_ROOT}/calendar/admin/v1/events/{id}/send-back` `{note}`: "send back with a note" — a
 * contributor's event pending review goes back to draft and the contributor is e-mailed the note
 * (domain/review-mail.ts). For those who publish events and edit others' (editors,
 * administrators): 401 without credentials, 403 otherwise; 404 for an unknown event; 409
 * `rest_review_not_pending` when it is not pending; 400 `rest_review_note_required` without a note.
 */
import type { Services } from '../../domain/services.js';
import { typeCan } from '../../domain/permissions.js';
import { endpoint, route, type RouteDecl } from '../route.js';

export function adminReviewRoutes(services: Services): RouteDecl[] {
  return [
    route('/events/{id}/send-back', [
      endpoint({
        methods: ['POST'],
        args: {
          id: { type: 'integer', description: 'The event ID', required: true, in: 'path' },
          note: {
            type: 'string',
            required: true,
            description: 'What to change: e-mailed to the contributor (at most 5000 characters)',
            validate: (v) => (typeof v === 'string' && v.length <= 5000) || 'The note is at most 5000 characters.',
          },
        },
        permission: (ctx) => typeCan(ctx.viewer, 'publish', 'tribe_events') && typeCan(ctx.viewer, 'edit_others', 'tribe_events'),
        docs: {
          responses: {
            '200': { description: '{ id, status: "draft", note }' },
            '400': { description: 'No note' },
            '404': { description: 'No such event' },
            '409': { description: 'The event is not pending review' },
          },
        },
        handler: async (ctx) => ({ body: await services.reviews.sendBack(ctx.viewer, Number(ctx.path.id), String(ctx.args.note)) }),
      }),
    ]),
  ];
}
