/**
 * Community submissions: the public proposes events, editors moderate.
 *
 * A submission stores its event `pending` through the event service (and any new venue or
 * organizer `pending` too), authored by the registered submitter or, for anonymous ones, by the
 * `community-submissions` user (a contributor nobody can sign in as), so nothing of it is public
 * until a moderator approves it. The submitter's identity (name, e-mail, client address) lives
 * only in the `submissions` table: never in the event, so never in public answers, pages, feeds,
 * sync deltas or webhook payloads. The submitter holds a private link (a random token; only its
 * SHA-256 is stored) to see the status and the moderator's reason, edit while pending or when
 * changes are asked for, and withdraw.
 *
 * Abuse defences, in the order they are checked: who may submit (SUBMISSIONS), the honeypot and
 * the fill time (the form's), the proof of work (SUBMISSIONS_POW: each solution once, on every
 * instance), sizes and links, then the per-address (IPv6 by /64) and per-e-mail limits, counted
 * and taken in one step in the database; likely duplicates (same title and start) are flagged, not
 * refused.
 *
 * The service in rooms: types.ts (its vocabulary), core.ts (what every part shares), input.ts (the
 * fields checked, the limits taken), views.ts (the submitter's and the moderators' views),
 * moderation.ts (the records a submission made), notifications.ts (the e-mails), submitting.ts (the
 * submitter's create, edit and withdraw), decisions.ts (the moderators' approve, reject and ask for
 * changes); this module is the service itself, composed of them, with the lists, the log and erasure.
 *
 * @example
 *   const { token, submission } = await services.submissions.create(input, { viewer, ip: req.ip, locale: 'en' });
 *   await services.submissions.approve(editor, submission.id, { publishAt: '2031-03-01 09:00' });
 */
import { createHmac } from 'node:crypto';
import * as store from '../../store/submissions.js';
import { createSubmissionCore, gmt, iso, quotaKey } from './core.js';
import { approveSubmission, rejectSubmission, requestSubmissionChanges } from './decisions.js';
import { notifyModerators } from './notifications.js';
import { createSubmission, editSubmission, receiveProposal, withdrawSubmission } from './submitting.js';
import type { SubmissionDeps, SubmissionService } from './types.js';
import { adminView, logJson, publicView } from './views.js';

export type { Locale } from './mail.js';
export {
  SUBMISSION_EVENTS,
  SUBMISSION_STATUSES,
  SUBMISSIONS_USER,
  type ModerationOptions,
  type SubmissionContext,
  type SubmissionDeps,
  type SubmissionInput,
  type SubmissionService,
  type SubmissionStatus,
} from './types.js';
export { countLinks } from './input.js';
import { SUBMISSION_QUOTA_DAY_MS } from './input.js';

