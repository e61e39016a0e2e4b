/**
 * Reading the change log (migration 005, `change-notes.ts`): each open store has one feed that knows
 * the sequence number its readers' kept results reflect (`seq()`), and brings them up to the
 * database's (`sync()`): it reads the log rows written since, the current listing state and text
 * of the events they name, and hands each subscriber one batch of transitions to apply. Writes of
 * this process and of any other (a second instance on the same PostgreSQL, a CLI command on the
 * same SQLite file) are seen the same way; nothing is dropped wholesale except on a bulk load or a
 * change too large to follow.
 *
 * SQLite (sqlite-feed.ts): `sync()` first compares `PRAGMA data_version` and `total_changes()`
 * with the last look: unchanged, the kept results are current. It reads the log synchronously on
 * the server's one connection, in one read transaction, so log and states are one snapshot even
 * while another process (a second instance, a CLI command) commits.
 * PostgreSQL: requests asking during one turn of the event loop share one read of the counter;
 * when it moved, the log and states are read in one REPEATABLE READ transaction.
 *
 * A recent history of transitions is kept, so that a result computed at an older or newer sequence
 * number than the feed's (a count that ran on a background connection for a while) can be brought
 * to the feed's number before it is kept (`transitionsBetween`).
 *
 * @example
 *   const feed = store.feed;
 *   feed.subscribe((batch) => { for (const t of batch.events) cache.delete(t.id); });
 *   await feed.sync(); // now the kept results reflect every committed write
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { listingStateOf, type ListingRow, type ListingState } from './listing-states.js';
import { changeRowsCte, headOf, toChangeRow, type ChangeRow } from './change-log.js';
import { registerKept, storeMetricsOf } from '../metrics.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow, isAcrossCalendars } from './calendar-scope.js';
import { MAX_POSITIONS, createCalendarPositions, lookPositionsPostgres, type FeedStamp } from './calendar-positions.js';
import { LISTENER_GONE, buildBatch, calendarBatches, type BatchParts, type ChangeBatch, type ChangeListener, type EventText, type EventTransition } from './change-batches.js';

export type { FeedStamp } from './calendar-positions.js';
export { buildBatch, type ChangeBatch, type ChangeListener, type EventText, type EventTransition, type FeedRow } from './change-batches.js';

export interface ChangeFeed {
  /** The sequence number kept results reflect now (synchronous). */
  seq(): number;
  /**
   * The data revision of the calendar at hand (`calendarIdNow`), for caches keyed by one value:
   * the number of its last change the feed applied (its own rows, or people's, which every
   * calendar shows), and how often the feed had to reset without knowing what changed. Another
   * calendar's writes leave it as it is: they neither drop this calendar's kept results nor show
   * a reader of it how often the store is written. Across calendars (`acrossCalendars`): the
   * whole log's number, and every reset, marked `a`. A calendar whose position the feed does not
   * know yet (PostgreSQL, before a `sync()` in it) answers with the whole log's, marked `*a`.
   */
  revision(): string;
  /**
   * As `revision`, moved only by changes of something other than events and terms
   * (`ChangeBatch.linkedChanged`) or a reset: what venue and organizer lists that do not depend on
   * events are kept for (an event create does not recount 50,000 venues).
   */
  linkedRevision(): string;
  /**
   * Where the calendar at hand stands (across calendars: the whole log): the number of its last
   * change and its revision, as `revision`; undefined while the feed does not know it (PostgreSQL,
   * before a `sync()` in that calendar).
   */
  here(): { seq: number; revision: string } | undefined;
  /** `revision` of a named calendar (no scope at hand: replayed answers); undefined while not known. */
  calendarRevision(calendar: number): string | undefined;
  /** The feed's position now, to ask later whether a calendar changed since (`calendarRevisionSince`). */
  stamp(): FeedStamp;
  /**
   * The calendar's revision when nothing of it changed since `stamp` (its own rows, people's, a
   * reset); undefined when something did, or the feed does not know (an answer begun at `stamp`
   * may then be older than the revision).
   */
  calendarRevisionSince(calendar: number, stamp: FeedStamp): string | undefined;
  /** Apply every committed change to the subscribers; resolves with the new sequence number. */
  sync(): Promise<number>;
  /**
   * Hear every batch: of every calendar (the default, for a listener made in the default calendar
   * or across calendars), or with `calendar` (by default, the calendar other than the default one
   * the listener is made in), that calendar's part of each (its own writes and people's): what
   * keeps one calendar's results (its list totals, its settings) hears that calendar only.
   */
  subscribe(listener: ChangeListener, options?: { calendar?: number }): void;
  /** Drop the listeners of one calendar (its kept structures were let go: store/handle.ts `slotsOf`). */
  forgetCalendar(calendar: number): void;
  /**
   * Writes may have been committed since the last look (a batch of requests arrived: `app.ts`
   * calls it for the first request the HTTP server reads in a poll of the event loop, and for each
   * in-process request): the next `sync()` must look. Between two such calls, a feed looks at
   * most once per turn of the event loop: SQLite for other connections' commits (`PRAGMA
   * data_version`, about 5 µs and three system calls; this connection's own writes are seen at
   * once through `total_changes()`), PostgreSQL by reading its counter (a round trip), so the
   * requests of a batch and the several reads of one request cost one look. Every request of a
   * batch had its first bytes waiting before the poll returned, so before that look: it sees every
   * commit acknowledged before it was sent (only a pipelined request, sent before the previous
   * answer arrived and read in the same poll, can be answered as of a look made a moment before
   * it was sent). A commit that lands while a request is being answered is seen by the next batch
   * or turn, as if it had committed a moment later.
   */
  expectChanges(): void;
  /**
   * This process committed a write (PostgreSQL: the pool's query wrapper says so): as
   * `expectChanges`, and the next look will find log rows, so it reads them at once instead of
   * first reading the counter alone.
   */
  expectOwnCommit(): void;
  /**
   * The event transitions in (from, to], or undefined when they are not all known (a reset, or
   * older than the kept history): then a result computed at `from` cannot be brought to `to`.
   */
  transitionsBetween(from: number, to: number): EventTransition[] | undefined;
  /** What the feed keeps (its history of transitions, its listeners, calendars' positions), for `/metrics`. */
  readonly kept?: { transitions(): number; bytes(): number; listeners(): number; positions(): number };
  /** Looks for other connections' or instances' commits since the feed was made (`/metrics`: `calendar_feed_looks_total`). */
  readonly looks?: () => number;
  /**
   * SQLite: other connections' commits found without log rows, by whether they were the service's
   * own state outside the log (`marked`, quiet-writes.ts: nothing dropped) or not (`unknown`: every
   * calendar's kept results dropped and revision moved); and moves of the data version a look saw
   * before the commit that made them (`explainedLater`: a writer starting the write-ahead log over).
   * `/metrics`: `calendar_feed_unlogged_commits_total`.
   */
  readonly unlogged?: () => { marked: number; unknown: number; explainedLater: number };
}

