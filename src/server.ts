/**
 * Run the service: build the app, listen, log where, and shut down gracefully on SIGINT/SIGTERM
 * (stop accepting, finish in-flight requests, close the database).
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
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { database: store.describe, restRoot: `${config.siteUrl}${config.restRoot}/`, timezone: config.timezone },
    `events calendar API at ${config.siteUrl}${config.restRoot}/calendar/events/v1`,
  );
}
