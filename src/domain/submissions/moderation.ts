/**
 * What moderation does to the records a submission made: approving its new venue and organizers
 * or merging them into existing ones, keeping track of those an edit made or replaced, and
 * trashing them all when it is rejected or withdrawn.
 *
 * @example const detail = await settleLinked(core, editor, row, { mergeVenue: 12 }, edits);
 */
import type { SubmissionRow } from '../../store/submissions.js';
import { invalidParams } from '../errors.js';
import type { EventInput } from '../events/index.js';
import type { Viewer } from '../permissions.js';
import type { SubmissionCore } from './core.js';
import type { ModerationOptions } from './types.js';

/** Decide the pending records made by the submission: approve them or merge them into existing ones. */
export async function settleLinked(core: SubmissionCore, viewer: Viewer, row: SubmissionRow, options: ModerationOptions, edits: EventInput): Promise<Record<string, unknown>> {
  const detail: Record<string, unknown> = {};
  const newVenue = row.new_venue_id === null ? undefined : Number(row.new_venue_id);
  if (newVenue !== undefined) {
    const record = await core.venues.findById(newVenue);
    if (options.mergeVenue !== undefined) {
      const target = await core.venues.findById(options.mergeVenue);
      if (!target || target.status === 'trash') throw invalidParams({ merge_venue: 'No such venue.' });
      edits.venue = options.mergeVenue;
      detail.venue_merged_into = options.mergeVenue;
      // Only a record the submission made (still pending) goes: one it was linked to by name is the calendar's.
      if (record && record.status === 'pending') await core.venues.trashPost(record);
    } else if (record && record.status === 'pending') {
      await core.venues.updatePost(record, { status: 'publish' }, viewer);
      detail.venue_approved = newVenue;
    }
  }
  const newOrgs = JSON.parse(row.new_organizer_ids) as number[];
  if (newOrgs.length > 0) {
    if (options.mergeOrganizers !== undefined) {
      for (const id of options.mergeOrganizers) {
        const target = await core.organizers.findById(id);
        if (!target || target.status === 'trash') throw invalidParams({ merge_organizers: 'No such organizer.' });
      }
      edits.organizer = options.mergeOrganizers;
      detail.organizers_merged_into = options.mergeOrganizers;
      for (const id of newOrgs) {
        const record = await core.organizers.findById(id);
        if (record && record.status === 'pending') await core.organizers.trashPost(record);
      }
    } else {
      for (const id of newOrgs) {
        const record = await core.organizers.findById(id);
        if (record && record.status === 'pending') await core.organizers.updatePost(record, { status: 'publish' }, viewer);
      }
      detail.organizers_approved = newOrgs;
    }
  }
  return detail;
}

/** The new venue and organizers an edit made (the event's, when the edit named new ones). */
export async function madeRecords(core: SubmissionCore, eventId: number, input: EventInput): Promise<{ new_venue_id?: number | null; new_organizer_ids?: string }> {
  const out: { new_venue_id?: number | null; new_organizer_ids?: string } = {};
  const newVenue = input.venue !== undefined && typeof input.venue === 'object';
  const newOrgs = Array.isArray(input.organizer) && typeof input.organizer[0] === 'object';
  // An existing venue or organizer named instead of the new one: the new one is no longer used.
  if (typeof input.venue === 'number') out.new_venue_id = null;
  if (Array.isArray(input.organizer) && typeof input.organizer[0] === 'number') out.new_organizer_ids = '[]';
  if (!newVenue && !newOrgs) return out;
  const json = await core.eventJson(eventId);
  const made = newRecordsOf(json);
  if (newVenue) out.new_venue_id = made.venue;
  if (newOrgs) out.new_organizer_ids = JSON.stringify(made.organizers);
  return out;
}

/**
 * The venue and organizers a submission's event names that the submission made: those still
 * pending. A new venue or organizer given by name is linked to the calendar's record of that name
 * when there is one (the event service's duplicate avoidance): that record is the calendar's, not
 * the submission's, and a moderator's decision must neither publish nor trash it.
 */
export function newRecordsOf(json: Record<string, unknown> | null): { venue: number | null; organizers: number[] } {
  const venue = json?.venue as { id?: number; status?: string } | undefined;
  const organizers = (json?.organizer ?? []) as Array<{ id: number; status?: string }>;
  return {
    venue: venue && venue.status === 'pending' ? Number(venue.id ?? 0) || null : null,
    organizers: organizers.filter((o) => o.status === 'pending').map((o) => Number(o.id)),
  };
}

/** The pending venue and organizers an edit replaced are trashed (nobody else links to them). */
export async function trashReplaced(core: SubmissionCore, row: SubmissionRow, made: { new_venue_id?: number | null; new_organizer_ids?: string }): Promise<void> {
  if (made.new_venue_id !== undefined && row.new_venue_id !== null && Number(row.new_venue_id) !== made.new_venue_id) {
    const v = await core.venues.findById(Number(row.new_venue_id));
    if (v && v.status === 'pending') await core.venues.trashPost(v);
  }
  if (made.new_organizer_ids !== undefined) {
    const keep = new Set(JSON.parse(made.new_organizer_ids) as number[]);
    for (const id of JSON.parse(row.new_organizer_ids) as number[]) {
      if (keep.has(id)) continue;
      const o = await core.organizers.findById(id);
      if (o && o.status === 'pending') await core.organizers.trashPost(o);
    }
  }
}

/** Trash what a submission made (its event, its new venue and organizers): rejection and withdrawal. */
export async function trashMade(core: SubmissionCore, row: SubmissionRow): Promise<void> {
  const record = await core.events.findById(Number(row.event_id));
  if (record && record.status !== 'trash') await core.events.trash(record);
  if (row.new_venue_id !== null) {
    const v = await core.venues.findById(Number(row.new_venue_id));
    if (v && v.status === 'pending') await core.venues.trashPost(v);
  }
  for (const id of JSON.parse(row.new_organizer_ids) as number[]) {
    const o = await core.organizers.findById(id);
    if (o && o.status === 'pending') await core.organizers.trashPost(o);
  }
}
