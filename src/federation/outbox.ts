/**
 * The outbox: a consumer of the change log (run through federation's store port,
 * `services.federationStore.runOutbox`; docs/design.md "A change-log consumer") whose cursor
 * lives in `federation_state`, so that it survives restarts and two instances never handle the
 * same rows (the cursor moves with a compare-and-set in the transaction that stores the step's
 * activities and deliveries).
 *
 * For each event a step's rows name (and the events of a venue, organizer or term they name; an
 * `all`/`reset` row re-checks every event federated so far), it compares what anonymous readers
 * see now with what was last sent (`federation_objects`):
 * - visible and never sent (or sent and deleted since) → `Create`;
 * - visible, sent, and the object differs (its digest, `updated` aside) → `Update`: several edits
 *   read in one step make one Update (coalesced), an edit that changes nothing shown makes none;
 * - sent and no longer visible (trashed, unpublished, made private, deleted) → `Delete` with a
 *   `Tombstone`.
 * Each activity's object carries an `updated` time (a Tombstone its `deleted`) later than the last
 * one sent for that event, to the millisecond (`stampOf`), so that a receiver that keeps the
 * newest version of an object applies each Update, and in order, even for edits within a second.
 * The cursor is made when the server starts (`ensureOutboxCursor`, before it accepts requests), so
 * nothing published while federation is on is skipped.
 * A calendar whose slug changed (its actor's identifier: the change logs a reset in it) sends its
 * followers a `Move` from each former identifier still pending (`movesFor`), before anything else
 * of that step, so that they follow the new actor (Mastodon's account migration). Objects announced
 * before keep their ids, under the old actor, who sends their Updates and Deletes (`ObjectHome`).
 * Drafts, pending, scheduled and private events are never visible to anonymous readers, so nothing
 * about them leaves. Recurring series federate as one object per occurrence (each occurrence is
 * an event with its own page); the series itself is not an object, and occurrences starting more
 * than SERIES_HORIZON_DAYS ahead wait: a sweep (hourly) sends them as they come within it.
 *
 * @example
 *   const outbox = createOutbox({ services, urls, … });
 *   await outbox.step(); // true while rows are left
 */
import { DateTime } from 'luxon';
import { ANONYMOUS } from '../domain/permissions.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow } from '../domain/calendars.js';
import type { Services } from '../domain/services.js';
import type { ChangeConsumer, ChangeRow } from '../store/change-log.js';
import type { ObjectStateRow, OutboxStep } from '../store/federation.js';
import { isBlockedHost } from './delivery.js';
import { AS_PUBLIC, eventObject, federationUrls, msIso, objectDigest, tombstone, withContext, type FederationUrls, type PublicEventJson } from './objects.js';
import { isProtected } from '../domain/post-passwords.js';

/** Occurrences of a recurring series federate once they start within this many days. */
export const SERIES_HORIZON_DAYS = 90;

/** Calendars whose outbox one step of the job moves at most (the others' wait for the next step). */
const CALENDARS_PER_STEP = 50;
/** Calendars whose waiting occurrences the hourly sweep looks at. */
const SWEPT_CALENDARS = 10_000;

/** Events of one venue, organizer or term re-checked at most per change of it. */
const MAX_EVENTS_PER_LINKED_RECORD = 500;

export interface PublicReader {
  /** The event as anonymous readers see it, or undefined when they may not (or it is not federated). */
  event(id: number): Promise<PublicEventJson | undefined>;
  /** The Event object of a visible event (under the URLs of `urls`: its home actor's; the calendar's actor's by default). */
  object(e: PublicEventJson, urls?: FederationUrls): Record<string, unknown>;
}

/**
 * The actor an announced object is of (its `home`, federation_objects): the one it was first
 * announced by, while that identifier is still the calendar's (its current one, or a former one
 * no other calendar has taken), so that its id and its later Updates and Deletes are those its
 * receivers hold; `home` is that identifier (null: the default calendar's, whose never changes).
 */
