/**
 * The change log's pruning job: every running server, soon after start and then every hour,
 * deletes the log rows of every calendar committed more than its SYNC_HISTORY_DAYS ago, in batches of
 * 1,000 rows (each its own short transaction, yielding to requests in between), so the log stops growing
 * forever. A server's first run (and one a day) goes over every old row; the others go on from
 * where the last one stopped and revisit only the records logged since. It keeps what readers of
 * the log still need:
 *
 * - every record's newest row, and the newest bulk-load (`all`) row: record versions (ETags,
 *   `Last-Modified`, `If-Match`) are read from them (`store/versions.ts`), so they do not move;
 * - every row after the position of the log's durable readers, declared in one list
 *   (`store/durable-cursors.ts`): the webhook endpoints (enabled or disabled: a disabled endpoint
 *   holds the log until it is enabled again or removed), the fediverse outbox (with FEDERATION on)
 *   and the review e-mails (with REVIEW_NOTIFY and SMTP_URL); the job says in the log which one holds old
 *   rows back. A reader of one calendar's rows (an endpoint, an outbox) holds back that calendar's
 *   rows only, so one calendar's paused endpoint does not keep the others' history (a pass goes past
 *   them, and a pass from the start finds them once its reader moved);
 * - sync tokens: a token whose history was pruned answers 410 (each calendar's pruned sequence
 *   number is kept in `changes_pruned`), as a token that old does anyway.
 *
 * Each calendar keeps the history its SYNC_HISTORY_DAYS says, at most its `sync_history_days` quota. One pass cuts every calendar at the
 * installation's; a calendar that keeps a longer one is exempt from that cut and cut at its own
 * (a pass from the start, once a day, finds its rows that became old since). A calendar that keeps
 * a shorter one is cut at the installation's: its tokens expire by their age, its rows are kept
 * as long as the others'.
 *
 * - change feeds (`store/change-feed.ts`: what each server keeps across requests follows the log):
 *   each run first brings this server's feed up to date, so a running server's feed is never more
 *   than an hour behind, far from rows old enough to prune.
 *
 * The import map (`import_map`) does not read the log. Several servers on one database may prune
 * at once: each deletion only removes rows that have a newer row of their record, so they never
 * take a record's newest row.
 *
 * It runs on the job runner (`runner.ts`), which owns its timer, failures and stop.
 *
 * @example
 *   const job = registerPruneJob(runner, services, app.log);
 *   await job.runOnce(); // { deleted: 1200, through: 4410 }
 *   await job.stop();
 */
import type { DomainServices } from '../domain/services.js';
import type { JobRunner } from './runner.js';
import { firstChangeTimeAfter, pruneChangesBatch, pruneSupersededBatch } from '../store/change-pruning.js';
import { headOf as lastSeq } from '../store/change-log.js';
import { durableCursors } from '../store/durable-cursors.js';
import { acrossCalendars } from '../store/calendar-scope.js';

