/**
 * The benchmark's report: Markdown tables of every run, the targets of issues 6 and 9 checked against
 * them (met, or missed by how much), written into bench/RESULTS.md between markers so that the
 * hand-written analysis around them survives a re-run.
 *
 * @example await writeReport('bench/RESULTS.md', renderReport(run));
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AfterWriteRun, BenchRun, BigWriteRun, ChurnResult, GrowingReadRun, PropagationRun, ScenarioResult, SizeRun, StoreName, WebhookRateRun } from './results.js';
import { FILTER } from './scenarios.js';
import { quantile } from './stats.js';

const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(1));
const mb = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${(n / 1024 / 1024).toFixed(0)} MB`);
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !b ? '–' : `${(a / b).toFixed(2)}×`);

const pct = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !b ? '–' : `${((a / b) * 100).toFixed(0)} %`);

const maxOf = (values: number[]) => (values.length ? Math.max(...values) : NaN);

/** Issue 9's targets (see checkTargets). */
export const TARGETS = {
  /** reads under writes: share of the same read's read-only throughput; the single event should be unaffected */
  underWritesShare: 0.5,
  underWritesShareSingle: 0.8,
  underWritesP99: 50,
  /** first read after a write, median ms (set for 1,000,000 events; checked at every size) */
  afterWrite: { list: 25, filtered: 25, page100: 50 } as Record<string, number>,
  /** visibility on instance B, ms (every create: the maximum) */
  propagation: 100,
  /** event creates per second */
  create: { sqlite: 2000, postgres: 800 } as Record<StoreName, number>,
};

const AFTER_WRITE_LABEL: Record<string, string> = { list: 'default list (/events)', filtered: 'filtered list', page100: 'page 100 of the default list' };
const PROPAGATION_LABEL: Record<string, string> = { single: 'GET /events/{id} answers 200', list: 'default list total counts it', filtered: 'filtered list total counts it' };

/** A reads-under-writes result against its targets: [met, explanation]. */
function underWritesVerdict(r: ChurnResult): [boolean, string] {
  const s = r.service!;
  const share = r.readOnly ? s.rps / r.readOnly.rps : NaN;
  const want = r.read === 'single' ? TARGETS.underWritesShareSingle : TARGETS.underWritesShare;
  const okShare = share >= want;
  const okP99 = s.p99 <= TARGETS.underWritesP99;
  const w = r.writer;
  const okWriter = !!w && w.keptRate && w.failed === 0;
  const misses = [!okShare && 'throughput', !okP99 && 'p99', !okWriter && 'writer rate'].filter(Boolean);
  return [
    okShare && okP99 && okWriter,
    `${fmt(s.rps)} req/s = ${pct(s.rps, r.readOnly?.rps)} of read-only ${fmt(r.readOnly?.rps)} (target ≥ ${want * 100} %${r.read === 'single' ? ', "unaffected"' : ''}), ` +
      `p99 ${ms(s.p99)} ms (target ≤ ${TARGETS.underWritesP99} ms); ` +
      (w
        ? `writer ${w.acknowledged} creates acknowledged (201) in ${w.seconds.toFixed(1)} s = ${w.achievedRate.toFixed(1)}/s of ${w.rate}/s${w.failed ? `, ${w.failed} failed` : ''}`
        : 'no writer figures') +
      (misses.length ? ` — missed: ${misses.join(', ')}` : ''),
  ];
}

