/**
 * What the property-based robustness suites share (test/robustness/fuzz.test.ts over the REST API,
 * fuzz-faces.test.ts over the other faces): hostile values and their encodings, and the bound on
 * how long one request may hold the server's event loop, checked the same way in both.
 *
 * @example
 *   const timings: Timing[] = [];
 *   … timings.push({ ms, held: t.built.loopWatch.heldSince(started), what, again }) …
 *   await assertBoundedHolds(timings, 'robustness [sqlite]');
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { HeldTime } from '../../src/web/loop-delay.js';

/** The longest a request may hold the event loop (ms of CPU time), as the server's loop watch measures it. */
export const MAX_HOLD_MS = 100;

/** Times a request that held the loop MAX_HOLD_MS or more is sent again, to tell its own work from a GC pause or JIT. */
export const RETRIES = 3;

/** One request's time: answered in `ms` (wall clock, client side), holding the server's loop for `held`. */
export interface Timing {
  ms: number;
  held: HeldTime;
  what: string;
  /** Send the same request again; resolves with how long it held the loop. */
  again: () => Promise<HeldTime>;
}

/** The p-th percentile (nearest rank) of some numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Numbers no column holds, fractions, signs, and what JSON turns them into. */
export const HOSTILE_NUMBERS = [0, -1, 1, 2, 1.5, -2.5, 2147483647, 2147483648, -2147483649, 2 ** 53 + 2, 1e20, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER];
export const NUMERIC_STRINGS = [
  '1.5',
  '1e+308',
  '-1e308',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e20',
  '0x10',
  ' 7 ',
  '-0',
  '1e-400',
  '99999999999999999999999',
  '2147483648',
  '-2147483649',
  '0',
  '-1',
  '00',
  '+3',
  '1,2',
  '1.0',
  '3e0',
];
export const INJECTIONS = [
  "' OR '1'='1",
  '1; DROP TABLE posts; --',
  '1) OR (1=1',
  "'; select pg_sleep(1); --",
  '%',
  '_',
  '%_%',
  '\\',
  '\\%',
  '"',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '{{7*7}}',
  '${7*7}',
  '../../../etc/passwd',
  'null',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '\ud800',
  '😀🎉',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  'a\u0000b',
  '\u0000',
  'tomorrow',
  '2026-13-45 25:61:00',
  '9999-12-31 23:59:59',
  '0000-00-00 00:00:00',
  '@99999999999999',
  '+10000 years',
  'UTC+99',
  'Mars/Olympus',
  'publish',
  'draft,private,trash',
  'http://',
  'javascript:alert(1)',
];
export const KEY_EXTRAS = ['_fields', '_envelope', '_method', 'context', 'id', 'slug', 'parent', 'xyz', '__proto__', 'constructor'];

/** A value for any field: primitives, hostile strings and numbers, nested arrays and objects. */
export const leafArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...HOSTILE_NUMBERS) },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...NUMERIC_STRINGS) },
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...INJECTIONS) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`) },
  { weight: 1, arbitrary: fc.integer({ min: 250, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
export const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: leafArb },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('id', 'name', 'venue', 'organizer', 'a', '0', 'b[c]'), tie('value'), { maxKeys: 3 }) },
  ),
})).value;

/** Percent-encode for a URL, or leave a value raw (malformed `%zz`, spaces, brackets). */
export function encodePart(value: string, raw: boolean): string {
  if (raw) return value;
  // A lone surrogate has no UTF-8 form: send the bytes of its CESU-8 form, invalid UTF-8 on purpose.
  return value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[^\ud800-\udfff]+|[\ud800-\udbff][\udc00-\udfff]/g, (part) =>
    part.length === 1 && part.charCodeAt(0) >= 0xd800 && part.charCodeAt(0) <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(part),
  );
}

/** Any value as text (objects as JSON: fast-check's dictionaries have no prototype to convert them). */
export function asText(value: unknown): string {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** PHP-style bracket encoding of any value under a key (`a[b][0]=…`). */
export function bracketPairs(key: string, value: unknown, out: string[], raw: boolean): void {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${key}[]=`);
    value.forEach((item, i) => bracketPairs(`${key}[${typeof item === 'object' && item !== null ? i : ''}]`, item, out, raw));
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) out.push(`${key}[]=`);
    for (const [k, v] of entries) bracketPairs(`${key}[${k}]`, v, out, raw);
  } else out.push(`${encodePart(key, raw).replace(/%5B/gi, '[').replace(/%5D/gi, ']')}=${encodePart(value === null ? '' : String(value), raw)}`);
}

export function encodeParams(params: Array<[string, unknown]>, raw: boolean): string {
  const out: string[] = [];
  for (const [k, v] of params) bracketPairs(k, v, out, raw);
  return out.join('&');
}

/**
 * Report the requests' latencies and loop holds (p50, p99, max, the `top` longest holds), and
 * assert the bound: holds are counted in the process' CPU time over the hold, so that a machine
 * too busy to schedule this process (a wall-clock hold) does not fail the suite. The p99 stays
 * under MAX_HOLD_MS; and no request holds the loop that long each time it is sent (a single long
 * hold can be a GC pause or a first compilation falling into one request's span).
 */
export async function assertBoundedHolds(timings: Timing[], label: string, top = Number(process.env.FUZZ_TOP ?? 5)): Promise<void> {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const latencies = timings.map((x) => x.ms);
  const holds = timings.map((x) => x.held.ms);
  const cpuHolds = timings.map((x) => x.held.cpuMs);
  console.log(
    `${label}: latency p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))}; ` +
      `loop held per request p99 ${ms(percentile(holds, 99))}, max ${ms(Math.max(...holds))} (CPU time: p99 ${ms(percentile(cpuHolds, 99))}, max ${ms(Math.max(...cpuHolds))})`,
  );
  const longest = [...timings].sort((a, b) => b.held.cpuMs - a.held.cpuMs).slice(0, top);
  for (const x of longest) console.log(`  held ${ms(x.held.ms)} (CPU ${ms(x.held.cpuMs)}), answered in ${ms(x.ms)}: ${x.what}`);
  assert.ok(percentile(cpuHolds, 99) < MAX_HOLD_MS, `p99 of the loop holds: ${ms(percentile(cpuHolds, 99))}`);
  const holders: string[] = [];
  for (const x of timings.filter((y) => y.held.cpuMs >= MAX_HOLD_MS).slice(0, 10)) {
    const again: HeldTime[] = [];
    while (again.length < RETRIES && (again.length === 0 || again.at(-1)!.cpuMs >= MAX_HOLD_MS)) again.push(await x.again());
    const line = `${x.what}: held ${ms(x.held.ms)} (CPU ${ms(x.held.cpuMs)}), sent again: ${again.map((h) => `${ms(h.ms)} (CPU ${ms(h.cpuMs)})`).join(', ')}`;
    console.log(`  ${line}`);
    if (again.every((h) => h.cpuMs >= MAX_HOLD_MS)) holders.push(line);
  }
  assert.deepEqual(holders, [], `requests held the event loop for ${MAX_HOLD_MS} ms or more each time they were sent`);
}
