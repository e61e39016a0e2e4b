/**
 * Who is editing an event (the admin app's post lock, as WordPress' `_edit_lock`: "X is currently
 * editing"): the editor takes a lock on the event it opens and refreshes it with a heartbeat every
 * {@link HEARTBEAT_SECONDS}; a lock not refreshed for {@link LOCK_TTL_MS} ends by itself (a closed
 * laptop), and the editor releases it when it leaves. Locks are per event, user and holder (the
 * editor page's token; '' for callers without one), in the database (every instance sees them),
 * so that a page that leaves releases its lock and not the one its successor took meanwhile, on
 * this instance or another; the state names each user once. They warn, they never refuse a write
 * (the write's `If-Match` keeps edits from overwriting each other, the editor merges).
 *
 * The state of an event also names who changed it last (`last_editor`), for the editor's conflict
 * panel. Followers (the change stream's presence events) are woken at once by this instance's
 * lock changes and poll for other instances'.
 *
 * @example
 *   const state = await services.editLocks.take(viewer, 42); // { editors: [{ id, name, since }], last_editor }
 *   await services.editLocks.release(viewer, 42);
 */
import type { Store } from '../store/db.js';
import { calendarIdNow, inCalendar } from '../store/calendar-scope.js';
import { activeEditLocks, lastEditorOf, releaseEditLock, takeEditLock } from '../store/edit-locks.js';
import type { Clock } from './linked-posts/index.js';
import type { Viewer } from './permissions.js';

/** A lock not refreshed for this long has ended (WordPress: 150 s). */
export const LOCK_TTL_MS = 150_000;
/** How often the editor refreshes its lock (WordPress' heartbeat: 15 to 60 s). */
export const HEARTBEAT_SECONDS = 30;

export interface EditingState {
  /** the users with the event open in the editor, first opened first */
  editors: Array<{ id: number; name: string; since: string; expires: string }>;
  /** who changed the event last (its author when no signed-in user updated it) */
  last_editor: { id: number; name: string } | null;
  /** seconds between the heartbeats that keep a lock */
  heartbeat: number;
}

export interface EditLockService {
  /** Take or refresh the viewer's lock of `holder` (default: '', what callers without one share); answers the event's state. */
  take(viewer: Viewer, postId: number, holder?: string): Promise<EditingState>;
  /** Release the viewer's lock of `holder` (without one: every lock of the viewer on the event); answers whether there was one. */
  release(viewer: Viewer, postId: number, holder?: string): Promise<boolean>;
  state(postId: number): Promise<EditingState>;
  /**
   * Hold the viewer's lock of `holder` (default: '', as `take`) while a connection stays
   * open (the editor's change stream): taken now, released when the last of this instance's holds
   * on it ends (answers that end). A browser gone without a word (killed, offline, its `pagehide`
   * request lost as it closed) would otherwise keep its lock until LOCK_TTL_MS; a stream's end is
   * seen at once.
   */
  hold(viewer: Viewer, postId: number, holder?: string): () => void;
  /** Call `listener` when a lock of this instance changes (other instances' are found by polling `state`). */
  onChange(listener: (postId: number) => void): () => void;
}

const iso = (gmt: string) => `${gmt.replace(' ', 'T')}Z`;

export function createEditLockService(store: Store, clock: Clock): EditLockService {
  const listeners = new Set<(postId: number) => void>();
  const changed = (postId: number) => {
    for (const l of [...listeners]) l(postId);
  };
  const state = async (postId: number): Promise<EditingState> => {
    const [locks, last] = await Promise.all([activeEditLocks(store.db, postId, Date.now()), lastEditorOf(store.db, postId)]);
    return {
      editors: locks.map((l) => ({ id: l.user_id, name: l.name, since: iso(l.started_gmt), expires: new Date(l.expires_ms).toISOString() })),
      last_editor: last && last.user_id > 0 ? { id: last.user_id, name: last.name } : null,
      heartbeat: HEARTBEAT_SECONDS,
    };
  };
  // Open holds per calendar, event and user, and each key's steps in order: a release must not
  // overtake the take of a hold that began before it ended, nor the other way round.
  const holds = new Map<string, { count: number; steps: Promise<unknown> }>();
  const take = async (viewer: Viewer, postId: number, holder = ''): Promise<EditingState> => {
    const before = await activeEditLocks(store.db, postId, Date.now());
    await takeEditLock(store.db, postId, viewer.id, { nowMs: Date.now(), ttlMs: LOCK_TTL_MS, startedGmt: clock.nowGmt() }, holder);
    if (!before.some((l) => l.user_id === viewer.id)) changed(postId);
    return state(postId);
  };
  const release = async (viewer: Viewer, postId: number, holder?: string): Promise<boolean> => {
    const had = await releaseEditLock(store.db, postId, viewer.id, holder);
    if (had) changed(postId);
    return had;
  };
  return {
    take,
    release,
    hold(viewer, postId, holder = '') {
      // The end comes from the connection's close, outside the request's calendar: kept here.
      const calendar = calendarIdNow();
      const key = `${calendar}:${postId}:${viewer.id}:${holder}`;
      const entry = holds.get(key) ?? { count: 0, steps: Promise.resolve() };
      holds.set(key, entry);
      entry.count++;
      const step = (fn: () => Promise<unknown>) => {
        // A failed step (the database away) leaves the lock to its expiry.
        entry.steps = entry.steps.then(() => inCalendar(calendar, fn)).catch(() => {});
      };
      step(() => take(viewer, postId, holder));
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        entry.count--;
        step(async () => {
          if (entry.count > 0) return;
          try {
            await release(viewer, postId, holder);
          } finally {
            // A hold begun meanwhile found this entry and queued its take after the release.
            if (entry.count === 0 && holds.get(key) === entry) holds.delete(key);
          }
        });
      };
    },
    state,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
