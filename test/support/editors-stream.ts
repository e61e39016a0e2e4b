/**
 * The `editors` events of the admin change stream following one event (`changes/stream?editing=ID`),
 * as they come: what the editor's screen hears when someone opens or leaves the event.
 *
 * @example
 *   const s = followEditors(t, 'edna:edna-pw', id);
 *   await s.opened;
 *   await s.until(0, (state) => state.editors.length === 1);
 */
import type { TestServer } from './harness.js';
import { openChangeStream, sseReader } from './sse.js';

export interface Editors {
  id?: number;
  editors: Array<{ id: number; name: string; since: string; expires?: string }>;
  last_editor: { id: number; name: string } | null;
  heartbeat: number;
}

/** The `editors` events of a change stream following one event (under `calendarPrefix`: `/c/north`), as they come. */
export function followEditors(t: TestServer, cred: string, id: number, query = '', calendarPrefix = '') {
  const states: Editors[] = [];
  let waiters: Array<() => void> = [];
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const read = sseReader((m) => {
    if (m.event === 'editors' && m.data !== undefined) states.push(JSON.parse(m.data) as Editors);
  });
  const stream = openChangeStream(t, cred, {
    prefix: calendarPrefix,
    query: `&editing=${id}${query}`,
    onData: (chunk) => {
      read(chunk);
      notify();
    },
  });
  const opened = stream.opened;
  return {
    opened,
    states,
    get status() {
      return stream.status;
    },
    /** The first state at or after `from` that passes `test` (failing after 15 s without one). */
    async until(from: number, test: (s: Editors) => boolean): Promise<number> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const at = states.findIndex((s, i) => i >= from && test(s));
        if (at >= 0) return at;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no such editors state after 15 s; states: ${JSON.stringify(states.slice(from))}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => stream.close(),
  };
}