/** Log rows read in one go; more than this and the feed resets its subscribers instead. */
export const MAX_ROWS = 20_000;
/** Transitions kept for `transitionsBetween`. */
const HISTORY = 5_000;
/** ... and at most about this many bytes of them (their texts), whichever comes first. */
const HISTORY_BYTES = 16 * 1024 * 1024;
/** Listeners a feed expects at most (what `/metrics` reports as their bound; more is a leak). */
const MAX_LISTENERS = 100;
/** A rough size in bytes of a transition: its two listing states and its texts. */
function transitionBytes(t: EventTransition): number {
  const text = (x: EventText | undefined) => (x ? x.title.length + x.excerpt.length + x.content.length : 0);
  return 400 + 8 * ((t.before?.terms.length ?? 0) + (t.after?.terms.length ?? 0)) + text(t.beforeText) + text(t.afterText);
}
/** Texts longer than this are not kept (the list's search over them is then recounted). */
const MAX_TEXT = 256 * 1024;

/** Raw event row as the feed reads it: listing state columns and text. */
export interface StateRow extends ListingRow {
  title: string;
  excerpt: string;
  content: string;
}

export function textOf(r: EventText): EventText | undefined {
  return r.title.length + r.excerpt.length + r.content.length > MAX_TEXT ? undefined : { title: r.title, excerpt: r.excerpt, content: r.content };
}

