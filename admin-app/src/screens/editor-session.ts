/**
 * The event editor's session around the draft: the admin API's typed cost, the copy of unsaved
 * changes kept in localStorage (with the version they were made on), and the post lock held while
 * the event is open (with who else has it open, live).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiUrl, currentNonce } from '../lib/api';
import type { EventRecord } from '../lib/events';
import { can, currentUser, keptName } from '../lib/session';
import type { Draft } from '../lib/event-draft';

/** What the editor keeps in localStorage: the draft and the version it was made on. */
export interface Kept {
  v: 2;
  draft: Draft;
  base: Draft | null;
}

export interface EditingState {
  editors: Array<{ id: number; name: string }>;
  last_editor: { id: number; name: string } | null;
  heartbeat: number;
}

export const ADMIN_NS = 'calendar/admin/v1';

/**
 * The event as the editor works on it: its REST representation with the cost as typed and its
 * password. The REST `cost` is the original's rendering ("€5 suggested donation" reads "€ suggested
 * donation5"): loaded into the form and saved again, it stored that; the password is in no REST answer.
 */
export async function withTypedCost(e: EventRecord): Promise<EventRecord> {
  const typed = await api<{ cost: string; password?: string }>(`${ADMIN_NS}/events/${e.id}`).catch(() => null);
  return typed ? { ...e, cost: typed.data.cost, password: typed.data.password ?? '' } : e;
}

export const storageKey = (id: string) => keptName(`calendar-admin-draft-${currentUser.value.id}-${id}`);

/** The kept copy of event `id`, if any; drafts kept before the version was kept with them count as made on the version loaded now. */
export function readKept(id: string): Kept | null {
  const text = localStorage.getItem(storageKey(id));
  const parsed = text ? (JSON.parse(text) as Kept | Draft) : null;
  return parsed ? ('v' in parsed && parsed.v === 2 ? parsed : { v: 2, draft: parsed as Draft, base: null }) : null;
}

/**
 * The copy of unsaved changes in localStorage: `persist` writes it at most every 300 ms while
 * typing (and at once on leaving the page or the editor), `forget` drops it.
 */
export function useKeptDraft(id: string, baseRef: { current: Draft | null }) {
  /** the draft to write to localStorage */
  const pending = useRef<Draft | null>(null);
  const persistTimer = useRef<number | undefined>(undefined);
  const persistNow = () => {
    window.clearTimeout(persistTimer.current);
    persistTimer.current = undefined;
    if (!pending.current) return;
    const kept: Kept = { v: 2, draft: pending.current, base: baseRef.current };
    pending.current = null;
    localStorage.setItem(storageKey(id), JSON.stringify(kept));
  };
  const persist = (d: Draft) => {
    pending.current = d;
    if (persistTimer.current === undefined) persistTimer.current = window.setTimeout(persistNow, 300);
  };
  const forget = () => {
    window.clearTimeout(persistTimer.current);
    persistTimer.current = undefined;
    pending.current = null;
    localStorage.removeItem(storageKey(id));
  };
  useEffect(() => {
    window.addEventListener('pagehide', persistNow);
    return () => {
      window.removeEventListener('pagehide', persistNow);
      persistNow();
    };
  }, [id]);
  return { persist, forget };
}

/** A token for one editor page's lock (not a secret: it only tells the page's lock from others'). */
function lockHolder(): string {
  const random = typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  return `page-${random}`;
}

/**
 * The post lock: taken and refreshed by a heartbeat, released on leaving; who else holds one, live
 * from the change stream (editors) or at each heartbeat (authors, who do not follow the stream).
 */
export function useEditLock(id: string, isNew: boolean): Array<{ id: number; name: string }> {
  /** the others who have this event open in the editor */
  const [others, setOthers] = useState<Array<{ id: number; name: string }>>([]);
  useEffect(() => {
    if (isNew) return;
    const path = `${ADMIN_NS}/events/${id}/editors`;
    const me = currentUser.value.id;
    // This page's own lock: leaving releases it, and not the one the user's next page (here or in
    // another tab, served by this server or another) took meanwhile.
    const holder = lockHolder();
    let stopped = false;
    const apply = (s: EditingState) => {
      if (!stopped) setOthers(s.editors.filter((e) => e.id !== me).map(({ id, name }) => ({ id, name })));
    };
    let timer: number | undefined;
    const beat = () =>
      api<EditingState>(path, { method: 'POST', query: { holder } })
        .then((r) => {
          apply(r.data);
          window.clearTimeout(timer);
          if (!stopped) timer = window.setTimeout(beat, Math.max(5, r.data.heartbeat) * 1000);
        })
        .catch(() => {
          if (!stopped) timer = window.setTimeout(beat, 30_000);
        });
    void beat();
    let source: EventSource | null = null;
    if (can('edit_others_tribe_events') && typeof EventSource !== 'undefined') {
      // `hold`: the stream holds the lock too, so a browser gone without its `pagehide` request
      // (killed, its context closed) frees it as its stream ends, not 150 s later.
      source = new EventSource(apiUrl(`${ADMIN_NS}/changes/stream`, { editing: id, hold: 1, holder, _wpnonce: currentNonce() }));
      source.addEventListener('editors', (e) => apply(JSON.parse((e as MessageEvent<string>).data) as EditingState));
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // `keepalive`: sent even while the page unloads.
      void fetch(apiUrl(path, { holder }), { method: 'DELETE', keepalive: true, credentials: 'same-origin', headers: { 'x-wp-nonce': currentNonce() } }).catch(() => {});
    };
    window.addEventListener('pagehide', release);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      source?.close();
      window.removeEventListener('pagehide', release);
      release();
    };
  }, [id]);
  return others;
}