function underWritesTable(size: SizeRun): string {
  const lines = [
    `| scenario | store | req/s | p50 ms | p99 ms | read-only req/s | vs read-only | creates acknowledged (201) | writer rate (asked ${size.writeRate ?? 20}/s) | create p50 / p99 ms | verdict |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of size.underWrites) {
    if (r.status !== 'ok' || !r.service) {
      lines.push(`| ${r.label} | ${r.store} | ${r.status}${r.note ? ` (${r.note})` : ''} | | | | | | | | |`);
      continue;
    }
    const s = r.service;
    const w = r.writer;
    const [ok] = underWritesVerdict(r);
    lines.push(
      `| ${r.label} | ${r.store} | ${fmt(s.rps)} | ${ms(s.p50)} | ${ms(s.p99)} | ${fmt(r.readOnly?.rps)} | ${pct(s.rps, r.readOnly?.rps)} | ` +
        `${w ? `${w.acknowledged}${w.failed ? ` (+${w.failed} failed)` : ''}` : '–'} | ${w ? `${w.achievedRate.toFixed(1)}/s${w.keptRate ? '' : ' (fell behind)'}` : '–'} | ${w ? `${ms(w.p50)} / ${ms(w.p99)}` : '–'} | ${ok ? 'met' : '**missed**'} |`,
    );
  }
  return lines.join('\n');
}

function afterWriteTable(size: SizeRun): string {
  const stores = Object.keys(size.afterWrite) as StoreName[];
  const lines = ['| read (first request after a create) | store | rounds | median ms | p90 ms | max ms | target (median) | verdict |', '|---|---|---:|---:|---:|---:|---:|---|'];
  for (const store of stores) {
    const aw = size.afterWrite[store]!;
    for (const [key, r] of Object.entries(aw.reads)) {
      const target = TARGETS.afterWrite[key]!;
      if (r.status !== 'ok' || r.times.length === 0) {
        lines.push(
          `| ${AFTER_WRITE_LABEL[key] ?? key} | ${store} | ${r.status === 'ok' ? 'n/a' : r.status}${r.note ? ` (${r.note})` : ''}${aw.writeError ? ` (create failed: ${aw.writeError})` : ''} | | | | ≤ ${target} ms | – |`,
        );
        continue;
      }
      const med = quantile(r.times, 0.5);
      lines.push(
        `| ${AFTER_WRITE_LABEL[key] ?? key} | ${store} | ${r.times.length} | ${ms(med)} | ${ms(quantile(r.times, 0.9))} | ${ms(maxOf(r.times))} | ≤ ${target} ms | ${med <= target ? 'met' : '**missed**'} |`,
      );
    }
  }
  return lines.join('\n');
}

function propagationTable(size: SizeRun): string {
  const lines = [
    '| visible on instance B | store | creates on A | median ms | p90 ms | max ms | not visible within the time-out | target (max) | verdict |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [store, p] of Object.entries(size.propagation) as Array<[StoreName, PropagationRun]>) {
    for (const [key, r] of Object.entries(p.reads)) {
      const max = maxOf(r.delays);
      const ok = r.notVisible === 0 && r.delays.length > 0 && max <= TARGETS.propagation;
      lines.push(
        `| ${PROPAGATION_LABEL[key] ?? key} | ${store} | ${p.rounds} | ${ms(quantile(r.delays, 0.5))} | ${ms(quantile(r.delays, 0.9))} | ${ms(max)} | ${r.notVisible} (${p.timeoutMs} ms) | ≤ ${TARGETS.propagation} ms | ${ok ? 'met' : '**missed**'} |`,
      );
    }
  }
  return lines.join('\n');
}

function resultTable(size: SizeRun): string {
  const lines = [
    '| scenario | store | req/s | p50 ms | p99 ms | baseline req/s | baseline p50 | baseline p99 | req/s vs baseline | p50 vs baseline | p99 vs baseline | server CPU | body |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of size.results) {
    if (r.status !== 'ok') {
      lines.push(`| ${r.label} | ${r.store} | ${r.status}${r.note ? ` (${r.note})` : ''} | | | | | | | | | | |`);
      continue;
    }
    const s = r.service!;
    const b = r.baseline;
    // Issue 9: the create row carries its target and verdict.
    const target = r.key === 'create' ? ` — target ≥ ${fmt(TARGETS.create[r.store])} req/s: ${s.rps >= TARGETS.create[r.store] ? 'met' : '**missed**'}` : '';
    lines.push(
      `| ${r.label}${target} | ${r.store} | ${fmt(s.rps)} | ${ms(s.p50)} | ${ms(s.p99)} | ${fmt(b?.rps)} | ${ms(b?.p50)} | ${ms(b?.p99)} | ${ratio(s.rps, b?.rps)} | ${ratio(s.p50, b?.p50)} | ${ratio(s.p99, b?.p99)} | ${r.serverCores === undefined ? '–' : r.serverCores.toFixed(2)} | ${r.bodyBytes === undefined ? '–' : `${(r.bodyBytes / 1024).toFixed(1)} KB`} |`,
    );
  }
  return lines.join('\n');
}

function find(run: BenchRun, events: number | undefined, store: StoreName, key: string): ScenarioResult | undefined {
  const size = run.sizes.find((s) => !s.series && s.events === events);
  const r = size?.results.find((x) => x.store === store && x.key === key);
  return r && r.status === 'ok' ? r : undefined;
}

/** The issue's targets, each with a verdict line. */
export function checkTargets(run: BenchRun): string[] {
  const out: string[] = [];
  const sizes = run.sizes
    .filter((s) => !s.series)
    .map((s) => s.events)
    .sort((a, b) => a - b);
  const smallest = sizes[0];
  const largest = sizes[sizes.length - 1];
  const verdict = (ok: boolean, text: string) => `- ${ok ? '**met**' : '**missed**'}: ${text}`;

  for (const events of sizes) {
    const single = find(run, events, 'sqlite', 'single');
    if (single) {
      const rps = single.service!.rps;
      const base = single.baseline?.rps;
      const ok = rps >= 10_000 && (base === undefined || rps >= base / 3);
      out.push(
        verdict(
          ok,
          `single event ≥ 10,000 req/s and ≥ 1/3 of the baseline (${events.toLocaleString('en-US')} events, SQLite): ${fmt(rps)} req/s = ${ratio(rps, base)} of ${fmt(base)}` +
            (ok ? '' : ` — short by ${fmt(Math.max(10_000, (base ?? 0) / 3) - rps)} req/s (${(((Math.max(10_000, (base ?? 0) / 3) - rps) / Math.max(10_000, (base ?? 0) / 3)) * 100).toFixed(0)}%)`),
        ),
      );
    }
    const list = find(run, events, 'sqlite', 'list');
    if (list) {
      const rps = list.service!.rps;
      out.push(
        verdict(
          rps >= 5_000,
          `list of 10 ≥ 5,000 req/s (${events.toLocaleString('en-US')} events, SQLite): ${fmt(rps)} req/s` +
            (rps >= 5_000 ? '' : ` — short by ${fmt(5_000 - rps)} (${(((5_000 - rps) / 5_000) * 100).toFixed(0)}%)`),
        ),
      );
    }
    // Issue 10: each page within 2x of the API answer it shows (the same run, each store).
    for (const store of ['sqlite', 'postgres'] as const) {
      for (const [pageKey, apiKey, what] of [
        ['page-event', 'single', 'event page'],
        ['page-list', 'list', 'list page'],
      ] as const) {
        const page = find(run, events, store, pageKey);
        const api = find(run, events, store, apiKey);
        if (!page || !api) continue;
        const ok = page.service!.rps * 2 >= api.service!.rps;
        out.push(
          verdict(
            ok,
            `${what} within 2× of the API's ${apiKey === 'single' ? 'single event' : 'list'} (${events.toLocaleString('en-US')} events, ${store}): ${fmt(page.service!.rps)} vs ${fmt(api.service!.rps)} req/s (${ratio(page.service!.rps, api.service!.rps)}), p50 ${ms(page.service!.p50)} vs ${ms(api.service!.p50)} ms`,
          ),
        );
      }
    }
    const reads = run.sizes.find((s) => !s.series && s.events === events)!.results.filter((r) => r.store === 'sqlite' && r.kind === 'read' && r.status === 'ok');
    if (reads.length) {
      const worst = reads.reduce((a, b) => (b.service!.p99 > a.service!.p99 ? b : a));
      const ok = worst.service!.p99 <= 10;
      out.push(
        verdict(
          ok,
          `p99 ≤ 10 ms for reads (${events.toLocaleString('en-US')} events, SQLite): worst is ${worst.key} at ${ms(worst.service!.p99)} ms` +
            (ok ? '' : ` — over by ${ms(worst.service!.p99 - 10)} ms`),
        ),
      );
    }
  }

  if (largest !== undefined && smallest !== undefined && largest !== smallest) {
    for (const key of ['list', 'filtered']) {
      for (const store of ['sqlite', 'postgres'] as const) {
        const big = find(run, largest, store, key);
        const small = find(run, smallest, store, key);
        if (!big || !small) continue;
        const p50 = big.service!.p50 / small.service!.p50;
        const p99 = big.service!.p99 / small.service!.p99;
        const ok = p50 <= 1.5 && p99 <= 1.5;
        out.push(
          verdict(
            ok,
            `${key} latency at ${largest.toLocaleString('en-US')} events within 1.5× of ${smallest.toLocaleString('en-US')} events (${store}): p50 ${ms(big.service!.p50)} vs ${ms(small.service!.p50)} ms (${p50.toFixed(2)}×), p99 ${ms(big.service!.p99)} vs ${ms(small.service!.p99)} ms (${p99.toFixed(2)}×)`,
          ),
        );
      }
    }
  }

  // Issue 14: the geo-filtered list within 2x of the category-filtered list (p50 and req/s).
  for (const events of sizes) {
    for (const store of ['sqlite', 'postgres'] as const) {
      const geo = find(run, events, store, 'geo');
      const filtered = find(run, events, store, 'filtered');
      if (!geo || !filtered) continue;
      const slower = filtered.service!.rps / geo.service!.rps;
      const p50 = geo.service!.p50 / filtered.service!.p50;
      out.push(
        verdict(
          slower <= 2 && p50 <= 2,
          `geo-filtered list within 2× of the filtered list (${events.toLocaleString('en-US')} events, ${store}): ${fmt(geo.service!.rps)} vs ${fmt(filtered.service!.rps)} req/s (${slower.toFixed(2)}×), p50 ${ms(geo.service!.p50)} vs ${ms(filtered.service!.p50)} ms`,
        ),
      );
    }
  }

  for (const events of sizes) {
    const size = run.sizes.find((s) => !s.series && s.events === events)!;
    for (const pg of size.results.filter((r) => r.store === 'postgres' && r.kind === 'read' && r.status === 'ok')) {
      const lite = find(run, events, 'sqlite', pg.key);
      if (!lite) continue;
      const f = lite.service!.rps / pg.service!.rps;
      out.push(
        verdict(
          f <= 2,
          `PostgreSQL within 2× of SQLite, ${pg.key} (${events.toLocaleString('en-US')} events): ${fmt(pg.service!.rps)} vs ${fmt(lite.service!.rps)} req/s (SQLite ${f.toFixed(2)}× faster)`,
        ),
      );
    }
  }

  // Issue 9: fast while the calendar changes.
  for (const events of sizes) {
    const size = run.sizes.find((s) => !s.series && s.events === events)!;
    const n = events.toLocaleString('en-US');
    for (const store of ['sqlite', 'postgres'] as const) {
      const create = find(run, events, store, 'create');
      if (create) {
        const want = TARGETS.create[store];
        const rps = create.service!.rps;
        out.push(
          verdict(
            rps >= want,
            `event create ≥ ${fmt(want)} req/s (${n} events, ${store}, ${run.connections} connections): ${fmt(rps)} req/s, p99 ${ms(create.service!.p99)} ms` +
              (rps >= want ? '' : ` — short by ${fmt(want - rps)} (${(((want - rps) / want) * 100).toFixed(0)}%)`),
          ),
        );
      }
    }
    for (const r of size.underWrites.filter((x) => x.status === 'ok' && x.service)) {
      const [ok, text] = underWritesVerdict(r);
      out.push(verdict(ok, `${r.label} (${n} events, ${r.store}): ${text}`));
    }
    for (const [store, aw] of Object.entries(size.afterWrite) as Array<[StoreName, AfterWriteRun]>) {
      for (const [key, r] of Object.entries(aw.reads)) {
        const target = TARGETS.afterWrite[key]!;
        if (r.status !== 'ok' || r.times.length === 0) {
          out.push(`- n/a: first ${AFTER_WRITE_LABEL[key] ?? key} after a write ≤ ${target} ms median (${n} events, ${store}): ${r.note ?? r.status}`);
          continue;
        }
        const med = quantile(r.times, 0.5);
        out.push(
          verdict(
            med <= target,
            `first ${AFTER_WRITE_LABEL[key] ?? key} after a write ≤ ${target} ms median (target set for 1,000,000 events; ${n} events, ${store}, ${r.times.length} rounds): median ${ms(med)} ms, p90 ${ms(quantile(r.times, 0.9))}, max ${ms(maxOf(r.times))}` +
              (med <= target ? '' : ` — over by ${ms(med - target)} ms`),
          ),
        );
      }
    }
    for (const [store, p] of Object.entries(size.propagation) as Array<[StoreName, PropagationRun]>) {
      const all = Object.values(p.reads).flatMap((r) => r.delays);
      const notVisible = Object.values(p.reads).reduce((a, r) => a + r.notVisible, 0);
      const max = maxOf(all);
      const ok = notVisible === 0 && all.length > 0 && max <= TARGETS.propagation;
      out.push(
        verdict(
          ok,
          `a create on instance A visible on instance B within ${TARGETS.propagation} ms (${n} events, ${store}, ${p.rounds} creates; by id, default list, filtered list): ` +
            Object.entries(p.reads)
              .map(([k, r]) => `${k} median ${ms(quantile(r.delays, 0.5))} / max ${ms(maxOf(r.delays))} ms${r.notVisible ? ` (${r.notVisible} not visible within ${p.timeoutMs} ms)` : ''}`)
              .join(', ') +
            (ok ? '' : ` — worst ${ms(max)} ms`),
        ),
      );
    }
  }

  if (largest !== undefined) {
    const size = run.sizes.find((s) => !s.series && s.events === largest)!;
    for (const store of ['sqlite', 'postgres'] as const) {
      const rss = size.rss[store];
      if (!rss || rss.peak === null) continue;
      const ok = rss.peak < 300 * 1024 * 1024;
      out.push(verdict(ok, `RSS under 300 MB while serving ${largest.toLocaleString('en-US')} events (${store}): peak ${mb(rss.peak)} (after start-up ${mb(rss.idle)})`));
    }
  }
  return out;
}

