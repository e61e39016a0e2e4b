/**
 * What a benchmark run measures, as data: the results of every scenario and measurement, per size
 * and store, which run.ts collects and report.ts renders. Types only.
 */
import type { LoadResult } from './load.js';
import type { Machine } from './machine.js';

export type StoreName = 'sqlite' | 'postgres';

export interface ScenarioResult {
  key: string;
  label: string;
  kind: 'read' | 'write';
  store: StoreName;
  status: 'ok' | 'n/a' | 'error';
  note?: string;
  service?: LoadResult;
  baseline?: LoadResult;
  /** bytes of the measured response body */
  bodyBytes?: number;
  /** CPU the server used during the measured run, in cores (1.0 = one core busy) */
  serverCores?: number;
}

/** The one writer of a reads-under-writes measurement, over the measured run. */
export interface WriterStats {
  /** creates per second asked for */
  rate: number;
  seconds: number;
  /** creates answered 201 during the measured run */
  acknowledged: number;
  failed: number;
  failedStatuses: number[];
  achievedRate: number;
  /** acknowledged at least 95 % of rate × seconds (less one, for the window's edges) */
  keptRate: boolean;
  /** create latency, ms */
  p50: number;
  p99: number;
  max: number;
  /** how late the writer sent its latest request against its schedule, ms */
  maxLag: number;
}

/** Reads under writes (issue 9): one read scenario loaded while the writer creates events. */
export interface ChurnResult {
  key: string;
  label: string;
  read: 'single' | 'list' | 'filtered';
  /** 'same': reads and writes on one instance; 'other': reads on instance B, writes on A */
  instance: 'same' | 'other';
  store: StoreName;
  status: 'ok' | 'n/a' | 'error';
  note?: string;
  service?: LoadResult;
  /** the same read without writes, in this run */
  readOnly?: LoadResult;
  /** where readOnly comes from */
  readOnlySource?: string;
  writer?: WriterStats;
}

export interface ColdPair {
  first: number;
  next: number;
}

/** First read after a write (issue 9), repeated. */
export interface AfterWriteRun {
  rounds: number;
  seconds: number;
  writeError?: string;
  /** list, filtered, page100: ms of each first request after a write */
  reads: Record<string, { times: number[]; status: 'ok' | 'n/a' | 'error'; note?: string }>;
}

/** Visibility on instance B of events created on instance A (issue 9). */
export interface PropagationRun {
  rounds: number;
  seconds: number;
  pollMs: number;
  timeoutMs: number;
  writeError?: string;
  /** single, list, filtered: delays (ms) from A's 201 to B's first answer showing the event */
  reads: Record<string, { delays: number[]; notVisible: number }>;
}

export interface Dataset {
  events: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  images: number;
  eventOrganizers: number;
  eventTerms: number;
  /** recurring events (issue 15): series, and occurrences among `events` */
  series?: number;
  occurrences?: number;
}

export interface SizeRun {
  events: number;
  /** issue 15: recurring series seeded on top of the events (`seed --series N --series-kind K`) */
  series?: { count: number; kind: string };
  dataset?: Dataset;
  /** seconds per store; null when an existing database was reused */
  seedSeconds: Partial<Record<StoreName, number | null>>;
  /** server RSS in bytes: after start-up, and the peak while loaded */
  rss: Partial<Record<StoreName, { idle: number | null; peak: number | null }>>;
  results: ScenarioResult[];
  /** one request right after a write (every cached result invalidated), then the next one: ms */
  cold: Partial<Record<StoreName, Record<string, ColdPair>>>;
  /** issue 9: reads under writes, first reads after a write, two instances */
  underWrites: ChurnResult[];
  afterWrite: Partial<Record<StoreName, AfterWriteRun>>;
  propagation: Partial<Record<StoreName, PropagationRun>>;
  /** issue 11: webhook deliveries per second */
  webhooks?: Partial<Record<StoreName, WebhookRateRun>>;
  /** issue 24: anonymous reads while the largest accepted writes run */
  bigWrites?: Partial<Record<StoreName, BigWriteRun[]>>;
  /** issue 44: anonymous reads whose cost grows with the data (growing-reads.ts) */
  growingReads?: Partial<Record<StoreName, GrowingReadRun[]>>;
  /** the writers' rate (creates per second) */
  writeRate?: number;
  /** the machine's 1-minute load average when this size started and ended (other work on it shows here) */
  load?: { start: number; end: number };
}

export interface BenchRun {
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: Machine;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  serverNote: string;
  sizes: SizeRun[];
}

/** Issue 24: anonymous reads while the largest accepted writes run (big-writes.ts). */
export interface BigWriteRun {
  kind: 'recurrence' | 'terms' | 'body';
  label: string;
  /** writes sent (all must answer 201) */
  writes: number;
  /** ms of each write's request (201 answered) */
  writeMs: number[];
  /** seconds from the first write sent to the end of its work (recurrence: every occurrence listed) */
  seconds: number;
  /** reads during that time, and their latencies (ms) */
  reads: number;
  p50: number;
  p99: number;
  max: number;
  /** the same reads without writes, right before */
  reference: { reads: number; p50: number; p99: number; max: number };
  error?: string;
}

/** Issue 44: one kind of anonymous read whose cost grows with the data (growing-reads.ts). */
export interface GrowingReadRun {
  key: string;
  label: string;
  requests: number;
  /** requests in flight at once */
  concurrency: number;
  /** answers by HTTP status */
  statuses: Record<string, number>;
  /** latency (ms) */
  p50: number;
  p99: number;
  max: number;
  /** the longest hold of the server's event loop during these requests (its loop watch; ms and its CPU ms) */
  heldMs: number;
  heldCpuMs: number;
  /** holds of 100 ms of CPU or more */
  heldOver100: number;
  /** the request the longest hold was reported for */
  heldUrl?: string;
  /** a /livez ping loop meanwhile: its longest and p99 answer (ms) */
  livezMax: number;
  livezP99: number;
  error?: string;
}

/** Issue 11: webhook deliveries per second (webhooks.ts). */
export interface WebhookRateRun {
  /** events created (one `event.created` delivery each) */
  events: number;
  deliveries: number;
  /** from the first create to the last delivery */
  seconds: number;
  /** deliveries per second over `seconds` */
  rate: number;
  /** ms from a create's 201 to its delivery */
  p50: number;
  p90: number;
  max: number;
  error?: string;
}
