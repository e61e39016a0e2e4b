/**
 * The write worker's thread (WRITE_WORKER; web/write-worker.ts is the main thread's side): the app
 * built again over the same database, on a connection of its own, answering the writes the main
 * thread passes on. It runs no background job (a nudge goes to the main thread, which runs them),
 * no warm-up and no second write worker, and it migrates nothing (the main thread did).
 *
 * Its log lines go to the main thread, which writes them where its own go (the same bounded
 * buffer before stdout: a stalled log pipe holds no memory here either).
 *
 * Its priority is lowered first (WRITE_WORKER_NICE): on Linux a thread has a nice value of its
 * own, so the main thread, which answers the reads, keeps its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setPriority } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { buildApp } from './app.js';
import type { FromWorker, ToWorker, WriteWorkerData } from './web/write-worker.js';

const port = parentPort;
if (!port) throw new Error('src/write-worker.ts runs as a worker thread (WRITE_WORKER), not on its own');
const data = workerData as WriteWorkerData;
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

if (data.config.writeWorkerNice > 0) {
  try {
    setPriority(data.config.writeWorkerNice);
  } catch {
    // A system that refuses it: the thread runs at the process's priority.
  }
}

try {
  // The first administrator is the main thread's to create (or its password to reset): not again here.
  const config = { ...data.config, writeWorker: false, warmUp: false };
  delete config.adminUser;
  delete config.adminPassword;
  const built = await buildApp(config, {
    logger: data.logger === false ? false : { level: data.logger.level, stream: { write: (line: string) => post({ type: 'log', line }) } },
    storeOptions: data.storeOptions,
    webhooks: false,
    jobsElsewhere: (name) => post({ type: 'nudge', name }),
  });
  const { app, store } = built;
  // The route pattern each answer matched, for the main thread's /metrics.
  const routes = new WeakMap<IncomingMessage, string>();
  app.addHook('onResponse', (req, _reply, done) => {
    routes.set(req.raw, req.routeOptions.url ?? '(unmatched)');
    done();
  });
  await app.ready();
  // As in the main thread (server.ts): a rejection nobody handled is logged, and the thread goes on
  // (writes are transactions; nothing is left half-changed). Node would end the thread otherwise.
  process.on('unhandledRejection', (reason) => app.log.error({ err: reason }, 'unhandled promise rejection in the write worker (it keeps running)'));
  // This thread's commits wake the main thread's jobs (webhook deliveries, mail, network follows).
  store.changes.subscribe(() => post({ type: 'committed' }));
  port.on('message', (message: ToWorker) => {
    if (message.type === 'close') {
      void built
        .close()
        .catch(() => undefined)
        .then(() => post({ type: 'closed' }));
      return;
    }
    const headers = { ...message.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    if (message.body) headers['content-length'] = String(message.body.byteLength);
    // A client that sent no User-Agent sent none here either (the injection would name itself).
    if (!('user-agent' in headers)) headers['user-agent'] = undefined;
    app
      .inject({
        method: message.method as 'POST',
        url: message.url,
        headers,
        ...(message.body ? { payload: Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength) } : {}),
        remoteAddress: message.remoteAddress,
      })
      .then((res) => {
        const body = res.rawPayload;
        // Its own memory (not a slice of a shared pool), so that it moves to the main thread.
        const own = new Uint8Array(body.byteLength);
        own.set(body);
        post({ type: 'answer', id: message.id, status: res.statusCode, headers: res.headers as Record<string, string | string[]>, body: own, route: routes.get(res.raw.req) ?? '(unmatched)' }, [
          own.buffer,
        ]);
      })
      .catch((err: unknown) => post({ type: 'error', id: message.id, message: err instanceof Error ? err.message : String(err) }));
  });
  post({ type: 'ready' });
} catch (err) {
  post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  port.close();
}