export type ObjectHome = (home: string | null | undefined) => Promise<{ urls: FederationUrls; home: string | null }>;

export function createPublicReader(services: Services, urls: FederationUrls): PublicReader {
  // The links of the calendar at hand (its site's URLs), read at each call.
  const { events } = services;
  return {
    async event(id) {
      const record = await events.findById(id);
      if (!record || record.type !== 'tribe_events' || record.status !== 'publish') return undefined;
      if (Number((record as { hide_from_listings?: number }).hide_from_listings ?? 0) === 1) return undefined;
      // A password-protected event is not federated (its followers' servers could not ask for the
      // password): set on a federated event, it is deleted from them as an unpublished one is.
      if (isProtected(record)) return undefined;
      return services.reader.event(record, 'single', services.links);
    },
    object: (e, under = urls) => {
      const links = services.links;
      return eventObject(under, e, { categoryUrl: links.categoryPermalink, tagUrl: links.tagPermalink });
    },
  };
}

/**
 * The `updated` (or `deleted`) last sent for an object, in ms; undefined when nothing was sent
 * about it (an occurrence `waiting` for the horizon carries the one of an earlier announcement, if
 * any). Rows from before migration 022 have only `updated_gmt`, when their step ran, which bounds it.
 */
export function lastStampOf(before: ObjectStateRow | undefined): number | undefined {
  if (!before) return undefined;
  if (before.updated_ms !== null && before.updated_ms !== undefined) return Number(before.updated_ms);
  if (before.state === 'waiting') return undefined;
  const gmt = DateTime.fromSQL(before.updated_gmt, { zone: 'UTC' });
  return gmt.isValid ? gmt.toMillis() : undefined;
}

/**
 * The `updated` of an object's next version (or `deleted` of its Tombstone), in ms: the event's
 * own modification time when it is later than what was last sent, else now (an edit within the
 * same second as the last one, which that time, in seconds, cannot tell apart; a change of its
 * venue or category, which leaves the event's own time), and always at least a millisecond after
 * what was last sent: strictly increasing per object.
 */
export function stampOf(before: ObjectStateRow | undefined, modifiedGmt: string | undefined, nowMs: number): number {
  const last = lastStampOf(before);
  const modified = modifiedGmt ? DateTime.fromSQL(modifiedGmt, { zone: 'UTC' }) : undefined;
  const candidate = modified?.isValid && (last === undefined || modified.toMillis() > last) ? modified.toMillis() : nowMs;
  return last === undefined ? candidate : Math.max(last + 1, candidate);
}

/**
 * The object of an announced event as its URL answers it: undefined unless it was announced and
 * is still visible (never announced: 404; deleted: 410). Its `updated` is the one last sent when it
 * has not changed since, else the one its next Update will carry.
 */
export function announcedObject(reader: PublicReader, json: PublicEventJson, state: ObjectStateRow | undefined, home: FederationUrls, nowMs = Date.now()): Record<string, unknown> | undefined {
  if (state?.state !== 'live') return undefined;
  const object = reader.object(json, home);
  const unchanged = objectDigest(object) === state.digest;
  const stamp = unchanged ? (state.updated_ms === null || state.updated_ms === undefined ? undefined : Number(state.updated_ms)) : stampOf(state, json.modified_utc, nowMs);
  return stamp === undefined ? object : { ...object, updated: msIso(stamp) };
}

export interface Outbox {
  /** One step of the consumer (and, when due, of the series sweep); true while rows are left. */
  step(): Promise<boolean>;
  /** Deliveries were queued: wake the sender. */
  onQueued(listener: () => void): void;
}

export interface OutboxDeps {
  services: Services;
  urls: FederationUrls;
  reader: PublicReader;
  objectHome: ObjectHome;
  blockedDomains: readonly string[];
  /** rows per step */
  limit?: number;
}

type Made = { activity?: OutboxStep['activities'][number]; object: ObjectStateRow } | undefined;

