/**
 * Raw HTTP/1.1 on a socket: what a client that no HTTP library would send (a chunked body over the
 * limits, headers that never end) gets back, read whole up to the server's close.
 */
import { connect } from 'node:net';

/** Send raw bytes on a fresh connection; resolve with everything the server sent before closing. */
export function raw(t: { origin: string }, chunks: Array<string | Buffer>, { pauseMs = 0, timeoutMs = 10_000 } = {}): Promise<{ text: string; closedAfterMs: number }> {
  const { port } = new URL(t.origin);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${JSON.stringify(text.slice(0, 300))}`));
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => {
      /* the server may reset a connection it refused */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

/** Status and JSON body of a raw HTTP answer. */
export function parseRaw(text: string): { status: number; body: any; headers: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  let body = text.slice(split + 4);
  if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = body;
  }
  return { status, body: parsed, headers: head };
}