export function createSubmissionService(deps: SubmissionDeps): SubmissionService {
  const core = createSubmissionCore(deps);
  return {
    mode: core.config.submissions,
    pow: core.pow,
    setLogger(log) {
      core.logError = log;
    },
    setPaths(p) {
      core.paths = p;
    },
    close() {
      core.mailer?.close();
    },

    create: (input, ctx) => createSubmission(core, input, ctx),

    receiveProposal: (input, from) => receiveProposal(core, input, from),

    async formStamp(nowMs = Date.now()) {
      const key = await store.powSecret(core.db);
      return `${nowMs}.${createHmac('sha256', key).update(`form-stamp:${nowMs}`).digest('base64url')}`;
    },

    async stampTime(stamp) {
      if (typeof stamp !== 'string') return undefined;
      const m = /^(\d{10,16})\.([A-Za-z0-9_-]{43})$/.exec(stamp);
      if (!m) return undefined;
      const key = await store.powSecret(core.db);
      const expected = createHmac('sha256', key).update(`form-stamp:${m[1]}`).digest('base64url');
      return expected === m[2] ? Number(m[1]) : undefined;
    },

    async webhookPayload(id) {
      const row = await store.findSubmission(core.db, id);
      if (!row) return { id, status: 'deleted' };
      return {
        id: Number(row.id),
        status: row.status,
        event_id: Number(row.event_id),
        reason: row.reason,
        flags: JSON.parse(row.flags) as unknown,
        new_venue_id: row.new_venue_id === null ? null : Number(row.new_venue_id),
        new_organizer_ids: JSON.parse(row.new_organizer_ids) as number[],
        created: iso(row.created_gmt),
        decided: iso(row.decided_gmt),
        publish_at: iso(row.publish_at_gmt),
      };
    },

    async view(token) {
      return publicView(core, await core.byToken(token));
    },

    edit: (token, input) => editSubmission(core, token, input),

    withdraw: (token) => withdrawSubmission(core, token),

    async list(filter) {
      const { rows, total } = await store.listSubmissions(core.db, {
        ...(filter.statuses ? { statuses: filter.statuses } : {}),
        ...(filter.flagged !== undefined ? { flagged: filter.flagged } : {}),
        ...(filter.email ? { email: filter.email } : {}),
        limit: filter.perPage,
        offset: (filter.page - 1) * filter.perPage,
      });
      const items = [];
      for (const r of rows) items.push(await adminView(core, r));
      return { items, total };
    },

    async get(id) {
      return adminView(core, await core.byId(id), true);
    },

    approve: (viewer, id, options) => approveSubmission(core, viewer, id, options),

    reject: (viewer, id, reason) => rejectSubmission(core, viewer, id, reason),

    requestChanges: (viewer, id, reason) => requestSubmissionChanges(core, viewer, id, reason),

    async log(filter) {
      const { rows, total } = await store.listLog(core.db, {
        ...(filter.submissionId !== undefined ? { submissionId: filter.submissionId } : {}),
        limit: filter.perPage,
        offset: (filter.page - 1) * filter.perPage,
      });
      return { items: rows.map(logJson), total };
    },

    async exportSubmitter(email) {
      const rows = await store.submissionsOfEmail(core.db, email.trim());
      const items = [];
      for (const r of rows) items.push(await adminView(core, r, true));
      return { email: email.trim().toLowerCase(), exported: new Date().toISOString(), submissions: items };
    },

    async eraseSubmitter(viewer, email) {
      const rows = await store.submissionsOfEmail(core.db, email.trim());
      const ids = rows.map((r) => Number(r.id));
      const n = await store.eraseIdentities(core.db, ids);
      await store.forgetSubmissionQuota(core.db, quotaKey('email', email.trim().toLowerCase()));
      const now = gmt();
      for (const id of ids) await store.updateSubmission(core.db, id, { updated_gmt: now }, { ...core.actorOf(viewer), action: 'submitter_erased', reason: '', detail: '{}', created_gmt: now });
      return n;
    },

    async eraseExpired(now = new Date()) {
      const before = gmt(new Date(now.getTime() - core.config.submissionRetentionDays * 86_400_000));
      // The limits' places older than their window, and proofs of work whose challenge expired.
      // A calendar's `submissions_per_day` places are kept for their day.
      await store.pruneSubmissionLimits(core.db, gmt(new Date(now.getTime() - core.config.submissionsRateWindowMs)), gmt(now), {
        key: quotaKey('calendar', 'day'),
        beforeGmt: gmt(new Date(now.getTime() - SUBMISSION_QUOTA_DAY_MS)),
      });
      const ids = await store.expiredIdentities(core.db, before, 500);
      return store.eraseIdentities(core.db, ids);
    },

    async sendDigest() {
      // The calendar at hand's choice: one on `immediate` is told (or being told) at once, one on `off` wants nothing.
      if (!core.mailer || core.config.submissionsNotify !== 'daily') return 0;
      const rows = await store.unnotifiedSubmissions(core.db, 200);
      await notifyModerators(core, rows);
      return rows.length;
    },
  };
}