/** Whether an occurrence is too far ahead to federate yet. */
function beyondHorizon(e: PublicEventJson & { utc_start_date?: string }, parentId: number): boolean {
  if (!parentId) return false;
  const start = DateTime.fromSQL(e.utc_start_date ?? '', { zone: 'UTC' });
  return start.isValid && start > DateTime.utc().plus({ days: SERIES_HORIZON_DAYS });
}

/**
 * What one event needs now, given what was last sent. `announcedOnly`: the event is re-checked
 * for a change of something it shows (a venue, a bulk load), not of itself: only an event
 * already announced may need an activity (an event published before federation started is
 * announced when it is itself next edited, not when its venue is).
 */
async function evaluate(deps: OutboxDeps, id: number, before: ObjectStateRow | undefined, tag: string, announcedOnly = false): Promise<Made> {
  if (announcedOnly && before?.state !== 'live') return undefined;
  const { services, reader } = deps;
  const now = services.clock.nowGmt();
  const nowMs = Date.now();
  // An announced object keeps its actor (a rename moves only what is announced after it); a new
  // one, or one announced again after its Delete, is the calendar's actor's now.
  const { urls, home } = await deps.objectHome(before?.state === 'live' ? before.home : null);
  const json = await reader.event(id);
  if (json) {
    const record = await services.events.findById(id);
    if (beyondHorizon(json as PublicEventJson & { utc_start_date?: string }, Number(record?.parent_id ?? 0)) && before?.state !== 'live') {
      // Published while federation is on, too far ahead to announce yet: the sweep will.
      return before?.state === 'waiting'
        ? undefined
        : { object: { event_id: id, state: 'waiting', digest: '', published_gmt: now, updated_gmt: now, updated_ms: before?.updated_ms ?? null, home: null } };
    }
    const shown = reader.object(json, urls);
    const digest = objectDigest(shown);
    if (before?.state === 'live' && before.digest === digest) return undefined;
    const stamp = stampOf(before, json.modified_utc, nowMs);
    const object = { ...shown, updated: msIso(stamp) };
    const type = before?.state === 'live' ? 'Update' : 'Create';
    const activityId = urls.activity(`${type.toLowerCase()}-${id}-${tag}`);
    const body = withContext({
      id: activityId,
      type,
      actor: urls.actor,
      published: msIso(Math.max(nowMs, stamp)),
      to: [AS_PUBLIC],
      cc: [urls.followers],
      object,
    });
    return {
      activity: { id: activityId, type, event_id: id, body: JSON.stringify(body), created_gmt: now },
      object: { event_id: id, state: 'live', digest, published_gmt: before?.state === 'live' ? before.published_gmt : now, updated_gmt: now, updated_ms: stamp, home },
    };
  }
  if (before?.state !== 'live') return undefined;
  const stamp = stampOf(before, undefined, nowMs);
  const activityId = urls.activity(`delete-${id}-${tag}`);
  const body = withContext({
    id: activityId,
    type: 'Delete',
    actor: urls.actor,
    published: msIso(Math.max(nowMs, stamp)),
    to: [AS_PUBLIC],
    cc: [urls.followers],
    object: tombstone(urls, id, msIso(stamp)),
  });
  return {
    activity: { id: activityId, type: 'Delete', event_id: id, body: JSON.stringify(body), created_gmt: now },
    object: { event_id: id, state: 'gone', digest: '', published_gmt: before.published_gmt, updated_gmt: now, updated_ms: stamp, home },
  };
}

/**
 * The events a step's rows may have changed (`ids`), and among them those changed themselves
 * (`own`); the others show a record that changed (a venue, organizer or term), or are re-checked
 * after a bulk load.
 */
