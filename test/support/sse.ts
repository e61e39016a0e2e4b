/**
 * Server-sent events as a test reads them off a node:http answer: each message's fields, as they
 * come (a message ends at a blank line; `:` lines are comments, the heartbeats).
 *
 * @example res.on('data', sseReader((m) => messages.push(m)));
 */
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
