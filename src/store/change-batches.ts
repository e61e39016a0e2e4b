/**
 * A batch of the change feed: what the log rows after a number say changed (change-feed.ts reads
 * them and hands each listener its batch), built from the rows and the events' states, and each
 * calendar's part of it: a calendar's listeners hear its own writes and people's.
 *
 * @example
 *   const batch = buildBatch(from, to, rows, states, texts, false);
 *   const northOnly = calendarBatches(batch, { rows, states, texts })(7);
 */
import type { ChangeRow } from './change-log.js';
import type { ListingState, RecordChangeDetail } from './listing-states.js';
import { DEFAULT_CALENDAR_ID } from './calendar-scope.js';

/** The text the event list searches (title, excerpt, description). */
export interface EventText {
  title: string;
  excerpt: string;
  content: string;
}

/**
 * One event's change at one sequence number. `before`/`after`: its listing state around the
 * change (`null`: it did not exist; `undefined`: unknown, e.g. a bulk unlink). `beforeText` and
 * `afterText`: its searchable text around the change, when known.
 */
export interface EventTransition {
  seq: number;
  /** the calendar of the event */
  calendar: number;
  id: number;
  before: ListingState | null | undefined;
  after: ListingState | null | undefined;
  beforeText: EventText | undefined;
  afterText: EventText | undefined;
}

export interface ChangeBatch {
  /** the batch covers sequence numbers (from, to] */
  from: number;
  to: number;
  /** anything may have changed: drop every kept result */
  reset: boolean;
  /** event list results cannot be adjusted: drop them */
  listsReset: boolean;
  /**
   * something other than events and terms changed (venues, organizers, images, users, any other
   * kind of record): venue and organizer lists that do not depend on events are kept until then
   */
  linkedChanged: boolean;
  events: EventTransition[];
  /** ids of the events changed in the batch */
  eventIds: Set<number>;
  venues: Set<number>;
  organizers: Set<number>;
  /** terms that changed (anything but their count alone) */
  terms: Set<number>;
  /** terms whose published-event count alone moved, by how much in all (none of them in `terms`) */
  termCounts: Map<number, number>;
  images: Set<number>;
  /** users whose row or application passwords changed */
  users: Set<number>;
  /** a calendar settings change: every value stored after it (variable → text), the newest of the batch */
  settings?: Record<string, string>;
}

/**
 * Hears a batch. A listener that answers `LISTENER_GONE` is dropped: what it kept up to date is no
 * more (a kept map held weakly, collected once nothing else used it).
 */
export type ChangeListener = (batch: ChangeBatch) => unknown;
export const LISTENER_GONE = Symbol('listener gone');

/** What a batch is built from of each log row. */
export type FeedRow = Pick<ChangeRow, 'seq' | 'type' | 'id' | 'action' | 'detail'> & { calendar?: number };

/**
 * Build a batch from log rows and the events' states and texts at the batch's end.
 */
export function buildBatch(from: number, to: number, rows: readonly FeedRow[], states: Map<number, ListingState>, texts: Map<number, EventText | undefined>, truncated: boolean): ChangeBatch {
  const batch: ChangeBatch = {
    from,
    to,
    reset: truncated,
    listsReset: false,
    linkedChanged: false,
    events: [],
    eventIds: new Set(),
    venues: new Set(),
    organizers: new Set(),
    terms: new Set(),
    termCounts: new Map(),
    images: new Set(),
    users: new Set(),
  };
  const eventRows: FeedRow[] = [];
  for (const r of rows) {
    if (r.type !== 'event' && r.type !== 'term' && r.type !== 'lists') batch.linkedChanged = true;
    switch (r.type) {
      case 'all':
        batch.reset = true;
        break;
      // A calendar setting (the site's name, its time zone, …) may show in anything kept.
      case 'settings':
        batch.reset = true;
        batch.settings = (r.detail as RecordChangeDetail | null)?.settings ?? {};
        break;
      case 'lists':
        batch.listsReset = true;
        break;
      case 'event':
        eventRows.push(r);
        batch.eventIds.add(r.id);
        break;
      case 'venue':
        batch.venues.add(r.id);
        break;
      case 'organizer':
        batch.organizers.add(r.id);
        break;
      case 'term': {
        const count = r.action === 'update' ? (r.detail as RecordChangeDetail | null)?.count : undefined;
        if (typeof count === 'number') batch.termCounts.set(r.id, (batch.termCounts.get(r.id) ?? 0) + count);
        else batch.terms.add(r.id);
        break;
      }
      case 'image':
        batch.images.add(r.id);
        break;
      // Both drop who is kept authenticated; only an account's change may show in an answer.
      case 'user':
      case 'credentials':
      case 'role':
        batch.users.add(r.id);
        break;
    }
  }
  // A term that changed otherwise too is dropped by readers, not adjusted.
  for (const id of batch.terms) batch.termCounts.delete(id);
  // Each event's transitions in order: the after state of one is the before state of the next; the
  // last one ends at the state read now. Text is known after a transition when no later one
  // changed it; before it, when that transition did not change it either.
  for (let i = 0; i < eventRows.length; i++) {
    const r = eventRows[i]!;
    let next: FeedRow | undefined;
    let textChangedLater = false;
    for (let j = i + 1; j < eventRows.length; j++) {
      const n = eventRows[j]!;
      if (n.id !== r.id) continue;
      next ??= n;
      if (!n.detail || n.detail.text) textChangedLater = true;
    }
    const before = r.action === 'create' ? null : r.detail ? r.detail.before : undefined;
    const after = next ? (next.detail ? next.detail.before : undefined) : (states.get(r.id) ?? null);
    const afterText = textChangedLater ? undefined : texts.get(r.id);
    const textChanged = r.action === 'create' || !r.detail || r.detail.text;
    batch.events.push({ seq: r.seq, calendar: r.calendar ?? DEFAULT_CALENDAR_ID, id: r.id, before, after, beforeText: textChanged ? undefined : afterText, afterText });
    if (before === undefined || after === undefined) batch.listsReset = true;
  }
  return batch;
}

/** A change of people (an account, a role, credentials): every calendar's part of a batch has it. */
const isPeople = (r: FeedRow): boolean => r.type === 'user' || r.type === 'credentials';

/** What a batch was built from, to build each calendar's part of it (`calendarBatches`). */
export interface BatchParts {
  rows: readonly FeedRow[];
  states: Map<number, ListingState>;
  texts: Map<number, EventText | undefined>;
}

/**
 * Each calendar's part of a batch, made when first asked for: its listeners (what a calendar's
 * requests keep) hear only its own writes, and the changes of people (shared by every calendar).
 * A reset, or a batch of one calendar's rows, is the same for all.
 */
export function calendarBatches(batch: ChangeBatch, made: BatchParts | undefined): (calendar: number) => ChangeBatch {
  if (!made || batch.reset) return () => batch;
  const calendars = new Set(made.rows.filter((r) => !isPeople(r)).map((r) => r.calendar ?? DEFAULT_CALENDAR_ID));
  const parts = new Map<number, ChangeBatch>();
  return (calendar) => {
    if (calendars.size === 0 || (calendars.size === 1 && calendars.has(calendar))) return batch;
    let part = parts.get(calendar);
    if (!part) {
      const rows = made.rows.filter((r) => isPeople(r) || (r.calendar ?? DEFAULT_CALENDAR_ID) === calendar);
      parts.set(calendar, (part = buildBatch(batch.from, batch.to, rows, made.states, made.texts, false)));
    }
    return part;
  };
}