export interface PruneJob {
  /** Prune what is due now; resolves with how many rows were deleted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface PruneLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Log rows looked at per batch (each batch deletes at most these, plus the rest of its last write). */
const BATCH = 1_000;

function gmtOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Where a run left off, for the next run of the same server: `scanned`, the last row its first
 * pass looked at (every row up to it was old and is gone or its record's newest); `head`, the log's
 * number when it started.
 */
export interface PruneState {
  scanned: number;
  head: number;
}

/**
 * Delete the log rows older than SYNC_HISTORY_DAYS that nothing needs any more. Without `since`, a
 * first pass goes over the old rows from the start. With the state of an earlier run, it goes on
 * from where that one stopped, and before that deletes the rows it kept (as their record's newest)
 * whose record has been logged again since: the run then costs what changed, not the log's size.
 */
export async function pruneChangeLog(
  services: Pick<DomainServices, 'store' | 'config' | 'calendars'>,
  options: { now?: number; isStopped?: () => boolean; logger?: PruneLogger; batch?: number; since?: PruneState } = {},
): Promise<{ deleted: number; through: number; state: PruneState }> {
  const db = services.store.db;
  const now = options.now ?? Date.now();
  const limit = options.batch ?? BATCH;
  const since = options.since;
  // The durable readers' positions as each keeps them (the webhook endpoints' across calendars).
  const [head, cursors, history] = await Promise.all([lastSeq(db), durableCursors(db, services.config), services.calendars.historyEverywhere()]);
  const beforeGmt = gmtOf(now - history.installation * 86_400_000);
  const exempt = new Map<number, string>();
  for (const [calendar, days] of history.own) if (days > history.installation) exempt.set(calendar, gmtOf(now - days * 86_400_000));
  // The log and its numbers are the whole database's: every calendar's old rows are pruned together.
  return acrossCalendars(async () => {
    const upTo = Math.min(head, ...cursors.filter((c) => c.calendar === undefined).map((c) => c.seq));
    // The readers of one calendar's rows: that calendar's rows up to the lowest of its readers' positions.
    const held = new Map<number, number>();
    for (const c of cursors) if (c.calendar !== undefined) held.set(c.calendar, Math.min(held.get(c.calendar) ?? Infinity, c.seq));
    const pause = () => new Promise((resolve) => setImmediate(resolve));
    let deleted = 0;
    if (since && since.scanned > 0 && head > since.head) {
      let after = { seq: since.head, idx: 2 ** 31 - 1 };
      for (;;) {
        const batch = await pruneSupersededBatch(db, { after, to: head, below: Math.min(since.scanned, upTo), beforeGmt, exempt, held, limit });
        deleted += batch.deleted;
        after = batch.next;
        if (batch.done || options.isStopped?.()) break;
        await pause();
      }
    }
    let at = since?.scanned ?? 0;
    for (;;) {
      const batch = await pruneChangesBatch(db, { after: at, upTo, beforeGmt, exempt, held, limit });
      deleted += batch.deleted;
      at = batch.next;
      if (batch.done || options.isStopped?.()) break;
      await pause();
    }
    if (deleted > 0) options.logger?.info({ pruned: deleted, through: at }, 'change log: pruned rows older than SYNC_HISTORY_DAYS');
    if (upTo < head && at >= upTo && !options.isStopped?.()) {
      // Stopped at a durable reader's position with older rows after it: that reader holds the log.
      const next = await firstChangeTimeAfter(db, upTo);
      if (next !== undefined && next < beforeGmt) {
        const holder = cursors.find((c) => c.seq === upTo && c.calendar === undefined);
        options.logger?.warn({ cursor: upTo, reader: holder?.name }, `change log pruning: held back by ${holder?.heldBack ?? 'a reader of the log'}`);
      }
    }
    for (const [calendar, seq] of held) {
      if (seq >= head || options.isStopped?.()) continue;
      // A calendar's rows older than its cut after its reader's position: that reader holds them.
      const next = await firstChangeTimeAfter(db, seq, calendar);
      if (next !== undefined && next < (exempt.get(calendar) ?? beforeGmt)) {
        const holder = cursors.find((c) => c.seq === seq && c.calendar === calendar);
        options.logger?.warn({ cursor: seq, calendar, reader: holder?.name }, `change log pruning: calendar ${calendar}'s rows held back by ${holder?.heldBack ?? 'a reader of the log'}`);
      }
    }
    return { deleted, through: at, state: { scanned: at, head } };
  });
}

/** The job's name (metrics, log lines). */
export const PRUNE_JOB = 'change-log-pruning';

/**
 * Declare the pruning job to the runner: first run a minute after start, then an hour after each
 * run (a failed run is retried at the next one). Not a singleton: each server's run also brings
 * its own change feed up to date (above), and prunes from two servers at once are safe.
 */
export function registerPruneJob(
  runner: JobRunner,
  services: Pick<DomainServices, 'store' | 'config' | 'versions' | 'calendars'>,
  logger: PruneLogger,
  options: { firstMs?: number; everyMs?: number } = {},
): PruneJob {
  const everyMs = options.everyMs ?? 3_600_000;
  // Where the last run left off; a run from the start once a day besides (a row committed with an
  // earlier clock than the ones before it is then found too).
  let state: PruneState | undefined;
  let runs = 0;
  const job = runner.register<number>({
    name: PRUNE_JOB,
    firstMs: options.firstMs ?? 60_000,
    everyMs,
    backoff: { initialMs: everyMs, maxMs: everyMs },
    async run(ctx) {
      const since = state && runs % 24 !== 0 ? state : undefined;
      runs++;
      await services.versions.position();
      const r = await pruneChangeLog(services, { isStopped: ctx.isStopped, logger, ...(since ? { since } : {}) });
      if (!ctx.isStopped()) state = r.state;
      return { value: r.deleted };
    },
  });
  return {
    async runOnce() {
      return (await job.runOnce()).value ?? 0;
    },
    stop: () => job.stop(),
  };
}
