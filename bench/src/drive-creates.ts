/**
 * The benchmark's create scenario against a running server, for a while, nothing measured here:
 * for looking at what the server and its database do under creates (statement logs, `/metrics`,
 * profiles taken from outside).
 *
 *   node --import tsx bench/src/drive-creates.ts http://127.0.0.1:8080 [SECONDS=6] [CONNECTIONS=10]
 *   (HTTP Basic bench-admin / bench-admin-password, as `events-calendar seed` and `npm run bench` set them)
 */
import { loadOnce } from './load.js';
import { discover, SCENARIOS, scenarioUrl } from './scenarios.js';

const [origin = 'http://127.0.0.1:8080', seconds = '6', connections = '10'] = process.argv.slice(2);
const authorization = 'Basic ' + Buffer.from('bench-admin:bench-admin-password').toString('base64');
const create = SCENARIOS.find((s) => s.key === 'create')!;
const context = await discover(`${origin}/api/calendar/events/v1`, authorization);
const spec = { url: scenarioUrl(create.path(context), context), method: 'POST' as const, headers: create.headers!(context), body: create.body!(context), connections: Number(connections) };
const r = await loadOnce(spec, Number(seconds));
console.log(`${r.requests} creates in ${seconds} s (${Math.round(r.rps)}/s), ${r.non2xx} non-2xx, ${r.errors} errors`);
