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
import { writeTransaction } from '../../store/changes.js';
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

/** The venue and organizers a submission made for itself (`ownRecords`). */
export interface OwnRecords {
  venue?: number;
  organizers: number[];
}

/**
 * Make the new venue and organizers a submitter's fields name (pending, as sent), and name them by
 * id in `input` instead. Never the event service's duplicate avoidance: it links a new record to
 * one of the same name the writer may read, and rewrites it when the writer may edit it, and every
 * anonymous submission is written as one account, so a submitter naming another submission's
 * pending venue or organizer would rewrite it (its address, the organizer's e-mail and website,
 * public once approved) and share it (rejecting one trashing the other's), and one naming a record
 * of the calendar would have it called the submission's own.
 */
export async function ownRecords(core: SubmissionCore, input: EventInput, viewer: Viewer): Promise<OwnRecords> {
  const own: OwnRecords = { organizers: [] };
  const venue = input.venue;
  const organizers = input.organizer;
  const isNew = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isNew(venue) && !(Array.isArray(organizers) && organizers.some(isNew))) return own;
  await writeTransaction(core.db, async (trx) => {
    if (isNew(venue)) input.venue = own.venue = await core.venues.create(trx, venue, viewer, { exact: true });
    if (Array.isArray(organizers)) {
      const ids: unknown[] = [];
      for (const o of organizers) {
        if (!isNew(o)) ids.push(o);
        else {
          const id = await core.organizers.create(trx, o, viewer, { exact: true });
          own.organizers.push(id);
          ids.push(id);
        }
      }
      input.organizer = ids;
    }
  });
  return own;
}

/** Trash what `ownRecords` made, when the write it was made for did not happen. */
export async function trashOwn(core: SubmissionCore, own: OwnRecords): Promise<void> {
  const venue = own.venue === undefined ? undefined : await core.venues.findById(own.venue);
  if (venue && venue.status !== 'trash') await core.venues.trashPost(venue);
  for (const id of own.organizers) {
    const o = await core.organizers.findById(id);
    if (o && o.status !== 'trash') await core.organizers.trashPost(o);
  }
}

/**
 * What an edit makes of the submission's new records: the ones it made (`own`), or none when it
 * names an existing venue or organizer instead; nothing for a field it leaves out.
 */
export function madeRecords(named: { venue: boolean; organizer: boolean }, own: OwnRecords): { new_venue_id?: number | null; new_organizer_ids?: string } {
  return {
    ...(named.venue ? { new_venue_id: own.venue ?? null } : {}),
    ...(named.organizer ? { new_organizer_ids: JSON.stringify(own.organizers) } : {}),
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