/** A size's heading: `100,000 events`, or `100,000 events + 10,000 weekly series`. */
export function sizeLabel(size: Pick<SizeRun, 'events' | 'series'>): string {
  const events = `${size.events.toLocaleString('en-US')} events`;
  return size.series ? `${events} + ${size.series.count.toLocaleString('en-US')} ${size.series.kind} series` : events;
}

/** Issue 15's target: with series, each list target within this factor of the same list without. */
export const SERIES_FACTOR = 1.5;
const SERIES_READS: Array<[string, string]> = [
  ['list', 'default list'],
  ['filtered', 'filtered list'],
  ['single', 'single event'],
  ['page100', 'page 100 of the default list'],
];

/**
 * Issue 15: each size seeded with series against the same number of events without, same run,
 * same store: throughput ≥ 1/1.5 of it, median and p99 latency ≤ 1.5×; the first read after a
 * write (median) ≤ 1.5× when measured.
 */
function seriesSection(run: BenchRun): string[] {
  const out: string[] = [];
  for (const withSeries of run.sizes.filter((s) => s.series)) {
    const without = run.sizes.find((s) => !s.series && s.events === withSeries.events);
    if (!without) continue;
    if (out.length === 0) out.push('### Issue 15: recurring events at scale', '');
    const d = withSeries.dataset;
    const seeds = Object.entries(withSeries.seedSeconds)
      .map(([store, sec]) => `${store} ${sec === null || sec === undefined ? 'reused' : `${sec.toFixed(1)} s`}`)
      .join(', ');
    const seedsWithout = Object.entries(without.seedSeconds)
      .map(([store, sec]) => `${store} ${sec === null || sec === undefined ? 'reused' : `${sec.toFixed(1)} s`}`)
      .join(', ');
    out.push(
      `${sizeLabel(withSeries)}${d?.occurrences !== undefined ? ` (${fmt(d.occurrences)} occurrences)` : ''} against ${sizeLabel(without)}, same run. ` +
        `Target: within ${SERIES_FACTOR}× (req/s ≥ 1/${SERIES_FACTOR} of the list without series; median and p99 ≤ ${SERIES_FACTOR}×). ` +
        `Seeding: with series ${seeds || '–'}; without ${seedsWithout || '–'}.`,
      '',
      '| read | store | req/s without | req/s with | ratio | p50 ms without | p50 ms with | ratio | p99 ms without | p99 ms with | ratio | verdict |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    );
    const stores = [...new Set(withSeries.results.map((r) => r.store))];
    for (const store of stores) {
      for (const [key, label] of SERIES_READS) {
        const a = without.results.find((r) => r.store === store && r.key === key && r.status === 'ok')?.service;
        const b = withSeries.results.find((r) => r.store === store && r.key === key && r.status === 'ok')?.service;
        if (!a || !b) continue;
        const ok = b.rps >= a.rps / SERIES_FACTOR && b.p50 <= a.p50 * SERIES_FACTOR && b.p99 <= a.p99 * SERIES_FACTOR;
        out.push(
          `| ${label} | ${store} | ${fmt(a.rps)} | ${fmt(b.rps)} | ${ratio(b.rps, a.rps)} | ${ms(a.p50)} | ${ms(b.p50)} | ${ratio(b.p50, a.p50)} | ${ms(a.p99)} | ${ms(b.p99)} | ${ratio(b.p99, a.p99)} | ${ok ? 'met' : '**missed**'} |`,
        );
      }
      const awA = without.afterWrite[store];
      const awB = withSeries.afterWrite[store];
      for (const key of Object.keys(awB?.reads ?? {})) {
        const ta = awA?.reads[key]?.times ?? [];
        const tb = awB?.reads[key]?.times ?? [];
        if (!ta.length || !tb.length) continue;
        const [ma, mb2] = [quantile(ta, 0.5), quantile(tb, 0.5)];
        out.push(
          `| first read after a write: ${AFTER_WRITE_LABEL[key] ?? key} (median of ${tb.length} rounds) | ${store} | | | | ${ms(ma)} | ${ms(mb2)} | ${ratio(mb2, ma)} | | | | ${mb2 <= ma * SERIES_FACTOR ? 'met' : '**missed**'} |`,
        );
      }
    }
    out.push('');
  }
  return out;
}

export function renderReport(run: BenchRun): string {
  const m = run.machine;
  const parts: string[] = [];
  parts.push(`Generated by \`npm run bench\` (bench/src/run.ts); started ${run.startedAt}, finished ${run.finishedAt}.`);
  parts.push('');
  parts.push('```sh');
  parts.push(run.command);
  parts.push('```');
  parts.push('');
  parts.push(`**Machine**: ${m.cpu}, ${m.cores} cores (shared by the server, the baseline and the load generator), ${m.memoryGb} GB memory, ${m.os}, Node ${m.node}.`);
  parts.push('');
  parts.push(
    `**Load**: autocannon, ${run.connections} connections, ${run.seconds} s per measurement after a ${run.warmupSeconds} s warm-up (discarded), from the benchmark process. ` +
      `Latencies are computed from every 2xx response time. The server runs in a child process: ${run.serverNote}. ` +
      `The baseline is a bare Fastify route in another child process answering the exact body the service answered, serialized per request (for the create row: a POST route, same 201 body).`,
  );
  parts.push('');
  parts.push('### Targets');
  parts.push('');
  parts.push(...checkTargets(run));
  const issue15 = seriesSection(run);
  if (issue15.length) parts.push('', ...issue15);
  for (const size of run.sizes) {
    parts.push('');
    parts.push(`### ${sizeLabel(size)}`);
    parts.push('');
    const d = size.dataset;
    if (d) {
      parts.push(
        `Dataset: ${fmt(d.events)} events, ${fmt(d.venues)} venues, ${fmt(d.organizers)} organizers, ${fmt(d.categories)} categories, ${fmt(d.tags)} tags, ${fmt(d.images)} images, ` +
          `${fmt(d.eventOrganizers)} event–organizer links, ${fmt(d.eventTerms)} event–term links` +
          (d.series ? `; ${fmt(d.series)} series with ${fmt(d.occurrences)} occurrences (counted among the events).` : '.'),
      );
    }
    const seeds = Object.entries(size.seedSeconds).map(([store, s]) => `${store} ${s === null || s === undefined ? 'reused an existing database' : `${s.toFixed(1)} s`}`);
    if (seeds.length)
      parts.push(`Seeding (\`events-calendar seed --events ${size.events}${size.series ? ` --series ${size.series.count} --series-kind ${size.series.kind}` : ''}\`): ${seeds.join(', ')}.`);
    const rss = Object.entries(size.rss).map(([store, r]) => `${store} ${mb(r?.idle)} after start-up, peak ${mb(r?.peak)} under load`);
    if (rss.length) parts.push(`Server RSS: ${rss.join('; ')}.`);
    if (size.load)
      parts.push(`Machine load average (1 min) at the start / end of this size: ${size.load.start.toFixed(2)} / ${size.load.end.toFixed(2)} (2 cores; the benchmark itself keeps about 2 busy).`);
    parts.push('');
    parts.push(resultTable(size));
    const stores = Object.keys(size.cold) as StoreName[];
    if (stores.length) {
      const keys = [...new Set(stores.flatMap((st) => Object.keys(size.cold[st] ?? {})))];
      parts.push('');
      parts.push('Cold path: one request right after an event was created (every cached result invalidated), then the next request (ms):');
      parts.push('');
      parts.push(`| scenario | ${stores.map((st) => `${st} first | ${st} next`).join(' | ')} |`);
      parts.push(`|---|${stores.map(() => '---:|---:').join('|')}|`);
      for (const key of keys) {
        parts.push(
          `| ${key} | ${stores
            .map((st) => {
              const c = size.cold[st]?.[key];
              return c ? `${ms(c.first)} | ${ms(c.next)}` : '– | –';
            })
            .join(' | ')} |`,
        );
      }
    }
    if (size.underWrites.length) {
      parts.push('');
      parts.push(
        `Reads under writes (issue 9): the read loaded as above while one more client creates ${size.writeRate ?? 20} events per second through the API (HTTP Basic administrator; published, category ${FILTER.category}, ` +
          `starting 1-89 days from today, "${FILTER.search}" in title and description, so the default and the filtered list both show them). ` +
          `"vs read-only" compares with the same read without writes ${size.underWrites[0]?.readOnlySource === 'measured right before' ? 'measured right before on the same instance' : 'in this run (the table above; for the B rows, on instance A)'}; "B" rows read from a second server process on the same PostgreSQL database while the writer writes to the first.`,
      );
      parts.push('');
      parts.push(underWritesTable(size));
    }
    if (Object.keys(size.afterWrite).length) {
      parts.push('');
      parts.push(
        'First read after a write (issue 9): per round, one event created (as above), then one request each of the default list, the filtered list and `/events?page=100`, one after the other (ms):',
      );
      parts.push('');
      parts.push(afterWriteTable(size));
    }
    if (Object.keys(size.propagation).length) {
      const p = Object.values(size.propagation)[0]!;
      parts.push('');
      parts.push(
        `Two instances on one database (issue 9): per round, an event created on instance A, then instance B polled (a pause of ${p.pollMs} ms between answers) until it shows it; ` +
          `delay from A's 201 to B's first answer showing it (ms):`,
      );
      parts.push('');
      parts.push(propagationTable(size));
    }
    if (size.webhooks && Object.keys(size.webhooks).length) {
      parts.push('');
      parts.push(
        "Webhook deliveries (issue 11): one endpoint (a local receiver answering 204) for `event.created`; events created by four clients as fast as the API answers; deliveries per second from the first create to the last delivery, and the delay from a create's 201 to its delivery (ms):",
      );
      parts.push('');
      parts.push('| store | events | delivered | seconds | deliveries/s | p50 | p90 | max | note |');
      parts.push('|---|---|---|---|---|---|---|---|---|');
      for (const [store, w] of Object.entries(size.webhooks) as Array<[StoreName, WebhookRateRun]>) {
        parts.push(`| ${store} | ${w.events} | ${w.deliveries} | ${w.seconds.toFixed(1)} | ${w.rate.toFixed(1)} | ${ms(w.p50)} | ${ms(w.p90)} | ${ms(w.max)} | ${w.error ?? ''} |`);
      }
    }
    if (size.bigWrites && Object.keys(size.bigWrites).length) {
      parts.push('');
      parts.push(
        'Reads while the largest accepted writes run (issue 24): anonymous reads of the single event (closed loops) from just before each write until its work has ended (the series: until its occurrences are all listed), and the same reads without writes right before (ms):',
      );
      parts.push('');
      parts.push('| store | write | writes | write ms (median) | work s | reads | p50 | p99 | max | without: p50 | p99 | note |');
      parts.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
      for (const [store, runs] of Object.entries(size.bigWrites) as Array<[StoreName, BigWriteRun[]]>) {
        for (const r of runs) {
          const sorted = [...r.writeMs].sort((a, b) => a - b);
          parts.push(
            `| ${store} | ${r.label} | ${r.writes} | ${ms(sorted[Math.floor(sorted.length / 2)])} | ${r.seconds.toFixed(1)} | ${r.reads} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.reference.p50)} | ${ms(r.reference.p99)} | ${r.error ?? ''} |`,
          );
        }
      }
    }
    if (size.growingReads && Object.keys(size.growingReads).length) {
      parts.push('');
      parts.push(
        'Anonymous reads whose cost grows with the data (issue 44): each request of a kind new (a search term, filter value, window or page never sent before in the run), on a server of its own; latency (ms), the longest hold of its event loop during them (its loop watch, ms and the CPU ms of that hold; the bound is 100 ms), and the longest answer of a `/livez` ping sent in a loop meanwhile:',
      );
      parts.push('');
      parts.push('| store | read | requests | at once | statuses | p50 | p99 | max | loop held (CPU) | holds ≥ 100 ms CPU | /livez max | note |');
      parts.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
      for (const [store, runs] of Object.entries(size.growingReads) as Array<[StoreName, GrowingReadRun[]]>) {
        for (const r of runs) {
          const statuses = Object.entries(r.statuses)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ');
          parts.push(
            `| ${store} | ${r.label} | ${r.requests} | ${r.concurrency} | ${statuses} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.heldMs} (${r.heldCpuMs}) | ${r.heldOver100} | ${ms(r.livezMax)} | ${r.error ?? ''} |`,
          );
        }
      }
    }
  }
  return parts.join('\n');
}

const BEGIN = '<!-- bench:begin (generated by npm run bench; edit outside these markers) -->';
const END = '<!-- bench:end -->';

/** Replace the generated part of the file (or create it with a short preamble). */
export async function writeReport(path: string, generated: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    text = `# Benchmark results\n\n${BEGIN}\n${END}\n`;
  }
  // The end marker after the begin marker (reports quoted elsewhere in the file may carry one).
  const start = text.indexOf(BEGIN);
  const end = start === -1 ? -1 : text.indexOf(END, start);
  const block = `${BEGIN}\n${generated}\n${END}`;
  text = start === -1 || end === -1 ? `${text.trimEnd()}\n\n${block}\n` : text.slice(0, start) + block + text.slice(end + END.length);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}
