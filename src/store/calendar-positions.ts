/**
 * Each calendar's position in the change log, for its data revision (`ChangeFeed.revision`): the
 * number of its last change (its own log rows) or of people's (user rows, which every calendar
 * shows), whichever is later. The change feed moves them with each batch it applies; a calendar
 * not known is looked up in the log (`POSITIONS_SQL`, `lookPositionsPostgres`: the newest rows at
 * or below the feed's number), so a value is the log's alone and every instance agrees on it.
 * Resets whose changes the feed cannot tell forget every position and add `~n` to revisions.
 *
 * @example
 *   const positions = createCalendarPositions(() => feed.seq());
 *   positions.apply(batch, rows); // a batch's rows move their calendars
 *   positions.revision(7); // '1043', or undefined until calendar 7 is looked up
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { DEFAULT_CALENDAR_ID } from './calendar-scope.js';
import type { FeedRow } from './change-batches.js';

/**
 * Calendars whose last change a feed keeps at most: past it, the one written longest ago is
 * forgotten, and looked up again in the log when next asked (its value is the log's, so every
 * instance and every start agrees on it).
 */
export const MAX_POSITIONS = 10_000;

/** A feed's position, for `revisionSince`. */
export interface FeedStamp {
  readonly seq: number;
  readonly blind: number;
}

/** Where a look-up of positions starts: the feed's number, and which positions it may fill. */
export interface LookupAt {
  seq: number;
  generation: number;
}

/** A calendar's last change, and its last change of anything but events and terms. */
interface Position {
  seq: number;
  linked: number;
}

/**
 * The newest log row of a calendar (but credentials: `apply` moves no calendar with them), and of
 * people, at or below a number (SQLite, bound as calendar, upTo, upTo). People's is read through
 * the log's `(record_type, record_id, seq)` index (`+"seq"` keeps the planner off the sequence
 * index): with statistics from when the log was small, SQLite walked the whole log back from the
 * top for the few `user` rows, 107 ms on a log of 460,000 rows, on the event loop, for the first
 * request in each calendar.
 */
export const POSITIONS_SQL =
  'select (select max("seq") from "changes" where "calendar_id" = ? and "seq" <= ? and "record_type" <> \'credentials\') as "own", (select max("seq") from "changes" where "record_type" = \'user\' and +"seq" <= ?) as "people"';

/** `POSITIONS_SQL` on PostgreSQL: the newest log row of a calendar, and of people, at or below `upTo` (0: none). */
export async function lookPositionsPostgres(db: Executor, calendar: number, upTo: number): Promise<{ own: number; people: number }> {
  const r = await sql<{
    own: number | string | null;
    people: number | string | null;
  }>`select (select max("seq") from "changes" where "calendar_id" = ${calendar} and "seq" <= ${upTo} and "record_type" <> 'credentials') as "own", (select max("seq") from "changes" where "record_type" = 'user' and "seq" <= ${upTo}) as "people"`.execute(
    db,
  );
  return { own: Number(r.rows[0]?.own ?? 0), people: Number(r.rows[0]?.people ?? 0) };
}

export function createCalendarPositions(feedSeq: () => number) {
  /** each calendar's position, the calendar written last at the end */
  const positions = new Map<number, Position>();
  let people: Position | undefined;
  /** resets whose changes the feed could not tell (a truncated batch, a commit without log rows): every calendar's revision moves */
  let blind = 0;
  /** bumped when every position is forgotten (a blind reset): a look-up begun before does not count */
  let generation = 0;
  const place = (calendar: number, p: Position) => {
    positions.set(calendar, p);
    if (positions.size > MAX_POSITIONS) positions.delete(positions.keys().next().value!);
  };
  const remember = (calendar: number, at: number, linkedToo: boolean) => {
    const p = positions.get(calendar);
    if (!p) return place(calendar, { seq: at, linked: at }); // this row is its newest; the linked part's is at most this
    positions.delete(calendar);
    p.seq = at;
    if (linkedToo) p.linked = at;
    positions.set(calendar, p);
  };
  const tag = (n: number) => (blind === 0 ? String(n) : `${n}~${blind}`);
  /** The calendar's last change (own or people's) and linked change, or undefined when either is not known. */
  const positionOf = (calendar: number): Position | undefined => {
    const p = positions.get(calendar);
    if (!p || !people) return undefined;
    return { seq: Math.max(p.seq, people.seq), linked: Math.max(p.linked, people.linked) };
  };
  return {
    size: () => positions.size,
    known: (calendar: number) => positions.has(calendar) && people !== undefined,
    /** The calendar's last change and its revision, or undefined while not known. */
    here(calendar: number): { seq: number; revision: string } | undefined {
      const p = positionOf(calendar);
      return p && { seq: p.seq, revision: tag(p.seq) };
    },
    revision: (calendar: number): string | undefined => {
      const p = positionOf(calendar);
      return p && tag(p.seq);
    },
    linkedRevision: (calendar: number): string | undefined => {
      const p = positionOf(calendar);
      return p && tag(p.linked);
    },
    stamp: (): FeedStamp => ({ seq: feedSeq(), blind }),
    /** The calendar's revision when nothing of it changed since `stamp`, else undefined. */
    revisionSince(calendar: number, stamp: FeedStamp): string | undefined {
      const p = positionOf(calendar);
      return p && p.seq <= stamp.seq && blind === stamp.blind ? tag(p.seq) : undefined;
    },
    lookupAt: (): LookupAt => ({ seq: feedSeq(), generation }),
    /**
     * What a look-up found at `at` (the newest log row of the calendar, and of people, at or below
     * `at.seq`: 0 for none); rows applied since are newer and keep their place.
     */
    learn(calendar: number, own: number, ofPeople: number, at: LookupAt) {
      if (at.generation !== generation || at.seq < 0 || at.seq > feedSeq()) return;
      people ??= { seq: ofPeople, linked: ofPeople };
      if (!positions.has(calendar)) place(calendar, { seq: own, linked: own });
    },
    /** A batch's rows move their calendars; without them (`rows` undefined) which changed is not known: all are forgotten. */
    apply(rows: readonly FeedRow[] | undefined) {
      if (!rows) {
        blind++;
        generation++;
        positions.clear();
        people = undefined;
        return;
      }
      for (const r of rows) {
        if (r.type === 'user') people = { seq: r.seq, linked: r.seq };
        // Sessions, application passwords, second factors: no answer shows them.
        else if (r.type === 'credentials') continue;
        else remember(r.calendar ?? DEFAULT_CALENDAR_ID, r.seq, r.type !== 'event' && r.type !== 'term' && r.type !== 'lists');
      }
    },
  };
}

export type CalendarPositions = ReturnType<typeof createCalendarPositions>;
