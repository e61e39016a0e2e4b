/**
 * The baseline server of the benchmark: bare Fastify (no logging, no hooks) answering with a JSON
 * body registered beforehand, serialized on every request as a handler would. The benchmark
 * registers the exact body the service answered for each scenario, so both send the same bytes.
 *
 *   PUT  /__body/:name   { status, body }   register a body
 *   ANY  /b/:name                           answer it
 *
 * @example PORT=9000 node --import tsx bench/src/baseline.ts
 */
import Fastify from 'fastify';

const bodies = new Map<string, { status: number; body: unknown }>();
const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });

app.put<{ Params: { name: string }; Body: { status: number; body: unknown } }>('/__body/:name', async (req) => {
  bodies.set(req.params.name, req.body);
  return { ok: true };
});

app.route<{ Params: { name: string } }>({
  method: ['GET', 'POST'],
  url: '/b/:name',
  handler: async (req, reply) => {
    const entry = bodies.get(req.params.name);
    if (!entry) return reply.code(404).send({ code: 'unknown' });
    return reply.code(entry.status).send(entry.body);
  },
});

app.get('/', async () => ({ ok: true }));

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