async function affected(services: Services, rows: ChangeRow[]): Promise<{ own: Set<number>; ids: number[] }> {
  const store = services.federationStore;
  const own = new Set<number>();
  const ids = new Set<number>();
  for (const row of rows) {
    if (row.type === 'event') {
      own.add(row.id);
      ids.add(row.id);
    } else if (row.type === 'all') for (const id of await store.liveObjectIds(100_000)) ids.add(id);
    else if (row.type === 'venue' || row.type === 'organizer' || row.type === 'term') {
      const filters: Array<Record<string, unknown>> = row.type === 'term' ? [{ categories: [row.id] }, { tags: [row.id] }] : [{ [row.type]: [row.id] }];
      for (const filter of filters) {
        for (let page = 1; page * 50 <= MAX_EVENTS_PER_LINKED_RECORD; page++) {
          const r = await services.events.list(ANONYMOUS, { page, per_page: 50, range: {}, ...filter }, services.links).catch(() => undefined);
          if (!r) break;
          for (const e of r.events) ids.add(Number(e.id));
          if (page >= r.totalPages) break;
        }
      }
      // Events no longer shown with it (a venue trashed) are among the live objects whose
      // representation named it: re-check those too.
      if (row.action === 'trash' || row.action === 'delete') for (const id of await store.liveObjectIds(100_000)) ids.add(id);
    }
  }
  return { own, ids: [...ids].sort((a, b) => a - b) };
}

/**
 * The Moves a step makes: one from each former identifier of the calendar at hand whose Move is
 * pending, to its actor now. A rename logs a reset, so a step follows it; the look is made at every
 * step all the same (one read by the calendar's key), so that a rename made while federation was
 * off, whose reset the log may no longer hold, is announced at the calendar's next change. As
 * Mastodon sends it: `actor` and `object` the old actor (whose key signs it: deliveries.ts),
 * `target` the new, whose `alsoKnownAs` lists the old (the receiver checks it). The default
 * calendar's identifier (FEDERATION_HANDLE) never changes.
 */
async function movesFor(deps: OutboxDeps, tag: string): Promise<{ activities: OutboxStep['activities']; moved: string[] }> {
  if (calendarIdNow() === DEFAULT_CALENDAR_ID) return { activities: [], moved: [] };
  const { services, urls } = deps;
  const moved = await services.federationStore.pendingMoves();
  const now = services.clock.nowGmt();
  const activities = moved.map((former) => {
    const origin = federationUrls(urls.origin, former, true).actor;
    const id = `${origin}#moves/${tag}`;
    const body = withContext({ id, type: 'Move', actor: origin, object: origin, target: urls.actor, published: msIso(Date.now()) });
    return { id, type: 'Move', event_id: null, body: JSON.stringify(body), created_gmt: now };
  });
  return { activities, moved };
}

/** The deliveries of these activities: one per follower inbox not on a blocked domain. */
async function deliveriesFor(deps: OutboxDeps, activities: OutboxStep['activities']): Promise<OutboxStep['deliveries']> {
  if (activities.length === 0) return [];
  const inboxes = (await deps.services.federationStore.followerInboxes()).filter((inbox) => {
    try {
      return !isBlockedHost(new URL(inbox).hostname, deps.blockedDomains);
    } catch {
      return false;
    }
  });
  return activities.flatMap((a) => inboxes.map((inbox) => ({ activity_id: a.id, activity_type: a.type, inbox, body: a.body })));
}

/** The deps of one step: each object home looked up once (a rename's step re-checks every announced event). */
function stepDeps(deps: OutboxDeps): OutboxDeps {
  const known = new Map<string, ReturnType<ObjectHome>>();
  const objectHome: ObjectHome = (home) => {
    let found = known.get(home ?? '');
    if (!found) known.set(home ?? '', (found = deps.objectHome(home)));
    return found;
  };
  return { ...deps, objectHome };
}

