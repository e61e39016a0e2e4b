/**
 * The `editors` events of the admin change stream following one event (`changes/stream?editing=ID`),
 * as they come: what the editor's screen hears when someone opens or leaves the event.
 *
 * @example
 *   const s = followEditors(t, 'edna:edna-pw', id);
 *   await s.opened;
 *   await s.until(0, (state) => state.editors.length === 1);
 */
import http from 'node:http';
import type { TestServer } from './harness.js';
import { sseReader } from './sse.js';

const basic = (cred: string) => 'Basic ' + Buffer.from(cred).toString('base64');

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
  let status = 0;
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const req = http.get(`${t.origin}${calendarPrefix}${t.config.restRoot}/calendar/admin/v1/changes/stream?editing=${id}${query}`, {
    headers: { authorization: basic(cred), accept: 'text/event-stream' },
  });
  const opened = new Promise<void>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      const read = sseReader((m) => {
        if (m.event === 'editors' && m.data !== undefined) states.push(JSON.parse(m.data) as Editors);
      });
      res.on('data', (chunk: string) => {
        read(chunk);
        notify();
      });
      resolve();
    });
  });
  return {
    opened,
    states,
    get status() {
      return status;
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
    close: () => req.destroy(),
  };
}
