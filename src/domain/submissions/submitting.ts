/**
 * The submitter's side of a submission: creating it (its abuse checks, its event pending, its
 * private link), editing it while it may be, withdrawing it. The service (index.ts) answers with
 * these; the moderators' side is decisions.ts.
 *
 * @example
 *   const { token, submission } = await createSubmission(core, input, { viewer, ip: '192.0.2.1', locale: 'en' });
 */
import { randomBytes } from 'node:crypto';
import * as store from '../../store/submissions.js';
import { apiError } from '../errors.js';
import type { EventInput, EventService } from '../events/index.js';
import { EMAIL, editable, gmt, sha256, str, type SubmissionCore } from './core.js';
import { countLinks, eventInputOf, reservePlaces } from './input.js';
import { madeRecords, ownRecords, trashMade, trashOwn, trashReplaced, type OwnRecords } from './moderation.js';
import { notifyModerators, tellSubmitter } from './notifications.js';
import type { SubmissionContext, SubmissionInput, SubmissionService } from './types.js';
import { flagsFor, publicView } from './views.js';

/** A new submission (`SubmissionService.create`): the abuse checks, its event pending, its row and token, the e-mails. */
export async function createSubmission(core: SubmissionCore, input: SubmissionInput, ctx: SubmissionContext): ReturnType<SubmissionService['create']> {
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
  let own: OwnRecords = { organizers: [] };
  try {
    const authorId = anonymous ? await core.systemUser() : ctx.viewer.id;
    const writer = core.submitterViewer(authorId);
    own = await ownRecords(core, eventInput, writer);
    record = await core.events.create(writer, { ...eventInput, status: 'pending' });
  } catch (e) {
    await trashOwn(core, own).catch(() => undefined);
    await store.releaseSubmissionQuota(core.db, places).catch(() => undefined);
    throw e;
  }
  const eventId = Number(record.id);
  try {
    const { id, token } = await storeReceived(core, eventId, {
      submitter: {
        user_id: anonymous ? 0 : ctx.viewer.id,
        name,
        email,
        ip: ctx.ip,
        locale: ctx.locale,
        new_venue_id: own.venue ?? null,
        new_organizer_ids: JSON.stringify(own.organizers),
      },
      actor: 'submitter',
      logged: {},
    });
    const row = await core.byId(id);
    if (core.config.submissionsNotify === 'immediate') notifyModerators(core, [row]).catch((e: unknown) => core.logError('moderator e-mail failed', e));
    tellSubmitter(core, row, 'received', token, { title: record.title, when: core.whenOfRecord(row, record) });
    return { token, submission: await publicView(core, row) };
  } catch (e) {
    // Nothing half-written: the pending event goes when its submission could not be stored.
    const again = await core.events.findById(eventId);
    if (again && again.status !== 'trash') await core.events.trash(again).catch(() => undefined);
    await trashOwn(core, own).catch(() => undefined);
    await store.releaseSubmissionQuota(core.db, places).catch(() => undefined);
    throw e;
  }
}

/**
 * Store a received submission of a pending event, and its log's `received` entry (with the event's
 * flags, and `logged` beside them): a community submission's and a network proposal's alike.
 */
async function storeReceived(
  core: SubmissionCore,
  eventId: number,
  what: {
    submitter: { user_id: number; name: string; email: string; ip: string; locale: string; new_venue_id: number | null; new_organizer_ids: string };
    actor: 'submitter' | 'network';
    logged: Record<string, unknown>;
  },
): Promise<{ id: number; token: string }> {
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
      ...what.submitter,
      flags: JSON.stringify(flags),
      notified: core.config.submissionsNotify === 'off' || !core.mailer ? 1 : 0,
      created_gmt: now,
      updated_gmt: now,
    },
    { actor_id: what.submitter.user_id, actor: what.actor, action: 'received', reason: '', detail: JSON.stringify({ ...flags, ...what.logged }), created_gmt: now },
  );
  return { id, token };
}

/** The submitter's edit while pending or asked for changes (`SubmissionService.edit`). */
export async function editSubmission(core: SubmissionCore, token: string, input: SubmissionInput): ReturnType<SubmissionService['edit']> {
  const row = await core.byToken(token);
  if (!editable(row.status)) throw apiError('submission_not_editable', { args: [row.status] });
  const eventInput = await eventInputOf(core, input, true);
  const record = await core.events.findById(Number(row.event_id));
  if (!record) throw apiError('submission_not_found');
  // A new venue or organizer named by the edit is the submission's too (approved or merged with it).
  const named = { venue: eventInput.venue !== undefined, organizer: eventInput.organizer !== undefined };
  const writer = core.submitterViewer(Number(record.author_id));
  const own = await ownRecords(core, eventInput, writer);
  try {
    await core.events.update(writer, record, { ...eventInput, status: 'pending' });
  } catch (e) {
    await trashOwn(core, own).catch(() => undefined);
    throw e;
  }
  const made = madeRecords(named, own);
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
}

/** The submitter withdraws (`SubmissionService.withdraw`): what it made goes to the trash. */
export async function withdrawSubmission(core: SubmissionCore, token: string): ReturnType<SubmissionService['withdraw']> {
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
}

/**
 * A proposal from another calendar of the network (`SubmissionService.receiveProposal`): the event,
 * copied by the network service, is stored pending as a community submission's is, authored by the
 * `community-submissions` user; the proposer (an editor or author of the other calendar) is the
 * submitter, and the log's `received` entry names the source. No abuse checks: the proposer is
 * signed in and has a role in the source calendar, which the network service checked; the
 * calendar's `submissions_per_day` quota counts it as it counts a community submission.
 */
export async function receiveProposal(core: SubmissionCore, input: EventInput, from: Parameters<SubmissionService['receiveProposal']>[1]): ReturnType<SubmissionService['receiveProposal']> {
  // A proposal lands in the queue as a submission does, so it takes a place in the calendar's
  // `submissions_per_day` quota (the per-address and per-e-mail limits are for anonymous senders:
  // none is named). Refused, nothing is stored; the place goes back if the proposal is not.
  const authorId = await core.systemUser();
  const places = await reservePlaces(core, '', '');
  let record: Awaited<ReturnType<EventService['create']>>;
  try {
    record = await core.events.create(core.submitterViewer(authorId), { ...input, status: 'pending' });
  } catch (e) {
    await store.releaseSubmissionQuota(core.db, places).catch(() => undefined);
    throw e;
  }
  const eventId = Number(record.id);
  let id: number;
  try {
    ({ id } = await storeReceived(core, eventId, {
      submitter: { user_id: from.userId, name: from.name, email: from.email.toLowerCase(), ip: '', locale: 'en', new_venue_id: null, new_organizer_ids: '[]' },
      actor: 'network',
      logged: { source: from.source },
    }));
  } catch (e) {
    await core.events.trash(record).catch(() => undefined);
    await store.releaseSubmissionQuota(core.db, places).catch(() => undefined);
    throw e;
  }
  // The receiving calendar's moderators hear of it as of any submission (at once, or in its digest).
  if (core.config.submissionsNotify === 'immediate') {
    core
      .byId(id)
      .then((row) => notifyModerators(core, [row]))
      .catch((e: unknown) => core.logError('moderator e-mail failed', e));
  }
  return { id, eventId };
}
