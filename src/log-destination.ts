/**
 * Where the server's log lines go: stdout, without ever blocking the process.
 *
 * pino's default destination (sonic-boom on fd 1) keeps every line in memory while the pipe is
 * full and, at exit, flushes synchronously, retrying `EAGAIN` with `Atomics.wait` for as long as
 * the pipe stays full: a log collector that stops reading held SIGTERM forever. This destination
 * writes to `process.stdout` instead, which on a pipe or a socket is asynchronous (libuv waits for
 * the pipe to take more; nothing spins or sleeps), and bounds what waits in memory:
 *
 * * a line is written when what stdout still holds (`writableLength`) is under `maxBufferedBytes`
 *   (4 MiB by default); past it the line is **dropped** and counted (lines and bytes, process-wide
 *   in `src/metrics.ts`, `calendar_log_dropped_lines_total` in `/metrics`);
 * * once dropping, lines stay dropped until stdout has written out half of what it held (so that a
 *   collector reading slowly gets whole stretches of log, not one line in ten); then, or when
 *   stdout has drained, `onResumed` hears how many lines were dropped (the server logs one warning);
 * * stdout failing (`EPIPE`: the reader went away) drops every later line, counted;
 * * `drain(ms)` waits at most `ms` for stdout to write out what it holds (on exit: a healthy
 *   collector gets the last lines; a stalled one costs `ms`, not forever). Exiting does not flush
 *   synchronously: what a stalled pipe still holds then is lost.
 *
 * Files and terminals are written synchronously by Node.js (`writableLength` stays 0): a slow disk
 * slows logging down, nothing is dropped.
 *
 * @example
 *   const destination = createLogDestination(process.stdout, { counters: logOutputCounters });
 *   const app = Fastify({ logger: { level: 'info', stream: destination } });
 *   destination.onResumed = ({ lines }) => app.log.warn({ droppedLines: lines }, 'log output was stalled');
 */
import type { Writable } from 'node:stream';
import type { LogOutputCounters } from './metrics.js';

/** What stdout may hold, waiting for a stalled reader, before lines are dropped. */
export const LOG_BUFFER_MAX_BYTES = 4 * 1024 * 1024;

/** What was dropped during one stall. */
export interface DroppedLines {
  lines: number;
  bytes: number;
}

export interface LogDestination {
  /** Write one log line (pino calls it with each line, newline included). */
  write(line: string): boolean;
  /** Resolves when stdout has written out what it holds, or after `ms` (never rejects). Not named
   * `flush`: pino's `logger.flush(cb)` would call it with a callback. */
  drain(ms: number): Promise<void>;
  /** Called (outside `write`) when lines flow again after some were dropped. */
  onResumed?: (dropped: DroppedLines) => void;
}

export interface LogDestinationOptions {
  /** What the stream may hold before lines are dropped; `LOG_BUFFER_MAX_BYTES` by default. */
  maxBufferedBytes?: number;
  /** Counters to add to (dropped lines and bytes; `buffered` is set to read the stream's). */
  counters?: LogOutputCounters;
}

export function createLogDestination(stream: Writable, options: LogDestinationOptions = {}): LogDestination {
  const max = options.maxBufferedBytes ?? LOG_BUFFER_MAX_BYTES;
  const counters = options.counters ?? { droppedLines: 0, droppedBytes: 0, buffered: () => 0 };
  let failed = false;
  /** Dropped since the last report; `undefined` while lines flow. */
  let stall: DroppedLines | undefined;

  const held = () => (failed ? 0 : stream.writableLength);
  counters.buffered = held;

  const resume = () => {
    if (!stall) return;
    const dropped = stall;
    stall = undefined;
    // Not from inside write(): the report is itself a log line.
    setImmediate(() => destination.onResumed?.(dropped));
  };

  const drop = (line: string) => {
    const bytes = Buffer.byteLength(line);
    counters.droppedLines++;
    counters.droppedBytes += bytes;
    if (stall) {
      stall.lines++;
      stall.bytes += bytes;
    } else if (!failed) stall = { lines: 1, bytes };
  };

  stream.on('error', () => {
    // EPIPE and the like: nobody will read another line.
    failed = true;
    stall = undefined;
  });
  stream.on('drain', resume);

  const destination: LogDestination = {
    write(line: string): boolean {
      if (failed || stream.destroyed || !stream.writable) {
        failed = true;
        drop(line);
        return true;
      }
      const now = stream.writableLength;
      if (stall && now > max / 2) {
        drop(line);
        return true;
      }
      if (now + line.length > max) {
        drop(line);
        return true;
      }
      resume();
      stream.write(line);
      return true;
    },

    drain(ms: number): Promise<void> {
      return new Promise((resolve) => {
        if (held() === 0) return resolve();
        const deadline = Date.now() + ms;
        const poll = setInterval(() => {
          if (held() === 0 || Date.now() >= deadline) {
            clearInterval(poll);
            resolve();
          }
        }, 10);
      });
    },
  };
  return destination;
}
