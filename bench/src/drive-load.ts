/**
 * A load run in a process of its own, for benchmarks that measure another client meanwhile: the
 * load generator's own work (autocannon parsing thousands of answers a second) then does not delay
 * the measured client's answers in its event loop. Prints the run's LoadResult as JSON.
 *
 *   node --import tsx bench/src/drive-load.ts '{"url":"http://127.0.0.1:8080/api/calendar/events/v1/events","connections":10,"seconds":10}'
 *   node --import tsx bench/src/drive-load.ts '{"url":"…/events","method":"POST","headers":{…},"create":true,"connections":2,"seconds":10}'
 *   ("create": each request's body is a new event with a title of its own)
 */
import { loadOnce, type LoadSpec } from './load.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as Omit<LoadSpec, 'seconds' | 'warmupSeconds' | 'body'> & { seconds: number; create?: boolean };
let n = 0;
const body = spec.create ? () => JSON.stringify({ title: `Load ${process.pid} ${++n}`, start_date: '2031-01-05 10:00:00', end_date: '2031-01-05 11:00:00', status: 'publish' }) : undefined;
const result = await loadOnce({ url: spec.url, method: spec.method, headers: spec.headers, connections: spec.connections, ...(body ? { body } : {}) }, spec.seconds);
console.log(JSON.stringify(result));
