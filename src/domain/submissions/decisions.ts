/**
 * The moderators' decisions on a submission: approve (with edits, a publication date, and what
 * becomes of the venue and organizers it made), reject, ask for changes; each logged and told to
 * the submitter. The service (index.ts) answers with these; the submitter's side is submitting.ts.
 *
 * @example
 *   await approveSubmission(core, editor, 12, { publishAt: '2031-03-01 09:00' });
 */
import * as store from '../../store/submissions.js';
import { parseDateInput } from '../dates/strtotime.js';
import { apiError, invalidParams } from '../errors.js';
import type { EventInput } from '../events/index.js';
import type { Viewer } from '../permissions.js';
import { instantText } from './dates.js';
import { gmt, iso, type SubmissionCore } from './core.js';
import { eventInputOf } from './input.js';
import { ownRecords, settleLinked, trashMade, trashOwn } from './moderation.js';
import { tellSubmitter } from './notifications.js';
import type { ModerationOptions, SubmissionInput, SubmissionService } from './types.js';
import { adminView } from './views.js';

/** A moderator approves (`SubmissionService.approve`), with edits and a publication date if given. */
export async function approveSubmission(core: SubmissionCore, viewer: Viewer, id: number, options: ModerationOptions = {}): ReturnType<SubmissionService['approve']> {
  await core.moderatorCheck(viewer);
  const row = await core.byId(id);
  if (row.status !== 'pending' && row.status !== 'changes_requested') throw apiError('submission_not_pending', { args: [row.status] });
  const record = await core.events.findById(Number(row.event_id));
  if (!record || record.status === 'trash') throw apiError('submission_not_found');
  // The moderator's edits are checked as the submitter's are (the event service trusts its callers).
  const edits: EventInput = options.edits ? await eventInputOf(core, options.edits as SubmissionInput, true) : {};
  if (options.publishAt !== undefined && !parseDateInput(options.publishAt, core.config.timezone)) throw invalidParams({ publish_at: 'publish_at is not a date.' });
  const detail = await settleLinked(core, viewer, row, options, edits);
  // A new venue or organizer the moderator gives here is made as given and published with the
  // event (left pending, the published event would show none of it).
  const published = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...v, status: 'publish' } : v);
  if (edits.venue !== undefined) edits.venue = published(edits.venue);
  if (Array.isArray(edits.organizer)) edits.organizer = edits.organizer.map(published);
  const own = await ownRecords(core, edits, viewer);
  const input: EventInput = { ...edits, status: 'publish' };
  if (options.publishAt) input.date = options.publishAt;
  let updated: Awaited<ReturnType<typeof core.events.update>>;
  try {
    updated = await core.events.update(viewer, record, input);
  } catch (e) {
    await trashOwn(core, own).catch(() => undefined);
    throw e;
  }
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
}

/** A moderator rejects (`SubmissionService.reject`): what it made goes to the trash. */
export async function rejectSubmission(core: SubmissionCore, viewer: Viewer, id: number, reason: string): ReturnType<SubmissionService['reject']> {
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
}

/** A moderator asks the submitter for changes (`SubmissionService.requestChanges`). */
export async function requestSubmissionChanges(core: SubmissionCore, viewer: Viewer, id: number, reason: string): ReturnType<SubmissionService['requestChanges']> {
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
}