/** The machinery both dialects share (sqlite-feed.ts, `createPostgresFeed`): subscribers, history, applying a batch. */
export function feedCore() {
  let seq = -1;
  let resets = 0;
  /** the `to` of the last batch that changed something other than events and terms, or reset */
  let linkedSeq = -1;
  /** each listener with the calendar it was made in (undefined: it hears every calendar's changes) */
  const listeners: Array<{ hear: ChangeListener; calendar: number | undefined }> = [];
  /** Each listener hears (`hear`), and those whose structure is gone are dropped. */
  const hearAll = (hear: (l: (typeof listeners)[number]) => ReturnType<ChangeListener>): void => {
    const gone = new Set<(typeof listeners)[number]>();
    for (const l of listeners) if (hear(l) === LISTENER_GONE) gone.add(l);
    if (gone.size > 0) for (let i = listeners.length - 1; i >= 0; i--) if (gone.has(listeners[i]!)) listeners.splice(i, 1);
  };
  const history: EventTransition[] = [];
  /** bytes of `history` (`transitionBytes`) */
  let historyBytes = 0;
  /** sequence numbers at or below this one are not all in `history` */
  let historyFloor = -1;
  const positions = createCalendarPositions(() => seq);
  const suffix = (n: number) => (n === 0 ? '' : `~${n}`);
  // Marked apart from any calendar's: a structure kept in the default calendar's slots is also the
  // one work across calendars uses (`slotsOf`), and the same number would name other data there.
  const globalRevision = () => `a${seq}${suffix(resets)}`;
  return {
    /** What is kept: `/metrics` reports it (`registerChangeFeed`). */
    kept: { transitions: () => history.length, bytes: () => historyBytes, listeners: () => listeners.length, positions: positions.size },
    seq: () => seq,
    globalRevision,
    globalLinkedRevision: () => `a${linkedSeq}${suffix(resets)}`,
    positions,
    subscribe(listener: ChangeListener, options: { calendar?: number } = {}) {
      // A structure made in another calendar than the default one (kept in that calendar's slots)
      // hears that calendar, and goes with its slots (`forgetCalendar`): without this, each
      // calendar ever asked left its structures' listeners behind.
      const here = calendarIdNow();
      const calendar = options.calendar ?? (here === DEFAULT_CALENDAR_ID || isAcrossCalendars() ? undefined : here);
      listeners.push({ hear: listener, calendar });
    },
    forgetCalendar(calendar: number) {
      for (let i = listeners.length - 1; i >= 0; i--) if (listeners[i]!.calendar === calendar) listeners.splice(i, 1);
    },
    /**
     * First sync: from now on kept results reflect this number. Anything kept before it (a result
     * built before the feed knew its number) is dropped.
     */
    start(value: number) {
      seq = value;
      linkedSeq = value;
      historyFloor = value;
      const batch = buildBatch(value, value, [], new Map(), new Map(), true);
      hearAll((l) => l.hear(batch));
    },
    apply(batch: ChangeBatch, made?: BatchParts) {
      if (batch.reset) resets++;
      // Without the batch's rows (a reset it could not read, a commit without log rows), which
      // calendars changed is not known: every one is looked up again.
      if (!made || (batch.reset && made.rows.length === 0)) {
        if (batch.reset || batch.to !== batch.from) positions.apply(undefined);
      } else positions.apply(made.rows);
      if (batch.reset || batch.linkedChanged) linkedSeq = batch.to;
      if (batch.reset || batch.listsReset) {
        history.length = 0;
        historyBytes = 0;
        historyFloor = batch.to;
      } else {
        for (const t of batch.events) {
          history.push(t);
          historyBytes += transitionBytes(t);
        }
        if (history.length > HISTORY || historyBytes > HISTORY_BYTES) {
          // The oldest go until both bounds hold.
          let cut = Math.max(0, history.length - HISTORY);
          let bytes = historyBytes;
          for (let i = 0; i < cut; i++) bytes -= transitionBytes(history[i]!);
          while (cut < history.length && bytes > HISTORY_BYTES) bytes -= transitionBytes(history[cut++]!);
          historyFloor = history[cut - 1]!.seq;
          // Drop whole sequence numbers only.
          let k = cut;
          while (k < history.length && history[k]!.seq === historyFloor) bytes -= transitionBytes(history[k++]!);
          history.splice(0, k);
          historyBytes = bytes;
        }
      }
      seq = batch.to;
      const byCalendar = calendarBatches(batch, made);
      hearAll((l) => l.hear(l.calendar === undefined ? batch : byCalendar(l.calendar)));
    },
    transitionsBetween(from: number, to: number): EventTransition[] | undefined {
      if (from === to) return [];
      // A result from ahead of the feed cannot be kept: the feed would apply those changes again.
      if (from > to || from < historyFloor || to > seq) return undefined;
      const across = isAcrossCalendars();
      const calendar = calendarIdNow();
      return history.filter((t) => t.seq > from && t.seq <= to && (across || t.calendar === calendar));
    },
  };
}

