/**
 * The change log's durable readers, declared in one place: each keeps its position in a table
 * (it must survive a restart and be shared by instances) and still needs every row after it. The
 * pruning job (jobs/change-log-pruning.ts) reads this list and keeps every row after the lowest
 * position; a new durable reader is added here, or its rows may be pruned before it reads them.
 *
 * @example
 *   const held = await durableCursors(db, config); // [{ name: 'webhook endpoints', seq: 4410, … }]
 */
import type { Config } from '../config.js';
import type { Executor } from './schema.js';
import { lowestWebhookCursor } from './webhooks.js';
import { lowestOutboxCursor } from './federation.js';
import { mailCursor } from './people.js';

export interface DurableCursor {
  name: string;
  /** Its position now, or undefined when it holds nothing (not started, or its feature is off). */
  read(db: Executor, config: Config): Promise<number | undefined>;
  /** What the pruning job's warning says when this reader holds old rows back. */
  heldBack: string;
}

export const DURABLE_CURSORS: readonly DurableCursor[] = [
  {
    name: 'webhook endpoints',
    // Every endpoint, enabled or disabled: a disabled one holds the log until enabled again or removed.
    read: (db) => lowestWebhookCursor(db),
    heldBack: 'a webhook endpoint cursor (a disabled endpoint? enable or remove it)',
  },
  {
    name: 'fediverse outbox',
    // With federation off the outbox holds nothing: turned on again, it sends what the log still has.
    // Each calendar's outbox has its cursor: the lowest of those that still have rows to read.
    read: (db, config) => (config.federation ? lowestOutboxCursor(db) : Promise.resolve(undefined)),
    heldBack: 'the fediverse outbox cursor (deliveries behind?)',
  },
  {
    name: 'review e-mails',
    // Read only where mails are sent (SMTP_URL): without it the reader never moves, and holds nothing.
    read: (db, config) => (config.reviewNotify && config.smtpUrl ? mailCursor(db, 'review') : Promise.resolve(undefined)),
    heldBack: 'the review e-mails cursor (is the review-mail job running?)',
  },
];

/** Every durable reader's position now (those that hold nothing left out). */
export async function durableCursors(db: Executor, config: Config): Promise<Array<{ name: string; seq: number; heldBack: string }>> {
  const read = await Promise.all(DURABLE_CURSORS.map(async (c) => ({ name: c.name, seq: await c.read(db, config), heldBack: c.heldBack })));
  return read.filter((c): c is { name: string; seq: number; heldBack: string } => c.seq !== undefined);
}
