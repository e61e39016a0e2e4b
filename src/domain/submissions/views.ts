/**
 * How a submission reads: the submitter's view through their link (their data, the status, the
 * reason, the public URL once approved), the moderators' view (the identity, flags, the event as
 * stored, the records it made, its log), and the likely-duplicate flags.
 *
 * @example const view = await publicView(core, await core.byToken(token));
 */
import { findCalendarById } from '../../store/calendars.js';
import { sourcesOf } from '../../store/network.js';
import * as store from '../../store/submissions.js';
import type { SubmissionRow } from '../../store/submissions.js';
import { costTyped } from '../representations/event.js';
import { editable, iso, type SubmissionCore } from './core.js';

export function submitterFields(json: Record<string, unknown> | null): Record<string, unknown> {
  if (!json) return {};
  const venue = json.venue as Record<string, unknown> | undefined;
  const orgs = (Array.isArray(json.organizer) ? json.organizer : []) as Array<Record<string, unknown>>;
  const cats = (Array.isArray(json.categories) ? json.categories : []) as Array<Record<string, unknown>>;
  const image = json.image as Record<string, unknown> | false | undefined;
  return {
    title: json.title,
    description: json.description,
    start_date: json.start_date,
    end_date: json.end_date,
    timezone: json.timezone,
    all_day: json.all_day,
    cost: costTyped(json as { cost: string }),
    website: json.website,
    image: image && typeof image === 'object' ? image.url : null,
    venue:
      venue && typeof venue === 'object' && 'id' in venue
        ? { id: venue.id, venue: venue.venue, address: venue.address, city: venue.city, zip: venue.zip, country: venue.country, status: venue.status }
        : null,
    organizer: orgs.map((o) => ({ id: o.id, organizer: o.organizer, email: o.email, phone: o.phone, website: o.website, status: o.status })),
    categories: cats.map((c) => ({ id: c.id, name: c.name })),
  };
}

/** The submitter's view (through their link): their own data, the status and the reason. */
export async function publicView(core: SubmissionCore, row: SubmissionRow): Promise<Record<string, unknown>> {
  const event = await core.eventJson(Number(row.event_id));
  return {
    id: Number(row.id),
    status: row.status,
    reason: row.reason,
    editable: editable(row.status),
    resubmitted: await core.wasResubmitted(row),
    created: iso(row.created_gmt),
    updated: iso(row.updated_gmt),
    decided: iso(row.decided_gmt),
    publish_at: iso(row.publish_at_gmt),
    name: row.name,
    email: row.email,
    event: submitterFields(event),
    url: row.status === 'approved' && event && (event.status === 'publish' || event.status === 'future') ? event.url : null,
  };
}

/** The moderators' view: the submitter's identity, flags, the event as stored, the records it made. */
export async function adminView(core: SubmissionCore, row: SubmissionRow, withLog = false): Promise<Record<string, unknown>> {
  const event = await core.eventJson(Number(row.event_id));
  const out: Record<string, unknown> = {
    id: Number(row.id),
    status: row.status,
    reason: row.reason,
    created: iso(row.created_gmt),
    updated: iso(row.updated_gmt),
    decided: iso(row.decided_gmt),
    publish_at: iso(row.publish_at_gmt),
    submitter: { user_id: Number(row.user_id), name: row.name, email: row.email, ip: row.ip, locale: row.locale, erased: iso(row.erased_gmt) },
    flags: JSON.parse(row.flags) as unknown,
    event_id: Number(row.event_id),
    event: event ? { ...submitterFields(event), id: event.id, status: event.status } : null,
    new_venue_id: row.new_venue_id === null ? null : Number(row.new_venue_id),
    new_organizer_ids: JSON.parse(row.new_organizer_ids) as number[],
  };
  // A proposal from another calendar of the network: where its event came from.
  const [source] = await sourcesOf(core.db, [Number(row.event_id)]);
  if (source) {
    const calendar = await findCalendarById(core.db, Number(source.source_calendar_id));
    out.source = { kind: source.kind, calendar: calendar?.slug ?? null, calendar_id: Number(source.source_calendar_id), event_id: Number(source.source_event_id), url: source.source_url };
  }
  if (withLog) out.log = (await store.listLog(core.db, { submissionId: Number(row.id), limit: 200, offset: 0 })).rows.map(logJson);
  return out;
}

export function logJson(r: store.SubmissionLogRow): Record<string, unknown> {
  return {
    id: Number(r.id),
    submission_id: Number(r.submission_id),
    actor_id: Number(r.actor_id),
    actor: r.actor,
    action: r.action,
    reason: r.reason,
    detail: JSON.parse(r.detail) as unknown,
    date: iso(r.created_gmt),
  };
}

export async function flagsFor(core: SubmissionCore, eventId: number): Promise<Record<string, unknown>> {
  const record = await core.events.findById(eventId);
  if (!record) return {};
  const dupes = await store.likelyDuplicates(core.db, record.title, record.start_local, eventId);
  return dupes.length > 0 ? { duplicates: dupes } : {};
}