/**
 * What both dialects answer of calendars' revisions (`revision`, `here`, …), over the core: `know`
 * looks a calendar's position up when it can at once (SQLite) and does nothing otherwise
 * (PostgreSQL looks it up in `sync()`).
 */
export function calendarViews(core: ReturnType<typeof feedCore>, know: (calendar: number) => void) {
  const { positions } = core;
  const known = (calendar: number) => {
    if (!positions.known(calendar)) know(calendar);
    return calendar;
  };
  return {
    revision(): string {
      if (isAcrossCalendars()) return core.globalRevision();
      return positions.revision(known(calendarIdNow())) ?? `*${core.globalRevision()}`;
    },
    linkedRevision(): string {
      if (isAcrossCalendars()) return core.globalLinkedRevision();
      return positions.linkedRevision(known(calendarIdNow())) ?? `*${core.globalLinkedRevision()}`;
    },
    here(): { seq: number; revision: string } | undefined {
      if (isAcrossCalendars()) return { seq: core.seq(), revision: core.globalRevision() };
      return positions.here(known(calendarIdNow()));
    },
    calendarRevision: (calendar: number) => positions.revision(known(calendar)),
    stamp: positions.stamp,
    calendarRevisionSince: (calendar: number, stamp: FeedStamp) => positions.revisionSince(known(calendar), stamp),
  };
}

/** The listing state, text, terms and organizers of one event, as one look returns them. */
type LookedState = ListingRow & { text: [string, string, string] | null; terms: number[]; organizers: number[] };

/** What one look at a PostgreSQL database found. */
interface Look {
  /** the feed's number the look read from */
  from: number;
  /** the log's number at the look */
  value: number;
  rows: ChangeRow[];
  truncated: boolean;
  states: Map<number, ListingState>;
  texts: Map<number, EventText | undefined>;
}

/**
 * One look at a PostgreSQL database, in one statement (one snapshot, no transaction, one round
 * trip): the log's counter, its rows after `from` (at most `MAX_ROWS + 1`), and the listing state
 * and text of the events they name (not when there are more rows than that: the batch resets
 * anyway). When the counter has not moved (or `from < 0`: the feed's first look) the rest is not
 * evaluated. Texts over `MAX_TEXT` come back as null (not kept, as `textOf` decides).
 */
