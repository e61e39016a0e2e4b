/**
 * A local webhook receiver for tests: an HTTP server on 127.0.0.1 that verifies every delivery's
 * Standard Webhooks signature with the `standardwebhooks` package (an implementation independent
 * of ours) and records what arrived; `respond` decides each answer (status, or 'hang').
 *
 * @example
 *   const r = await startReceiver();
 *   r.secret = endpoint.secret;
 *   const [m] = await r.waitFor((m) => m.body.type === 'event.created');
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  /** the request's path (tests give each endpoint its own) */
  path: string;
  id: string;
  timestamp: string;
  /** the signature verified with the receiver's secret */
  verified: boolean;
  verifyError?: string;
  body: any;
  raw: string;
  at: number;
}

export interface Receiver {
  url: string;
  /** the endpoint's secret (whsec_…), to verify with */
  secret: string;
  received: Received[];
  /** each request's answer: a status code, or 'hang' (never answer) */
  respond: (n: number, req: IncomingMessage) => number | 'hang';
  waitFor(test: (m: Received) => boolean, count?: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const receiver: Receiver = {
    url: '',
    secret: '',
    received: [],
    respond: () => 200,
    waitFor(test, count = 1, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = receiver.received.filter(test);
          if (found.length >= count) {
            clearTimeout(timer);
            waiters.splice(waiters.indexOf(check), 1);
            resolve(found);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(check), 1);
          reject(new Error(`receiver: ${count} matching deliveries not seen in ${ms} ms; got ${JSON.stringify(receiver.received.map((m) => [m.id, m.body?.type]))}`));
        }, ms);
        waiters.push(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  let n = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
      let verified = false;
      let verifyError: string | undefined;
      try {
        new Webhook(receiver.secret).verify(raw, headers);
        verified = true;
      } catch (err) {
        verifyError = (err as Error).message;
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      receiver.received.push({ path: req.url ?? '', id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], verified, ...(verifyError ? { verifyError } : {}), body, raw, at: Date.now() });
      const answer = receiver.respond(++n, req);
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
