/**
 * Raw HTTP/1.1 on a socket: what a client that no HTTP library would send (a chunked body over the
 * limits, headers that never end) gets back, read whole up to the server's close.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
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

/** An answer read whole, as `viaHost` gives it. */
export interface HostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A request to the test server as if sent to `host` (fetch may not set `Host`): how a calendar's
 * own host name is reached in tests.
 *
 * @example const page = await viaHost(t, '/events/', 'events.north.example');
 */
export function viaHost(t: { origin: string }, path: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(t.origin);
    const req = request({ host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: { host, ...options.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
