/**
 * The import job: runs the imports queued through the admin API (domain/imports.ts) of every
 * calendar, each in its calendar, one at a time across servers (`singleton`), with the CLI's importers (`src/import/`): progress
 * (phase, done, total) and a heartbeat written to the import's row while it runs, counts and
 * messages at the end. Woken by each enqueue, and every 5 s (another server's enqueue, a stale
 * import to resume). A stop ends the import between two records and queues it again; an import
 * whose server died is queued again once its heartbeat is a minute old (see domain/imports.ts).
 *
 * @example
 *   const job = registerImportJob(runner, services);
 *   await job.runOnce(); // { value: 12 }: the id of the import it ran
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DomainServices } from '../domain/services.js';
import { type ImportCounts, type ImportMessage, type StoredOptions } from '../domain/imports.js';
import { viewerOf, type Viewer } from '../domain/permissions.js';
import * as importsStore from '../store/imports.js';
import * as usersStore from '../store/users.js';
import { ImportError } from '../import/source.js';
import type { ImportReport, Progress } from '../import/report.js';
import { importIcs } from '../import/ics.js';
import { importTec } from '../import/tec.js';
import type { JobHandle, JobRunner } from './runner.js';

export type ImportJob = JobHandle<number | undefined>;

/** A running import writes its heartbeat this often (ms). */
export const HEARTBEAT_MS = 10_000;
/** A running import whose heartbeat is older than this is queued again (ms). */
export const STALE_MS = 60_000;
/** Starts of one import at most (interrupted runs included). */
const MAX_ATTEMPTS = 3;
/** Progress is written at most this often (ms), and at each new phase. */
const PROGRESS_EVERY_MS = 500;
/** Messages kept per import. */
const MAX_MESSAGES = 500;
/** Event ids kept per import and outcome (the result's links). */
const MAX_IDS = 10_000;

/** A stop asked for while an import ran: it is queued again. */
class Interrupted extends Error {}

const gmtOf = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

function countsOf(report: ImportReport): ImportCounts {
  const out: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, by_kind: {} };
  for (const [kind, c] of report.counts) {
    out.by_kind[kind] = { ...c };
    for (const k of ['created', 'updated', 'unchanged', 'skipped', 'failed'] as const) out[k] += c[k];
  }
  // Bounded: the row stays a few hundred kilobytes at most even for a huge feed.
  out.events = { created: report.eventIds.created.slice(0, MAX_IDS), updated: report.eventIds.updated.slice(0, MAX_IDS) };
  out.venues_for_review = [...report.venuesForReview].slice(0, MAX_MESSAGES).map(([location, events]) => ({ location: location.slice(0, 500), events: events.slice(0, MAX_IDS) }));
  return out;
}

function messagesOf(report: ImportReport, rename: (s: string) => string): ImportMessage[] {
  const out: ImportMessage[] = [];
  for (const f of report.failures) out.push({ type: 'failed', message: rename(`${f.kind} ${f.id}: ${f.reason}`) });
  for (const s of report.skips) out.push({ type: 'skipped', message: rename(`${s.id}: ${s.reason}`) });
  for (const w of report.warnings) out.push({ type: 'warning', message: rename(w) });
  for (const r of report.remapped) out.push({ type: 'mapped', message: `${r.kind} ${r.sourceId} → ${r.localId} (${r.why})` });
  if (report.notModified) out.push({ type: 'warning', message: 'not modified since the last run (HTTP 304): nothing to import' });
  return out.slice(0, MAX_MESSAGES).map((m) => ({ ...m, message: m.message.length > 1000 ? m.message.slice(0, 1000) + '…' : m.message }));
}