export async function lookPostgres(db: Executor, from: number): Promise<Look> {
  const limit = MAX_ROWS + 1;
  const r = await sql<{
    value: number | string;
    changes: Array<[number | string, number, string, number, string, string | null, number]> | null;
    states: LookedState[] | null;
  }>`with ${changeRowsCte(from, limit)},
  "ev" as (select distinct "calendar_id", "record_id" as "id" from "ch" where "record_type" = 'event' and (select count(*) from "ch") < ${limit}::int)
select "c"."value",
  case when "c"."value" <> ${from}::bigint and ${from}::bigint >= 0 then (select json_agg(json_build_array("seq", "idx", "record_type", "record_id", "action", "detail", "calendar_id") order by "seq", "idx") from "ch") end as "changes",
  case when "c"."value" <> ${from}::bigint and ${from}::bigint >= 0 then (select json_agg(json_build_object(
      'id', p."id", 'status', p."status", 'author_id', p."author_id", 'parent_id', p."parent_id", 'date_gmt', p."date_gmt",
      'start_local', e."start_local", 'end_local', e."end_local", 'hide_from_listings', e."hide_from_listings", 'featured', e."featured",
      'venue_id', e."venue_id", 'venue_lat', v."geo_lat", 'venue_lng', v."geo_lng", 'protected', p."password" <> '',
      'text', case when length(p."title") + length(p."excerpt") + length(p."content") > ${MAX_TEXT}::int then null else json_build_array(p."title", p."excerpt", p."content") end,
      'terms', (select coalesce(json_agg(t."term_id"), '[]') from "event_terms" t where t."calendar_id" = p."calendar_id" and t."event_id" = p."id"),
      'organizers', (select coalesce(json_agg(o."organizer_id" order by o."position"), '[]') from "event_organizers" o where o."calendar_id" = p."calendar_id" and o."event_id" = p."id")))
    from "posts" p inner join "events" e on e."calendar_id" = p."calendar_id" and e."post_id" = p."id" left join "venues" v on v."calendar_id" = e."calendar_id" and v."post_id" = e."venue_id"
    where (p."calendar_id", p."id") in (select "calendar_id", "id" from "ev")) end as "states"
from "c"`.execute(db);
  const row = r.rows[0];
  const value = Number(row?.value ?? 0);
  const raw = row?.changes ?? [];
  const truncated = raw.length > MAX_ROWS || (from >= 0 && value < from);
  const rows = truncated ? [] : raw.map(([seq, idx, record_type, record_id, action, detail, calendar_id]) => toChangeRow({ seq, idx, record_type, record_id, action, detail, calendar_id }));
  const states = new Map<number, ListingState>();
  const texts = new Map<number, EventText | undefined>();
  if (!truncated) {
    for (const s of row?.states ?? []) {
      const id = Number(s.id);
      states.set(id, listingStateOf(s, s.terms.map(Number), s.organizers.map(Number)));
      texts.set(id, s.text ? { title: s.text[0], excerpt: s.text[1], content: s.text[2] } : undefined);
    }
  }
  return { from, value, rows, truncated, states, texts };
}

/**
 * The feed of a PostgreSQL database, over its Kysely handle. Requests asking during one turn of
 * the event loop share one look: the counter alone, and when it moved, one statement that reads
 * the new log rows with the states of the events they name ({@link lookPostgres}); after a commit
 * of this process, or after a look that found the counter moved (under writes), that statement at
 * once.
 */
