/**
 * The warm-up after a start: before `/readyz` says ready, the server answers the
 * anonymous REST lists a restarted server is first asked for, the way a client would ask them
 * (`app.inject`: the whole request path, no socket). What those first answers would otherwise pay
 * is then paid before any client waits: the totals of the default lists (`X-WP-Total`, counted once
 * and then kept and adjusted by the change feed: on SQLite on the background reader's worker,
 * which is started by the first count), the kept records and representations, the prepared
 * statements of the read path, PostgreSQL's plans and the pages the lists read (the database's own
 * cache), the change feed's first look and the term, venue and organizer lists.
 *
 * The default list's window starts on the current day, so its total is kept under a new key each
 * day: the same reads run again in the background every `WARM_UP_REFRESH_MS` (all from what is
 * kept when nothing changed; one count when the day changed), so that the first list of a new day
 * does not count either.
 *
 * @example
 *   const warmUp = createWarmUp(app, warmUpPaths(config));
 *   void warmUp.run();            // /readyz answers 503 {"status":"warming"} until it settles
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

/** How often the reads run again once ready (the default list's key moves with the day). */
export const WARM_UP_REFRESH_MS = 10 * 60_000;
/** A read taking longer than this is left running and the server declared ready anyway. */
export const WARM_UP_TIMEOUT_MS = 120_000;

export type WarmUpState = 'off' | 'pending' | 'warming' | 'ok' | 'failed';

export interface WarmUpReport {
  status: WarmUpState;
  /** reads answered so far, of `paths` */
  done: number;
  paths: number;
  /** how long the warm-up took (ms), once settled */
  ms?: number;
  /** how long each read took (ms), by path */
  reads?: Record<string, number>;
  /** the reads that did not answer 2xx (path: status or error) */
  failures?: Record<string, string>;
}

export interface WarmUp {
  /** Run the reads (once; later calls answer the same promise). */
  run(): Promise<WarmUpReport>;
  /** Where it is now (for `/readyz`). */
  report(): WarmUpReport;
  /** Stop the refresh timer. */
  stop(): void;
}

/**
 * The anonymous reads warmed: the REST lists at their defaults (both namespaces share the code:
 * one is enough). Not the calendar pages' lists nor the embeds: they count no total (their
 * windows end at the current minute; `EventListArgs.countTotal`), so their first reads are short.
 */
export function warmUpPaths(config: Pick<Config, 'restRoot'>): string[] {
  const rest = `${config.restRoot}/tribe/events/v1`;
  return [`${rest}/events`, `${rest}/venues`, `${rest}/organizers`, `${rest}/categories`, `${rest}/tags`];
}

/** A header the warm-up's requests carry (the access log shows which requests were its own). */
export const WARM_UP_HEADER = 'x-calendar-warm-up';

export function createWarmUp(app: FastifyInstance, paths: readonly string[], options: { refreshMs?: number; timeoutMs?: number } = {}): WarmUp {
  const state: WarmUpReport = { status: 'pending', done: 0, paths: paths.length };
  let running: Promise<WarmUpReport> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const readAll = async (record: boolean) => {
    const failures: Record<string, string> = {};
    for (const url of paths) {
      if (stopped) break;
      const started = performance.now();
      try {
        const res = await app.inject({ method: 'GET', url, headers: { [WARM_UP_HEADER]: '1' } });
        if (res.statusCode >= 300) failures[url] = String(res.statusCode);
      } catch (e) {
        failures[url] = (e as Error)?.message ?? String(e);
      }
      if (record) {
        state.done++;
        (state.reads ??= {})[url] = Math.round(performance.now() - started);
      }
    }
    return failures;
  };

  const refresh = () => {
    timer = setTimeout(() => {
      void readAll(false)
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) refresh();
        });
    }, options.refreshMs ?? WARM_UP_REFRESH_MS);
    timer.unref();
  };

  return {
    run() {
      running ??= (async () => {
        state.status = 'warming';
        const started = performance.now();
        let deadline: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          deadline = setTimeout(() => resolve('late'), options.timeoutMs ?? WARM_UP_TIMEOUT_MS);
          deadline.unref();
        });
        const outcome = await Promise.race([readAll(true), late]);
        clearTimeout(deadline);
        state.ms = Math.round(performance.now() - started);
        const failures = outcome === 'late' ? { ...Object.fromEntries(paths.slice(state.done).map((p) => [p, 'still running'])) } : outcome;
        if (Object.keys(failures).length) state.failures = failures;
        state.status = Object.keys(failures).length ? 'failed' : 'ok';
        if (!stopped) refresh();
        return { ...state };
      })();
      return running;
    },
    report: () => ({ ...state }),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
