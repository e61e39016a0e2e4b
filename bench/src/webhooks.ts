/**
 * Issue 11's webhook delivery rate: a local receiver (answering 200, counting) is registered as an
 * endpoint through the admin API, events are created as fast as the API takes them, and the
 * deliveries are counted as they arrive: deliveries per second from the first create to the last
 * delivery, and the delay from a create's 201 to its delivery.
 *
 * @example const r = await webhookRate(ctx, 200, 30); // { deliveries: 200, seconds: 4.1, rate: 48.7, p50: 35, … }
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookRateRun } from './results.js';
import type { ScenarioContext } from './scenarios.js';
import { quantile } from './stats.js';

export async function webhookRate(ctx: ScenarioContext, events: number, limitSeconds: number): Promise<WebhookRateRun> {
  const arrived = new Map<number, number>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      try {
        const id = (JSON.parse(raw) as { data?: { id?: number } }).data?.id;
        if (typeof id === 'number' && !arrived.has(id)) arrived.set(id, performance.now());
      } catch {
        /* not ours */
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-hook`;
  const adminBase = ctx.base.replace(/calendar\/events\/v1$/, 'calendar/admin/v1');
  const headers = { authorization: ctx.authorization, 'content-type': 'application/json' };
  const run: WebhookRateRun = { events, deliveries: 0, seconds: 0, rate: 0, p50: NaN, p90: NaN, max: NaN };
  let endpointId: number | undefined;
  try {
    const made = await fetch(`${adminBase}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url, events: ['event.created'] }) });
    const body = (await made.json()) as { id?: number; message?: string };
    if (made.status !== 201) throw new Error(`POST /webhooks answered ${made.status}: ${body.message ?? ''}`);
    endpointId = body.id;
    const created = new Map<number, number>();
    const started = performance.now();
    const deadline = started + limitSeconds * 1000;
    // Four writers at a time, as fast as the API answers.
    let next = 0;
    const writer = async () => {
      while (next < events && performance.now() < deadline) {
        const n = next++;
        const res = await fetch(`${ctx.base}/events`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: `Webhook bench ${n}`, start_date: '2029-01-01 10:00:00', end_date: '2029-01-01 11:00:00', status: 'publish' }),
        });
        const e = (await res.json()) as { id?: number };
        if (res.status === 201 && typeof e.id === 'number') created.set(e.id, performance.now());
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    while (performance.now() < deadline && [...created.keys()].some((id) => !arrived.has(id))) await new Promise((r) => setTimeout(r, 20));
    const delays = [...created].filter(([id]) => arrived.has(id)).map(([id, at]) => arrived.get(id)! - at);
    const last = Math.max(...[...created.keys()].map((id) => arrived.get(id) ?? 0));
    run.events = created.size;
    run.deliveries = delays.length;
    run.seconds = (last - started) / 1000;
    run.rate = run.seconds > 0 ? run.deliveries / run.seconds : 0;
    run.p50 = quantile(delays, 0.5);
    run.p90 = quantile(delays, 0.9);
    run.max = delays.length ? Math.max(...delays) : NaN;
    if (run.deliveries < created.size) run.error = `${created.size - run.deliveries} deliveries missing after ${limitSeconds} s`;
  } catch (err) {
    run.error = (err as Error).message;
  } finally {
    if (endpointId !== undefined) await fetch(`${adminBase}/webhooks/${endpointId}`, { method: 'DELETE', headers }).catch(() => undefined);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  return run;
}
