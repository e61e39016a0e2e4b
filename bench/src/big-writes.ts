/**
 * Issue 24: reads while the largest accepted write of each kind runs. Anonymous readers (closed
 * loops, `connections` of them) read the single event from before each write is sent until the
 * work it causes has ended, and their latencies are reported next to the same reads without a
 * write, measured right before:
 *
 * - `recurrence`: a daily series of 10,000 (MAX_OCCURRENCES) from 2000-01-01 (the request writes
 *   OCCURRENCES_PER_WRITE occurrences, the horizon job the rest): until its 10,000 are listed;
 * - `terms`: an event naming MAX_TERMS_PER_WRITE categories (MAX_NEW_TERMS_PER_WRITE of them new)
 *   and as many existing tags, `rounds` times in a row;
 * - `body`: an event whose description fills the request body limit (2 MB less a little),
 *   `rounds` times in a row.
 *
 * @example const runs = await bigWrites(ctx, { connections: 10, rounds: 5, referenceSeconds: 3 });
 */
import type { BigWriteRun } from './results.js';
import type { ScenarioContext } from './scenarios.js';
import { quantile } from './stats.js';
import { MAX_OCCURRENCES } from '../../src/domain/recurrence.js';
import { MAX_NEW_TERMS_PER_WRITE, MAX_TERMS_PER_WRITE } from '../../src/domain/terms/index.js';

interface Readers {
  stop(): Promise<number[]>;
}

/** `connections` closed loops reading `url` anonymously; `stop` resolves with every latency (ms). */
function startReaders(url: string, connections: number): Readers {
  const times: number[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
      } catch {
        /* counted by its time */
      }
      times.push(performance.now() - t0);
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return times;
    },
  };
}

const summary = (times: number[]) => ({ reads: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.length ? Math.max(...times) : NaN });

async function post(ctx: ScenarioContext, path: string, body: unknown): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(ctx.base + path, { method: 'POST', headers: { authorization: ctx.authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  const ms = performance.now() - t0;
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json, ms };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function bigWrites(ctx: ScenarioContext, options: { connections: number; rounds: number; referenceSeconds: number; timeoutSeconds?: number }): Promise<BigWriteRun[]> {
  const readUrl = `${ctx.base}/events/${ctx.eventId}`;
  const run = Date.now().toString(36);
  const timeoutMs = (options.timeoutSeconds ?? 300) * 1000;
  // Terms that exist before the term writes: all but the new ones of the categories, every tag.
  const existingCategories: number[] = [];
  const existingTags: number[] = [];
  for (let i = 0; i < MAX_TERMS_PER_WRITE - MAX_NEW_TERMS_PER_WRITE; i++) {
    const r = await post(ctx, '/categories', { name: `Bench category ${run} ${i}` });
    if (r.status === 201) existingCategories.push(r.json.id);
  }
  for (let i = 0; i < MAX_TERMS_PER_WRITE; i++) {
    const r = await post(ctx, '/tags', { name: `Bench tag ${run} ${i}` });
    if (r.status === 201) existingTags.push(r.json.id);
  }
  const event = (n: number, extra: Record<string, unknown>) => ({
    title: `Bench big write ${run} ${n}`,
    status: 'publish',
    start_date: '2027-04-01 20:00:00',
    end_date: '2027-04-01 22:00:00',
    ...extra,
  });
  const kinds: Array<{ kind: BigWriteRun['kind']; label: string; writes: number; body: (n: number) => unknown; until?: (created: any) => Promise<boolean> }> = [
    {
      kind: 'recurrence',
      label: `daily series of ${MAX_OCCURRENCES.toLocaleString('en')} from 2000-01-01 (until all are listed)`,
      writes: 1,
      body: (n) => event(n, { start_date: '2000-01-01 10:00:00', end_date: '2000-01-01 11:00:00', timezone: 'UTC', recurrence: [`RRULE:FREQ=DAILY;COUNT=${MAX_OCCURRENCES}`] }),
      until: async (created) => {
        const res = await fetch(`${ctx.base}/events?post_parent=${created.id}&start_date=2000-01-01&end_date=2100-01-01&per_page=1`, { headers: { authorization: ctx.authorization } });
        await res.arrayBuffer();
        return Number(res.headers.get('x-tec-total') ?? 0) >= MAX_OCCURRENCES;
      },
    },
    {
      kind: 'terms',
      label: `${MAX_TERMS_PER_WRITE} categories (${MAX_NEW_TERMS_PER_WRITE} new) and ${MAX_TERMS_PER_WRITE} tags`,
      writes: options.rounds,
      body: (n) => event(n, { categories: [...existingCategories, ...Array.from({ length: MAX_NEW_TERMS_PER_WRITE }, (_, i) => `Bench new ${run} ${n} ${i}`)], tags: existingTags }),
    },
    {
      kind: 'body',
      label: 'description of 1.9 MB (body limit 2 MB)',
      writes: options.rounds,
      body: (n) => event(n, { description: `<p>${'Jazz all night long. '.repeat(Math.floor((1.9 * 1024 * 1024) / 21))}</p>` }),
    },
  ];
  const out: BigWriteRun[] = [];
  for (const k of kinds) {
    const refReaders = startReaders(readUrl, options.connections);
    await sleep(options.referenceSeconds * 1000);
    const reference = summary(await refReaders.stop());
    const readers = startReaders(readUrl, options.connections);
    await sleep(200);
    const t0 = performance.now();
    const writeMs: number[] = [];
    let error: string | undefined;
    for (let n = 0; n < k.writes && !error; n++) {
      const r = await post(ctx, '/events', k.body(n));
      writeMs.push(r.ms);
      if (r.status !== 201) error = `HTTP ${r.status}: ${JSON.stringify(r.json).slice(0, 200)}`;
      else if (k.until) {
        while (!(await k.until(r.json))) {
          if (performance.now() - t0 > timeoutMs) {
            error = `not done within ${timeoutMs / 1000} s`;
            break;
          }
          await sleep(100);
        }
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const during = summary(await readers.stop());
    out.push({ kind: k.kind, label: k.label, writes: writeMs.length, writeMs, seconds, ...during, reference, ...(error ? { error } : {}) });
  }
  return out;
}
