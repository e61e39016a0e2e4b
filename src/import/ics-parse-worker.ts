/**
 * The worker thread `parseIcsOffLoop` (ics-parse.ts) runs a large iCalendar parse in: it takes the text
 * and the parse's options from its `workerData`, and posts back the parsed events or the error
 * (an `ImportError`'s message is said again by the caller as one).
 *
 * @example new Worker(new URL('./ics-parse-worker.js', import.meta.url), { workerData: { text, siteTimezone, status, where, strict } })
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseIcs } from './ics-parse.js';
import { ImportError } from './source.js';

const { text, siteTimezone, status, where, strict } = workerData as { text: string; siteTimezone: string; status: string; where: string; strict: boolean };
try {
  parentPort!.postMessage({ parsed: parseIcs(text, siteTimezone, status, where, strict) });
} catch (err) {
  parentPort!.postMessage({ error: { message: (err as Error).message, importError: err instanceof ImportError } });
}
