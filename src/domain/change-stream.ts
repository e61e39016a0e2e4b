/**
 * The change log as the admin app follows it (`calendar/admin/v1/changes` and
 * `changes/stream`): one event per committed write (its sequence number, time, and the records it
 * changed: type, id, action), read through the one reader (`store.changes`: `read` after a cursor,
 * woken by `subscribe` after local commits and by a 1 s poll for other instances'). Only editors
 * and administrators follow it; `user` records are shown to those who manage accounts (network
 * administrators) only, and a calendar administrator's own; the log's
 * internal `lists` rows are left out; an `all`/`reset` row says that anything may have changed.
 *
 * @example
 *   const { events, through } = await readChanges(services, viewer, 120, 100);
 *   const follower = followChanges(services, viewer, through, (evs) => send(evs), () => resend());
 *   follower.close();
 */
import type { ChangeRow } from '../store/change-log.js';
import type { Store } from '../store/db.js';
import { prunedThrough } from '../store/change-pruning.js';
import { calendarIdNow, inCalendar } from '../store/calendar-scope.js';
import { apiError } from './errors.js';
import { managesAccounts, viewerOf, type Viewer } from './permissions.js';
import { viewerHere } from './calendars.js';
import { findUserById } from '../store/users.js';

export interface ChangeEvent {
  seq: number;
  /** when the write was committed (UTC, `YYYY-MM-DD HH:MM:SS`) */
  time: string;
  changes: Array<{ type: string; id: number; action: string }>;
}

/** Rows read per step. */
const BATCH = 500;
/** How often other instances' commits are looked for (ms). */
const POLL_MS = 1000;
/**
 * How long a follower's right to the log is taken as it was (ms): a change of the follower's own
 * account or role that this calendar's log shows is looked at at once, any other (one told in
 * another calendar's log) within this.
 */
export const RECHECK_MS = 30_000;

/** The writes among `rows` the viewer may see, one event each (writes with nothing visible are left out). */
export function visibleEvents(rows: ChangeRow[], viewer: Viewer): ChangeEvent[] {
  const out: ChangeEvent[] = [];
  for (const row of rows) {
    if (row.type === 'lists') continue;
    // Accounts are every calendar's: their changes are for who manages accounts, and a viewer's own.
    if ((row.type === 'user' || row.type === 'credentials' || row.type === 'role') && !managesAccounts(viewer) && !(viewer.role === 'administrator' && row.id === viewer.id)) continue;
    // A user's credentials (sessions, application passwords, second factor) and roles are a change of that user.
    const type = row.type === 'credentials' || row.type === 'role' ? 'user' : row.type;
    let last = out.at(-1);
    if (!last || last.seq !== row.seq) out.push((last = { seq: row.seq, time: row.created_gmt, changes: [] }));
    if (!last.changes.some((c) => c.type === type && c.id === row.id && c.action === row.action)) last.changes.push({ type, id: row.id, action: row.action });
  }
  return out;
}

/** Whether the log still holds every write after `after` (pruning removes old ones). */
async function complete(store: Store, after: number): Promise<boolean> {
  return after >= (await prunedThrough(store.db));
}

export const changesPruned = (after: number) => apiError('rest_changes_pruned', { args: [after] });

/** The writes after `after`, at most about `limit` rows (whole writes), and how far they reach; 410 when pruned. */
export async function readChanges(services: { store: Store }, viewer: Viewer, after: number, limit: number): Promise<{ events: ChangeEvent[]; through: number; head: number }> {
  const store = services.store;
  if (!(await complete(store, after))) throw changesPruned(after);
  const head = await store.changes.head();
  if (after >= head) return { events: [], through: Math.max(after, head), head };
  const { rows, through } = await store.changes.read(after, limit, { to: head });
  return { events: visibleEvents(rows, viewer), through, head };
}

export interface ChangeFollower {
  close(): void;
}

interface Followers {
  all: Set<() => void>;
}
const byStore = new WeakMap<object, Followers>();
const followersOf = (store: Store): Followers => {
  let f = byStore.get(store);
  if (!f) byStore.set(store, (f = { all: new Set() }));
  return f;
};

/**
 * Follow the log from `from`: `deliver` gets the visible events of each batch of writes in order
 * (and how far they reach); `reset` when the history after the cursor was pruned (the follower
 * then goes on from the head); `closed` once it stops (by `close()` or `closeFollowers`).
 */
export function followChanges(
  services: { store: Store },
  viewer: Viewer,
  from: number,
  handlers: { deliver(events: ChangeEvent[], through: number): void; reset(head: number): void; closed(): void; failed?(err: unknown): void },
  options: { allowed?: (viewer: Viewer) => boolean } = {},
): ChangeFollower {
  const store = services.store;
  let cursor = from;
  // The viewer was allowed when the follower opened: looked at again before writes are delivered,
  // at once when they change the viewer's account, role or credentials (a role taken away, the
  // account demoted or deleted), else once RECHECK_MS went by; no longer allowed, it closes.
  let checkedAt = Date.now();
  const stillAllowed = async (rows: ChangeRow[]): Promise<boolean> => {
    const allowed = options.allowed;
    if (!allowed) return true;
    const own = rows.some((r) => (r.type === 'role' || r.type === 'user' || r.type === 'credentials') && r.id === viewer.id);
    if (!own && Date.now() - checkedAt < RECHECK_MS) return true;
    checkedAt = Date.now();
    const now = await viewerNow(store, viewer);
    return now !== undefined && allowed(now);
  };
  let running = false;
  let again = false;
  let stopped = false;
  const step = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        if (!(await complete(store, cursor))) {
          cursor = await store.changes.head();
          if (!stopped) handlers.reset(cursor);
        }
        for (;;) {
          if (stopped) return;
          const head = await store.changes.head();
          if (cursor >= head) break;
          const { rows, through } = await store.changes.read(cursor, BATCH, { to: head });
          if (!(await stillAllowed(rows))) {
            close();
            return;
          }
          cursor = through;
          const events = visibleEvents(rows, viewer);
          if (!stopped) handlers.deliver(events, through);
        }
      } while (again && !stopped);
    } catch (err) {
      handlers.failed?.(err);
    } finally {
      running = false;
    }
  };
  // A commit wakes the follower from the committing request, which may be another calendar's: each
  // step runs in the calendar the follower was opened in (its log rows, its pruned history).
  const calendar = calendarIdNow();
  const wake = () => void inCalendar(calendar, step);
  const unsubscribe = store.changes.subscribe(wake, { pollMs: POLL_MS });
  const followers = followersOf(store);
  const close = () => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    followers.all.delete(close);
    handlers.closed();
  };
  followers.all.add(close);
  wake();
  return { close };
}

/**
 * The viewer as its account and roles are now, in the calendar at hand, by the same credential (an
 * application password limited to a calendar stays so); undefined when the account is gone.
 */
async function viewerNow(store: Store, viewer: Viewer): Promise<Viewer | undefined> {
  if (viewer.id <= 0) return viewer;
  const row = await findUserById(store.db, viewer.id);
  if (!row) return undefined;
  return viewerHere(store.db, viewerOf(row), { appPasswordCalendar: viewer.calendarOnly ?? null });
}

/** Stop every follower of this store (the server closes: their streams end). */
export function closeFollowers(services: { store: Store }): void {
  for (const close of [...followersOf(services.store).all]) close();
}
