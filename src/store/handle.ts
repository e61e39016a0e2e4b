/**
 * The parts of one open store that code given only its Kysely handle needs: the dialect, the
 * change feed and log, SQLite's direct statements, checkpointer, background reader and group
 * commit, its metrics (counters and kept structures, `src/metrics.ts`), and what store modules
 * keep per store (`slot`). `openStore` (db.ts) makes them and the
 * handle together: `store.db` is a {@link StoreDb}, whose `parts` they are. A transaction, or a
 * Kysely instance not made by `openStore`, has none (`partsOf` answers undefined): it caches
 * nothing and runs its writes as they come.
 *
 * @example
 *   const parts = partsOf(db); // undefined inside a transaction
 *   await parts?.feed.sync();
 */
import { Kysely, type KyselyConfig } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database, Executor } from './schema.js';
import type { ChangeFeed } from './change-feed.js';
import type { ChangeLog } from './change-log.js';
import type { SqliteDirect } from './sqlite-direct.js';
import type { QuietWrites } from './quiet-writes.js';
import type { Checkpointer } from './checkpointer.js';
import type { BackgroundReader } from './background-reader.js';
import type { DialectName } from './dialect.js';
import type { StoreMetrics } from '../metrics.js';
import { calendarIdNow, DEFAULT_CALENDAR_ID } from './calendar-scope.js';

export type { DialectName };

/** A store's group commit (SQLite: writes that wait run in one transaction; `changes.ts`). */
export interface GroupCommit {
  run(fn: (trx: Executor) => Promise<unknown>): Promise<unknown>;
}

/** A key for something a store module keeps per store (`slot`): made once per module, at load. */
export interface SlotKey<T> {
  readonly name: string;
  /** never set: carries the slot's type */
  readonly type?: T;
}

export function slotKey<T>(name: string): SlotKey<T> {
  return { name };
}

export interface StoreParts {
  dialect: DialectName;
  feed: ChangeFeed;
  changes: ChangeLog;
  /** SQLite: the connection (backups) */
  connection?: BetterSqlite3.Database;
  /** SQLite: the marking of its writes outside the change log (quiet-writes.ts) */
  quiet?: QuietWrites;
  /** SQLite: statements run on the connection directly (sqlite-direct.ts) */
  direct?: SqliteDirect;
  /** SQLite files: WAL checkpoints beside the event loop */
  checkpointer?: Checkpointer;
  /** SQLite files: long reads on a connection of their own */
  reader?: BackgroundReader;
  /** SQLite: group commit, made on the first write */
  groupCommit?: GroupCommit;
  /** its counters and kept structures, which `/metrics` reports (src/metrics.ts) */
  metrics: StoreMetrics;
  /** what store modules keep per store, by their keys */
  slots: Map<SlotKey<unknown>, unknown>;
}

/** A store's Kysely handle, with its parts. */
export class StoreDb extends Kysely<Database> {
  readonly parts: StoreParts;

  constructor(config: KyselyConfig, parts: StoreParts) {
    super(config);
    this.parts = parts;
  }
}

/** The parts of a store's handle (undefined for a transaction, or a handle `openStore` did not make). */
export function partsOf(db: object): StoreParts | undefined {
  return db instanceof StoreDb ? db.parts : undefined;
}

/** The checkpointer of a store's handle (SQLite files only). */
export function checkpointerOf(db: object): Checkpointer | undefined {
  return partsOf(db)?.checkpointer;
}

/** The background reader of a store's handle (SQLite files; not transactions, not :memory:). */
export function backgroundReaderOf(db: object): BackgroundReader | undefined {
  return partsOf(db)?.reader;
}

/**
 * The slots of the calendar of the work at hand: what a module keeps (lists' results, totals, term
 * rows) is that calendar's alone, so that a key (a query) never answers with another calendar's
 * rows. The default calendar's are `parts.slots`; other calendars' are kept for the most recently
 * used ones only (`CALENDAR_SLOTS`), so that the memory of idle calendars stays bounded.
 */
export function slotsOf(parts: StoreParts): Map<SlotKey<unknown>, unknown> {
  const id = calendarIdNow();
  if (id === DEFAULT_CALENDAR_ID) return parts.slots;
  let kept = parts.slots.get(CALENDAR_SLOTS_KEY) as CalendarSlots | undefined;
  if (!kept) {
    const made: CalendarSlots = (kept = { byCalendar: new Map(), lastId: DEFAULT_CALENDAR_ID, last: parts.slots });
    parts.slots.set(CALENDAR_SLOTS_KEY, made);
    parts.metrics.structures.push({ kind: 'calendar_slots', structure: { entries: () => made.byCalendar.size, maxEntries: CALENDAR_SLOTS } });
  }
  // A request asks many times over (every kept term count of every event it shows): the calendar
  // used last is already the newest, and moving it again would churn the map's table.
  if (kept.lastId === id) return kept.last;
  const { byCalendar } = kept;
  let slots = byCalendar.get(id);
  if (slots) {
    byCalendar.delete(id);
  } else {
    slots = new Map();
    if (byCalendar.size >= CALENDAR_SLOTS) {
      // The calendar used longest ago lets its structures go, and their listeners with them.
      const oldest = byCalendar.keys().next().value!;
      byCalendar.delete(oldest);
      parts.feed.forgetCalendar(oldest);
    }
  }
  byCalendar.set(id, slots);
  kept.lastId = id;
  kept.last = slots;
  return slots;
}

/** The slots of calendars other than the default one, the most recently used last. */
interface CalendarSlots {
  byCalendar: Map<number, Map<SlotKey<unknown>, unknown>>;
  /** the calendar asked last (the newest in `byCalendar`), and its slots */
  lastId: number;
  last: Map<SlotKey<unknown>, unknown>;
}

/** Calendars other than the default one whose kept structures a store keeps (the most recently used). */
export const CALENDAR_SLOTS = 64;
const CALENDAR_SLOTS_KEY = slotKey<CalendarSlots>('calendars');

/** What a module keeps per store (and per calendar, `slotsOf`) under `key`, made by `make` on first use. */
export function slot<T>(parts: StoreParts, key: SlotKey<T>, make: () => T): T {
  const slots = slotsOf(parts);
  let value = slots.get(key) as T | undefined;
  if (value === undefined) {
    value = make();
    slots.set(key, value);
  }
  return value;
}

/**
 * A read statement run on the background reader when there is one (SQLite files): a statement
 * that may scan much of a table (a search of the posts' text, a list page whose filter matches few
 * events deep in the listing) would otherwise hold every other request for as long as it reads;
 * on PostgreSQL the database server does the work. Falls back to reading here when the worker is
 * gone or failed.
 */
export async function readOffLoop<R>(db: object, dialect: DialectName, q: { compile(): { sql: string; parameters: readonly unknown[] }; execute(): Promise<R[]> }): Promise<R[]> {
  const reader = dialect === 'sqlite' ? backgroundReaderOf(db) : undefined;
  if (reader) {
    const compiled = q.compile();
    try {
      return await reader.all<R>(compiled.sql, compiled.parameters);
    } catch {
      // The worker is gone or failed: read here.
    }
  }
  return q.execute();
}