export function registerImportJob(runner: JobRunner, services: DomainServices): ImportJob {
  const queue = services.imports.queue;
  const db = services.store.db;
  const nowMs = () => Date.now();

  /** Who the import runs as: the person who queued it, still an administrator of its calendar (or of the network). */
  async function importer(id: number, calendar: number): Promise<Viewer> {
    const row = await importsStore.findImport(db, id);
    const user = row ? await usersStore.findUserById(db, Number(row.user_id)) : undefined;
    const role = !user ? '' : user.role === 'administrator' ? user.role : await services.calendars.roleOf(Number(user.id), calendar);
    if (!user || role !== 'administrator') throw new ImportError('the user who queued this import is no longer an administrator');
    return viewerOf({ id: Number(user.id), login: user.login, role });
  }

  async function runImport(row: importsStore.ClaimedImport, isStopped: () => boolean): Promise<void> {
    const id = Number(row.id);
    const options = JSON.parse(row.options) as StoredOptions;
    let lastWrite = 0;
    let phase = '';
    let pending: Promise<void> = Promise.resolve();
    const write = (p: Progress) => {
      lastWrite = nowMs();
      pending = pending.then(() => importsStore.noteProgress(db, id, { phase: p.phase.slice(0, 40), done: p.done, total: p.total, heartbeat_gmt: gmtOf(lastWrite) })).catch(() => {});
    };
    let lastProgress: Progress = { phase: '', done: 0, total: 0 };
    const heartbeat = setInterval(() => write(lastProgress), HEARTBEAT_MS);
    heartbeat.unref();
    const hooks = {
      onProgress(p: Progress) {
        if (isStopped()) throw new Interrupted('stopping');
        lastProgress = p;
        if (p.phase !== phase || nowMs() - lastWrite >= PROGRESS_EVERY_MS || p.done === p.total) {
          phase = p.phase;
          write(p);
        }
      },
    };
    let dir: string | undefined;
    let rename = (s: string) => s;
    const ended = JSON.stringify({ ...options, sealed_password: undefined });
    try {
      const admin = await importer(id, row.calendar_id);
      let report: ImportReport;
      if (row.kind === 'ics') {
        let input = options.url ?? '';
        if (row.upload !== null) {
          dir = await mkdtemp(join(tmpdir(), 'calendar-import-'));
          input = join(dir, 'upload.ics');
          await writeFile(input, row.upload);
          const path = input;
          rename = (s) => s.split(path).join(row.source);
        }
        report = await importIcs(
          services,
          admin,
          {
            input,
            status: options.status ?? 'publish',
            dryRun: options.dry_run ?? false,
            retries: 2,
            retryDelayMs: 1000,
            strict: options.strict ?? false,
            allowPrivate: services.config.webhooksAllowPrivate,
          },
          hooks,
        );
      } else {
        const password = await queue.passwordOf(options);
        report = await importTec(
          services,
          admin,
          {
            from: row.source,
            namespace: options.namespace ?? 'tribe/events/v1',
            ...(options.user !== undefined && password !== undefined ? { user: options.user, password } : {}),
            ...(options.author !== undefined ? { author: options.author } : {}),
            authorRole: options.author_role ?? 'subscriber',
            dryRun: options.dry_run ?? false,
            concurrency: 4,
            retries: 3,
            retryDelayMs: 1000,
            allowPrivate: services.config.webhooksAllowPrivate,
          },
          hooks,
        );
      }
      await pending;
      await importsStore.finishImport(db, id, {
        status: 'done',
        options: ended,
        counts: JSON.stringify(countsOf(report)),
        messages: JSON.stringify(messagesOf(report, rename)),
        error: null,
        finished_gmt: gmtOf(nowMs()),
      });
    } catch (err) {
      await pending;
      if (err instanceof Interrupted) {
        await importsStore.finishImport(db, id, { status: 'queued' });
        return;
      }
      // Operator-level failures (unreachable, refused, not iCalendar, credentials) are the import's outcome; anything else too, logged by the runner.
      await importsStore.finishImport(db, id, { status: 'failed', options: ended, error: rename((err as Error).message), finished_gmt: gmtOf(nowMs()) });
      if (!(err instanceof ImportError)) throw err;
    } finally {
      clearInterval(heartbeat);
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }

  const job = runner.register<number | undefined>({
    name: 'imports',
    everyMs: 5_000,
    firstMs: 1_000,
    singleton: true,
    backoff: { initialMs: 5_000, maxMs: 60_000 },
    async run(ctx) {
      const now = nowMs();
      await importsStore.requeueStale(db, gmtOf(now - STALE_MS), MAX_ATTEMPTS, gmtOf(now));
      if (ctx.isStopped()) return;
      // The queue is every calendar's; each import runs in the calendar it was queued in (its records,
      // its import map, its configuration: site URL, time zone).
      const row = await importsStore.claimNextImport(db, gmtOf(now));
      if (!row) return { value: undefined };
      try {
        await services.calendars.within(row.calendar_id, () => runImport(row, ctx.isStopped));
      } catch (err) {
        // The import is marked failed; the job itself goes on with the next one.
        if (ctx.isStopped()) return { value: Number(row.id) };
        throw err;
      }
      return { more: !ctx.isStopped(), value: Number(row.id) };
    },
    onStop() {
      unsubscribe();
    },
  });
  const unsubscribe = queue.onQueued(() => job.nudge());
  return job;
}
