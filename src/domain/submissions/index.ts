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
 * moderation.ts (the records a submission made), notifications.ts (the e-mails); this module is
 * the service itself: create, edit, withdraw, approve, reject, ask for changes, erase.
 *
 * @example
 *   const { token, submission } = await services.submissions.create(input, { viewer, ip: req.ip, locale: 'en' });
 *   await services.submissions.approve(editor, submission.id, { publishAt: '2031-03-01 09:00' });
 */
import { randomBytes, createHmac } from 'node:crypto';
import * as store from '../../store/submissions.js';
import { parseDateInput } from '../dates/strtotime.js';
import { apiError, invalidParams } from '../errors.js';
import type { EventInput, EventService } from '../events/index.js';
import { instantText } from './dates.js';
import { EMAIL, createSubmissionCore, editable, gmt, iso, quotaKey, sha256, str } from './core.js';
import { countLinks, eventInputOf, reservePlaces } from './input.js';
import { settleLinked, madeRecords, trashMade, trashReplaced } from './moderation.js';
import { notifyModerators, tellSubmitter } from './notifications.js';
import type { SubmissionDeps, SubmissionInput, SubmissionService } from './types.js';
import { adminView, flagsFor, logJson, publicView } from './views.js';

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

    async create(input, ctx) {
      const anonymous = ctx.viewer.id <= 0;
      if (core.config.submissions === 'off') throw apiError('rest_no_route');
      if (core.config.submissions === 'registered' && anonymous) throw apiError('submission_login_required');
      // The form's checks: a robot fills every field, and fills it at once.
      if (ctx.honeypot !== undefined && ctx.honeypot.trim() !== '') throw apiError('submission_rejected_as_spam');
      if (ctx.startedMs !== undefined && core.config.submissionsMinFillMs > 0 && Date.now() - ctx.startedMs < core.config.submissionsMinFillMs) throw apiError('submission_too_fast');
      if (core.pow && !(await core.pow.verify(ctx.pow))) throw apiError('submission_pow_required');
      let name = str(input.name).trim();
      let email = str(input.email).trim().toLowerCase();
      if (!anonymous) {
        const user = (await core.deps.users.list()).find((u) => Number(u.id) === ctx.viewer.id);
        if (name === '') name = user?.display_name || user?.login || '';
        if (email === '') email = (user?.email ?? '').toLowerCase();
      }
      // The submitter's fields and the event's are checked together: every error at once.
      const failures: Record<string, string> = {};
      if (name === '') failures.name = 'Your name is required.';
      else if (name.length > 200) failures.name = 'Your name must be at most 200 characters.';
      if (email === '') failures.email = 'Your e-mail address is required.';
      else if (email.length > 200 || !EMAIL.test(email)) failures.email = 'This is not an e-mail address.';
      const eventInput = await eventInputOf(core, input, false, failures);
      if (countLinks(name) > 0) throw apiError('submission_too_many_links', { args: [core.config.submissionsMaxLinks] });

      // Only what is stored counts: the places go back if the event or the submission is refused.
      const places = await reservePlaces(core, ctx.ip, email);
      let record: Awaited<ReturnType<EventService['create']>>;
      try {
        const authorId = anonymous ? await core.systemUser() : ctx.viewer.id;
        record = await core.events.create(core.submitterViewer(authorId), { ...eventInput, status: 'pending' });
      } catch (e) {
        await store.releaseSubmissionQuota(core.db, places).catch(() => undefined);
        throw e;
      }
      const eventId = Number(record.id);
      try {
        const json = await core.eventJson(eventId);
        const newVenueId = eventInput.venue && typeof eventInput.venue === 'object' ? Number((json?.venue as { id?: number } | undefined)?.id ?? 0) || null : null;
        const newOrgIds = Array.isArray(eventInput.organizer) && typeof eventInput.organizer[0] === 'object' ? ((json?.organizer ?? []) as Array<{ id: number }>).map((o) => Number(o.id)) : [];
        const now = gmt();
        const salt = randomBytes(16).toString('hex');
        const token = await core.tokenOf(salt);
        const flags = await flagsFor(core, eventId);
        const id = await store.insertSubmission(
          core.db,
          {
            token_hash: sha256(token),
            link_salt: salt,
            event_id: eventId,
            status: 'pending',
            user_id: anonymous ? 0 : ctx.viewer.id,
            name,
            email,
            ip: ctx.ip,
            locale: ctx.locale,
            flags: JSON.stringify(flags),
            new_venue_id: newVenueId,
            new_organizer_ids: JSON.stringify(newOrgIds),
            notified: core.config.submissionsNotify === 'off' || !core.mailer ? 1 : 0,
            created_gmt: now,
            updated_gmt: now,
          },
          { actor_id: anonymous ? 0 : ctx.viewer.id, actor: 'submitter', action: 'received', reason: '', detail: JSON.stringify(flags), created_gmt: now },
        );
        const row = await core.byId(id);
        if (core.config.submissionsNotify === 'immediate') notifyModerators(core, [row]).catch((e: unknown) => core.logError('moderator e-mail failed', e));
        tellSubmitter(core, row, 'received', token, { title: record.title, when: core.whenOfRecord(row, record) });
        return { token, submission: await publicView(core, row) };
      } catch (e) {
        // Nothing half-written: the pending event goes when its submission could not be stored.
        const again = await core.events.findById(eventId);
        if (again && again.status !== 'trash') await core.events.trash(again).catch(() => undefined);
        await store.releaseSubmissionQuota(core.db, places).catch(() => undefined);
        throw e;
      }
    },

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

    async edit(token, input) {
      const row = await core.byToken(token);
      if (!editable(row.status)) throw apiError('submission_not_editable', { args: [row.status] });
      const eventInput = await eventInputOf(core, input, true);
      const record = await core.events.findById(Number(row.event_id));
      if (!record) throw apiError('submission_not_found');
      await core.events.update(core.submitterViewer(Number(record.author_id)), record, { ...eventInput, status: 'pending' });
      // A new venue or organizer named by the edit is the submission's too (approved or merged with it).
      const made = await madeRecords(core, Number(row.event_id), eventInput);
      await trashReplaced(core, row, made);
      const flags = await flagsFor(core, Number(row.event_id));
      const now = gmt();
      const resubmitted = row.status === 'changes_requested';
      await store.updateSubmission(
        core.db,
        Number(row.id),
        { status: 'pending', updated_gmt: now, flags: JSON.stringify(flags), ...made, ...(resubmitted ? { notified: core.config.submissionsNotify === 'off' || !core.mailer ? 1 : 0 } : {}) },
        {
          actor_id: Number(row.user_id),
          actor: 'submitter',
          action: resubmitted ? 'resubmitted' : 'edited',
          reason: '',
          detail: JSON.stringify({ fields: Object.keys(eventInput) }),
          created_gmt: now,
        },
        resubmitted ? 'received' : undefined,
      );
      const after = await core.byId(Number(row.id));
      if (resubmitted && core.config.submissionsNotify === 'immediate') notifyModerators(core, [after]).catch((e: unknown) => core.logError('moderator e-mail failed', e));
      return publicView(core, after);
    },

    async withdraw(token) {
      const row = await core.byToken(token);
      if (!editable(row.status)) throw apiError('submission_not_editable', { args: [row.status] });
      await trashMade(core, row);
      const now = gmt();
      await store.updateSubmission(
        core.db,
        Number(row.id),
        { status: 'withdrawn', updated_gmt: now, decided_gmt: now },
        { actor_id: Number(row.user_id), actor: 'submitter', action: 'withdrawn', reason: '', detail: '{}', created_gmt: now },
      );
      return publicView(core, await core.byId(Number(row.id)));
    },

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

    async approve(viewer, id, options = {}) {
      await core.moderatorCheck(viewer);
      const row = await core.byId(id);
      if (row.status !== 'pending' && row.status !== 'changes_requested') throw apiError('submission_not_pending', { args: [row.status] });
      const record = await core.events.findById(Number(row.event_id));
      if (!record || record.status === 'trash') throw apiError('submission_not_found');
      // The moderator's edits are checked as the submitter's are (the event service trusts its callers).
      const edits: EventInput = options.edits ? await eventInputOf(core, options.edits as SubmissionInput, true) : {};
      if (options.publishAt !== undefined && !parseDateInput(options.publishAt, core.config.timezone)) throw invalidParams({ publish_at: 'publish_at is not a date.' });
      const detail = await settleLinked(core, viewer, row, options, edits);
      const input: EventInput = { ...edits, status: 'publish' };
      if (options.publishAt) input.date = options.publishAt;
      const updated = await core.events.update(viewer, record, input);
      const now = gmt();
      const publishAt = updated.status === 'future' ? updated.date_gmt : null;
      await store.updateSubmission(
        core.db,
        id,
        { status: 'approved', reason: options.reason ?? '', updated_gmt: now, decided_gmt: now, publish_at_gmt: publishAt },
        {
          ...core.actorOf(viewer),
          action: options.edits && Object.keys(options.edits).length > 0 ? 'edited_and_approved' : 'approved',
          reason: options.reason ?? '',
          detail: JSON.stringify({ ...detail, ...(publishAt ? { publish_at: iso(publishAt) } : {}), ...(options.edits ? { fields: Object.keys(options.edits) } : {}) }),
          created_gmt: now,
        },
        'approved',
      );
      const after = await core.byId(id);
      const locale = core.localeOfRow(after);
      const json = await core.eventJson(Number(row.event_id));
      tellSubmitter(core, after, 'approved', await core.tokenOf(after.link_salt), {
        title: updated.title,
        when: core.whenOfRecord(after, updated),
        ...(publishAt ? { publishAt: instantText(locale, publishAt, core.config.timezone) } : {}),
        ...(json && typeof json.url === 'string' ? { eventUrl: json.url } : {}),
      });
      return adminView(core, after, true);
    },

    async reject(viewer, id, reason) {
      await core.moderatorCheck(viewer);
      const row = await core.byId(id);
      if (row.status !== 'pending' && row.status !== 'changes_requested') throw apiError('submission_not_pending', { args: [row.status] });
      const record = await core.events.findById(Number(row.event_id));
      await trashMade(core, row);
      const now = gmt();
      await store.updateSubmission(
        core.db,
        id,
        { status: 'rejected', reason, updated_gmt: now, decided_gmt: now },
        { ...core.actorOf(viewer), action: 'rejected', reason, detail: '{}', created_gmt: now },
        'rejected',
      );
      const after = await core.byId(id);
      tellSubmitter(core, after, 'rejected', await core.tokenOf(after.link_salt), { title: record?.title, when: core.whenOfRecord(after, record) });
      return adminView(core, after, true);
    },

    async requestChanges(viewer, id, reason) {
      await core.moderatorCheck(viewer);
      const row = await core.byId(id);
      if (row.status !== 'pending') throw apiError('submission_not_pending', { args: [row.status] });
      const record = await core.events.findById(Number(row.event_id));
      const now = gmt();
      await store.updateSubmission(
        core.db,
        id,
        { status: 'changes_requested', reason, updated_gmt: now },
        { ...core.actorOf(viewer), action: 'changes_requested', reason, detail: '{}', created_gmt: now },
        'changes_requested',
      );
      const after = await core.byId(id);
      tellSubmitter(core, after, 'changes_requested', await core.tokenOf(after.link_salt), { title: record?.title, when: core.whenOfRecord(after, record) });
      return adminView(core, after, true);
    },

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
      await store.pruneSubmissionLimits(core.db, gmt(new Date(now.getTime() - core.config.submissionsRateWindowMs)), gmt(now));
      const ids = await store.expiredIdentities(core.db, before, 500);
      return store.eraseIdentities(core.db, ids);
    },

    async sendDigest() {
      if (!core.mailer) return 0;
      const rows = await store.unnotifiedSubmissions(core.db, 200);
      await notifyModerators(core, rows);
      return rows.length;
    },
  };
}
