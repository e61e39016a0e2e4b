/**
 * Server-sent events as a test reads them off a node:http answer: each message's fields, as they
 * come (a message ends at a blank line; `:` lines are comments, the heartbeats).
 *
 * @example res.on('data', sseReader((m) => messages.push(m)));
 * @example const s = openChangeStream(t, 'edna:edna-pw', { query: '&editing=12', onData: (c) => read(c) }); await s.opened;
 */
import http from 'node:http';
import type { TestServer } from './harness.js';
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A `data` listener (utf8 chunks) that calls `onMessage` with each whole message. */
export function sseReader(onMessage: (message: SseMessage) => void): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const m: SseMessage = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) m.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).trimStart();
          if (field === 'id' || field === 'event' || field === 'data') m[field] = value;
        }
      }
      onMessage(m);
    }
  };
}

/**
 * Open the admin change stream (`changes/stream`) as `cred` (`login:password`, Basic), under
 * `prefix` (`/c/north`), with `heartbeat` seconds and `query` (`&editing=12`): its status once
 * `opened`, every utf8 chunk to `onData`, its whole `text` so far, and whether the server `ended` it.
 */
export function openChangeStream(t: TestServer, cred: string, options: { prefix?: string; query?: string; heartbeat?: number; onData?: (chunk: string) => void } = {}) {
  let text = '';
  let status = 0;
  let ended = false;
  const query = `${options.heartbeat !== undefined ? `&heartbeat=${options.heartbeat}` : ''}${options.query ?? ''}`.replace(/^&/, '');
  const url = `${t.origin}${options.prefix ?? ''}${t.config.restRoot}/calendar/admin/v1/changes/stream${query ? `?${query}` : ''}`;
  const req = http.get(url, { headers: { authorization: 'Basic ' + Buffer.from(cred).toString('base64'), accept: 'text/event-stream' } });
  const opened = new Promise<void>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        options.onData?.(chunk);
      });
      res.on('error', () => {});
      res.on('end', () => (ended = true));
      resolve();
    });
  });
  return {
    opened,
    get status() {
      return status;
    },
    get text() {
      return text;
    },
    /** whether the server ended the stream */
    get ended() {
      return ended;
    },
    close: () => req.destroy(),
  };
}
