/**
 * Run the service: build the app, listen, log where, and shut down gracefully on SIGINT/SIGTERM
 * (stop accepting, finish in-flight requests, close the database).
 *
 * Errors that escape a request: Fastify answers any error thrown or rejected inside a handler or
 * hook (the app's error handler turns it into a JSON error), so these are errors of work started
 * outside one. A promise rejection nobody handled is logged and the service keeps serving: it
 * leaves no state half-changed (writes are transactions; caches never keep a rejected promise).
 * An uncaught exception is different: it unwound a stack at an unknown point, so the process may
 * be inconsistent; it is logged, then the server shuts down gracefully (in-flight requests
 * finish) and exits 1, for the supervisor (systemd, Kubernetes, …) to start a fresh one.
 *
 * @example await serve(loadConfig());
 */
import type { Config } from './config.js';
import { buildApp } from './http/app.js';

export async function serve(config: Config): Promise<void> {
  const built = await buildApp(config);
  const { app, store } = built;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    timer.unref();
    try {
      await built.close();
      process.exit(signal === 'uncaughtException' ? 1 : 0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('unhandledRejection', (reason) => {
    app.log.error({ err: reason }, 'unhandled promise rejection (the service keeps running)');
  });
  process.on('uncaughtException', (err, origin) => {
    app.log.fatal({ err, origin }, 'uncaught exception; shutting down');
    void shutdown('uncaughtException');
  });
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { database: store.describe, restRoot: `${config.siteUrl}${config.restRoot}/`, timezone: config.timezone },
    `events calendar API at ${config.siteUrl}${config.restRoot}/calendar/events/v1`,
  );
}
