/**
 * The change log's durable readers, declared in one place: each keeps its position in a table
 * (it must survive a restart and be shared by instances) and still needs every row after it. The
 * pruning job (jobs/change-log-pruning.ts) reads this list and keeps every row after the lowest
 * position; a new durable reader is added here, or its rows may be pruned before it reads them.
 * A reader of one calendar's rows (a webhook endpoint, a calendar's outbox) holds back only that
 * calendar's: its positions are per calendar, so that one calendar's paused endpoint cannot keep
 * every other calendar's history past what each keeps.
 *
 * @example
 *   const held = await durableCursors(db, config); // [{ name: 'webhook endpoints', seq: 4410, calendar: 7, … }]
 */
import type { Config } from '../config.js';
import type { Executor } from './schema.js';
import { lowestWebhookCursors } from './webhooks.js';
import { outboxCursors } from './federation.js';
import { mailCursor } from './people.js';

export interface DurableCursor {
  name: string;
  /**
   * Its position now: one for the whole log, or one per calendar it reads (calendar id → position;
   * those it holds nothing of absent); undefined when it holds nothing (not started, or its
   * feature is off).
   */
  read(db: Executor, config: Config): Promise<number | ReadonlyMap<number, number> | undefined>;
  /** What the pruning job's warning says when this reader holds old rows back. */
  heldBack: string;
}

export const DURABLE_CURSORS: readonly DurableCursor[] = [
  {
    name: 'webhook endpoints',
    // Every endpoint, enabled or disabled: a disabled one holds the log until enabled again or removed.
    read: (db) => lowestWebhookCursors(db),
    heldBack: 'a webhook endpoint cursor (a disabled endpoint? enable or remove it)',
  },
  {
    name: 'fediverse outbox',
    // With federation off the outbox holds nothing: turned on again, it sends what the log still has.
    // Each calendar's outbox has its cursor: the lowest of those that still have rows to read.
    read: (db, config) => (config.federation ? outboxCursors(db) : Promise.resolve(undefined)),
    heldBack: 'the fediverse outbox cursor (deliveries behind?)',
  },
  {
    name: 'review e-mails',
    // Read only where mails are sent (SMTP_URL): without it the reader never moves, and holds nothing.
    read: (db, config) => (config.reviewNotify && config.smtpUrl ? mailCursor(db, 'review') : Promise.resolve(undefined)),
    heldBack: 'the review e-mails cursor (is the review-mail job running?)',
  },
];

/** A durable reader's position: of the whole log, or (`calendar`) of one calendar's rows. */
export interface HeldPosition {
  name: string;
  seq: number;
  calendar?: number;
  heldBack: string;
}

/** Every durable reader's position now (those that hold nothing left out), one per calendar for a reader of calendars' rows. */
export async function durableCursors(db: Executor, config: Config): Promise<HeldPosition[]> {
  const read = await Promise.all(DURABLE_CURSORS.map(async (c) => ({ c, at: await c.read(db, config) })));
  const out: HeldPosition[] = [];
  for (const { c, at } of read) {
    if (typeof at === 'number') out.push({ name: c.name, seq: at, heldBack: c.heldBack });
    else if (at) for (const [calendar, seq] of at) out.push({ name: c.name, seq, calendar, heldBack: c.heldBack });
  }
  return out;
}
