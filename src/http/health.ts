/**
 * Health endpoints for load balancers and orchestrators, outside the REST root:
 *
 * - `GET /livez` (alias `/healthz`): the process is alive and serving; 200 `{"status":"ok"}`
 *   always. It does not touch the database, so an outage does not get the process restarted.
 * - `GET /readyz`: the database answers a cheap query within 2 s, every migration of this
 *   version is applied and the warm-up after the start (warm-up.ts) has settled;
 *   200 `{"status":"ok","checks":{…}}`, otherwise 503 with `{"status":"unavailable","checks":{…}}`
 *   saying which check failed, or `{"status":"warming","checks":{…,"warm_up":{"status":"warming",
 *   "done":2,"paths":5}}}` while the warm-up runs. A warm-up that failed (a read answered an error)
 *   does not hold readiness: `checks.warm_up` names the reads that failed.
 *
 * HEAD works on each (Fastify answers it from the GET route, without the body).
 *
 * @example curl -i http://127.0.0.1:8080/readyz
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readiness } from '../store/db.js';
import type { WarmUp } from './warm-up.js';

/** How long `/readyz` waits for the database. */
export const READINESS_TIMEOUT_MS = 2000;

function sendHealth(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=UTF-8').header('cache-control', 'no-store').send(JSON.stringify(body));
}

export function registerHealthRoutes(app: FastifyInstance, readiness: (timeoutMs: number) => Promise<Readiness>, warmUp?: WarmUp): void {
  const live = async (_req: unknown, reply: FastifyReply) => sendHealth(reply, 200, { status: 'ok' });
  app.get('/livez', live);
  app.get('/healthz', live);
  app.get('/readyz', async (_req, reply) => {
    const r = await readiness(READINESS_TIMEOUT_MS);
    const warm = warmUp?.report();
    const warming = warm?.status === 'warming';
    const ready = r.ready && !warming;
    if (!ready) reply.header('retry-after', r.ready ? '1' : '5');
    const checks = { database: r.database, migrations: r.migrations, ...(warm && warm.status !== 'pending' ? { warm_up: warm } : {}) };
    return sendHealth(reply, ready ? 200 : 503, { status: ready ? 'ok' : r.ready ? 'warming' : 'unavailable', checks });
  });
}
