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
 * Logging never blocks the process (src/log-destination.ts): a stdout nobody reads holds at most
 * LOG_BUFFER_MAX_BYTES, later lines are dropped and counted. So SIGTERM always ends the process
 * within SHUTDOWN_TIMEOUT_MS plus half a second: the shutdown timer can always fire, and exiting
 * waits at most EXIT_LOG_DRAIN_MS for stdout to write out the last lines (never synchronously).
 *
 * @example await serve(loadConfig());
 */
import { ConfigError, maskUrl, type Config } from './config.js';
import { buildApp, type BuildOptions, type BuiltApp } from './app.js';
import { createLogDestination } from './log-destination.js';
import { logOutputCounters } from './metrics.js';
import { StoreUrlError } from './store/db.js';

/** How long exiting waits for stdout to write out the last log lines (a stalled pipe: lost after it). */
export const EXIT_LOG_DRAIN_MS = 500;

/** The first line of an error's message (startup errors are printed as one line). */
function oneLine(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown };
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
  const first = message.split('\n')[0]!.trim();
  return typeof e?.code === 'string' && !first.includes(e.code) ? `${first} (${e.code})` : first;
}

/**
 * Build the app, or fail with a ConfigError (one line; the CLI prints it and exits 2) when the
 * database cannot be opened or the settings cannot be used.
 */
async function buildOrExplain(config: Config, options: BuildOptions): Promise<BuiltApp> {
  try {
    return await buildApp(config, options);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof StoreUrlError) throw err;
    throw new ConfigError(`cannot start on DATABASE_URL ${maskUrl(config.databaseUrl)}: ${oneLine(err)}`);
  }
}

export async function serve(config: Config): Promise<void> {
  const destination = createLogDestination(process.stdout, { counters: logOutputCounters });
  const built = await buildOrExplain(config, { logger: { level: config.logLevel, stream: destination } });
  const { app, store } = built;
  destination.onResumed = ({ lines, bytes }) => app.log.warn({ droppedLines: lines, droppedBytes: bytes }, `log output was stalled: ${lines} log lines dropped`);
  let closing = false;
  let exiting = false;
  /** Exit with `code` once stdout has written out the last lines, or after EXIT_LOG_DRAIN_MS. */
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    process.exitCode = code;
    void destination.drain(EXIT_LOG_DRAIN_MS).then(() => process.exit(code));
  };
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    let step = 'finishing in-flight requests';
    const started = Date.now();
    const timer = setTimeout(() => {
      app.log.error({ step }, `shutdown took longer than ${config.shutdownTimeoutMs} ms (still ${step}); exiting`);
      exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    // Connections still open halfway (a client that stopped reading its answer, or a kept-alive
    // connection whose request was still running when closing began) are cut then, so that they
    // cannot hold the shutdown until the time-out.
    const cut = setTimeout(
      () => {
        if (step !== 'finishing in-flight requests') return;
        app.log.warn({ step, ms: Date.now() - started }, 'shutting down: closing the connections still open');
        app.server.closeAllConnections();
      },
      Math.floor(config.shutdownTimeoutMs / 2),
    );
    cut.unref();
    try {
      await built.close((next) => {
        step = next;
        app.log.info({ step, ms: Date.now() - started }, 'shutting down');
      });
      exit(signal === 'uncaughtException' ? 1 : 0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      exit(1);
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
  // The first reads' costs are paid before /readyz says ready (http/warm-up.ts).
  const warmUp = built.warmUp;
  if (warmUp) {
    void warmUp.run().then((r) => {
      if (r.status === 'ok') app.log.info({ ms: r.ms }, 'warm-up done: ready');
      else app.log.warn({ ms: r.ms, failures: r.failures }, 'warm-up did not complete; ready anyway');
    });
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await built.close().catch(() => undefined);
    const code = (err as { code?: string }).code;
    const why =
      code === 'EADDRINUSE' ? 'the address is already in use' : code === 'EADDRNOTAVAIL' ? 'the address is not available on this machine' : code === 'EACCES' ? 'permission denied' : oneLine(err);
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${why}`);
  }
  app.log.info(
    { database: store.describe, restRoot: `${maskUrl(config.siteUrl)}${config.restRoot}/`, timezone: config.timezone },
    `events calendar API at ${maskUrl(config.siteUrl)}${config.restRoot}/calendar/events/v1`,
  );
}