export function createOutbox(deps: OutboxDeps): Outbox {
  const { services } = deps;
  const store = services.federationStore;
  const listeners: Array<() => void> = [];
  let lastSweep = 0;
  const consumer: ChangeConsumer = {
    limit: deps.limit ?? 200,
    cursor: () => store.outboxCursor(),
    async handle(rows, { from, through }) {
      const { own, ids } = await affected(services, rows);
      const states = await store.objectStates(ids);
      const here = stepDeps(deps);
      // A rename's Moves go first; the Updates it causes (each announced event's page moved) come
      // from the actor each object was announced by, as every later Update and Delete of it.
      const moves = await movesFor(deps, String(through));
      const step: OutboxStep = { objects: [], activities: moves.activities, deliveries: [], moved: moves.moved };
      for (const id of ids) {
        const made = await evaluate(here, id, states.get(id), String(through), !own.has(id));
        if (!made) continue;
        step.objects.push(made.object);
        if (made.activity) step.activities.push(made.activity);
      }
      step.deliveries = await deliveriesFor(deps, step.activities);
      const stored = await store.storeOutboxStep(from, through, step, Date.now());
      if (stored && step.deliveries.length) for (const l of listeners) l();
    },
  };

  /** Occurrences that came within the horizon since they were published (those the consumer left `waiting`). */
  async function sweep(): Promise<void> {
    const nowLocal = services.clock.nowLocal();
    const until = DateTime.fromSQL(nowLocal).plus({ days: SERIES_HORIZON_DAYS }).toFormat('yyyy-MM-dd HH:mm:ss');
    const candidates: number[] = [];
    for (let page = 1; page <= 40; page++) {
      const r = await services.events.list(ANONYMOUS, { page, per_page: 50, range: { startsFrom: nowLocal.slice(0, 10) + ' 00:00:00', startsUntil: until } }, services.links);
      for (const e of r.events)
        if (Number((e as { recurring_event_id?: number }).recurring_event_id ?? 0) > 0 || Number((e as { post_parent?: number }).post_parent ?? 0) > 0) candidates.push(Number(e.id));
      if (page >= r.totalPages) break;
    }
    if (candidates.length === 0) return;
    const states = await store.objectStates(candidates);
    const step: OutboxStep = { objects: [], activities: [], deliveries: [] };
    const tag = `sweep${Date.now()}`;
    const here = stepDeps(deps);
    for (const id of candidates) {
      // Only occurrences published (or changed) while federation was on, and kept waiting.
      if (states.get(id)?.state !== 'waiting') continue;
      const made = await evaluate(here, id, states.get(id), tag);
      if (!made) continue;
      step.objects.push(made.object);
      if (made.activity) step.activities.push(made.activity);
    }
    if (step.objects.length === 0) return;
    step.deliveries = await deliveriesFor(deps, step.activities);
    // The sweep moves no cursor: the cursor is compared with itself.
    const cursor = await consumer.cursor();
    if ((await store.storeOutboxStep(cursor, cursor, step, Date.now())) && step.deliveries.length) for (const l of listeners) l();
  }

  /** Run `fn` in a calendar; a calendar deleted meanwhile has nothing left to do. */
  async function inCalendar(id: number, fn: () => Promise<void>): Promise<void> {
    try {
      await services.calendars.within(id, fn);
    } catch (err) {
      if ((err as { code?: string }).code !== 'calendar_not_found') throw err;
    }
  }

  return {
    async step() {
      // The calendars with rows of their own after their cursor (a look across calendars for due
      // work): a step of each, in its calendar. A calendar without any is not read at all.
      const due = await store.outboxCalendarsDue(CALENDARS_PER_STEP);
      for (const id of due) {
        await inCalendar(id, async () => {
          await store.runOutbox(consumer);
        });
      }
      const more = due.length > 0 && (await store.outboxCalendarsDue(1)).length > 0;
      if (!more && Date.now() - lastSweep > 3_600_000) {
        lastSweep = Date.now();
        for (const id of await store.outboxCalendars(SWEPT_CALENDARS)) await inCalendar(id, sweep);
      }
      return more;
    },
    onQueued(listener) {
      listeners.push(listener);
    },
  };
}