export function createPostgresFeed(db: Executor): ChangeFeed {
  const core = feedCore();
  let shared: Promise<Look & { sentAt: number }> | undefined;
  // Bumped whenever changes may have been committed since the last look (`expectChanges`, and each
  // turn of the event loop after a look); a look answers for the epoch in which its read was sent.
  let epoch = 0;
  let lookedEpoch = -1;
  let turnEndScheduled = false;
  const endTurn = () => {
    turnEndScheduled = false;
    epoch++;
  };

  // Requests asking during the same turn of the event loop share one look, sent after all of them
  // asked (so its answer is never older than any of them).
  // Whether this process committed since the last look (then the look reads the log at once).
  let ownCommits = false;
  // Whether the last look found the counter moved (see `sharedLook`).
  let lastMoved = false;
  let looks = 0;
  const sharedLook = (): Promise<Look & { sentAt: number }> => {
    shared ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      shared = undefined;
      looks++;
      const sentAt = epoch;
      const from = core.seq();
      // Most looks find nothing new (every request looks once, for other instances' commits):
      // the counter alone costs PostgreSQL about half of what the whole look's plan does. Under
      // writes most looks find something, and reading the counter first would then cost a second
      // round trip: after a look that found the counter moved, the next reads the log at once
      // (the whole look's statement answers with the counter alone when it has not moved).
      if (!ownCommits && !lastMoved && from >= 0) {
        const value = await headOf(db);
        if (value === from) return { from, value, rows: [], truncated: false, states: new Map(), texts: new Map(), sentAt };
      }
      ownCommits = false;
      const look = await lookPostgres(db, from);
      lastMoved = from >= 0 && look.value !== from;
      return { ...look, sentAt };
    });
    return shared;
  };

  // Positions of calendars looked up now, one look-up per calendar however many requests ask.
  const learning = new Map<number, Promise<void>>();
  const learn = (calendar: number): Promise<void> => {
    let pending = learning.get(calendar);
    if (!pending) {
      const at = core.positions.lookupAt();
      pending = lookPositionsPostgres(db, calendar, at.seq)
        .then((found) => core.positions.learn(calendar, found.own, found.people, at))
        .finally(() => learning.delete(calendar));
      learning.set(calendar, pending);
    }
    return pending;
  };

  // The calendar at hand's position is known after a sync (its revision is then its own).
  const sync = async (): Promise<number> => {
    await syncLog();
    if (!isAcrossCalendars()) {
      const calendar = calendarIdNow();
      if (!core.positions.known(calendar)) await learn(calendar);
    }
    return core.seq();
  };

  const syncLog = async (): Promise<number> => {
    if (lookedEpoch === epoch && core.seq() >= 0) return core.seq();
    for (;;) {
      const look = await sharedLook();
      if (core.seq() < 0) core.start(look.value);
      else if (look.value > core.seq() || look.truncated) {
        // Another look applied meanwhile from an older number: this one's rows start elsewhere.
        if (look.from !== core.seq()) continue;
        core.apply(buildBatch(look.from, look.value, look.rows, look.states, look.texts, look.truncated), look);
      }
      if (look.sentAt > lookedEpoch) lookedEpoch = look.sentAt;
      break;
    }
    if (!turnEndScheduled) {
      turnEndScheduled = true;
      setImmediate(endTurn);
    }
    return core.seq();
  };

  const feed: ChangeFeed = {
    seq: core.seq,
    ...calendarViews(core, () => {}),
    sync,
    expectChanges: () => {
      epoch++;
    },
    expectOwnCommit: () => {
      ownCommits = true;
      epoch++;
    },
    subscribe: core.subscribe,
    forgetCalendar: core.forgetCalendar,
    transitionsBetween: core.transitionsBetween,
    kept: core.kept,
    looks: () => looks,
  };
  return feed;
}

/** Report what a store's feed keeps in `/metrics` (db.ts, when it opens the store). */
export function registerFeedMetrics(db: object, feed: ChangeFeed): void {
  const metrics = storeMetricsOf(db);
  if (metrics && feed.looks) metrics.feedLooks = feed.looks;
  if (metrics && feed.unlogged) metrics.feedUnlogged = feed.unlogged;
  const kept = feed.kept;
  if (kept) {
    registerKept(db, 'feed_transitions', { entries: kept.transitions, maxEntries: HISTORY, bytes: kept.bytes, maxBytes: HISTORY_BYTES });
    // One per structure that follows the feed (made once per store or per links, never per request).
    registerKept(db, 'feed_listeners', { entries: kept.listeners, maxEntries: MAX_LISTENERS });
    // The last change of each calendar written or asked lately (its revision).
    registerKept(db, 'feed_calendar_positions', { entries: kept.positions, maxEntries: MAX_POSITIONS });
  }
}
