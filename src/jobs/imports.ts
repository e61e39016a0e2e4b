/**
 * The import job: runs the imports queued through the admin API (domain/imports.ts) of every
 * calendar, each in its calendar, one at a time across servers (`singleton`), with the CLI's importers (`src/import/`): progress
 * (phase, done, total) and a heartbeat written to the import's row while it runs, counts and
 * messages at the end. Woken by each enqueue, and every 5 s (another server's enqueue, a stale
 * import to resume). A stop ends the import between two records and queues it again; an import
 * whose server died is queued again once its heartbeat is a minute old (see domain/imports.ts).
 *
 * Calendars take turns, so that one calendar's long import (hours) does not hold back another's:
 * the next import is the oldest queued one of the calendar that ran least recently
 * (`claimNextImport`), and an import that has run IMPORT_SLICE while another calendar's import
 * waits ends its slice between two records and is queued again, behind it. With no other calendar
 * waiting it runs on. The next slice goes on where it stopped: an ics import at the next event of
 * the same text (its report kept in the row), a tec import by walking its source again, the import
 * map making what it wrote count as skipped, and its report's counts taken up (`takeUpRewalked`);
 * its slice's clock starts once it is past what it had done.
 *
 * @example
 *   const job = registerImportJob(runner, services);
 *   await job.runOnce(); // { value: 12 }: the id of the import it ran (or the slice of it)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DomainServices } from '../domain/services.js';
import { type ImportCounts, type ImportMessage, type StoredOptions } from '../domain/imports.js';
import { viewerOf, type Viewer } from '../domain/permissions.js';
import * as importsStore from '../store/imports.js';
import * as usersStore from '../store/users.js';
import { deleteCalendarRows, findCalendarById } from '../store/calendars.js';
import { ImportError } from '../import/source.js';
import type { ImportReport, Progress, ReportState } from '../import/report.js';
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

/** Another calendar's waiting import is looked for at most this often once a slice is over (ms). */
const WAITING_CHECK_MS = 1_000;

/** A stop asked for while an import ran: it is queued again. */
class Interrupted extends Error {}
/** An import's slice ended while another calendar's import waits: it is queued again, behind it. */
class SliceEnded extends Error {}
/** The import's calendar was suspended (it is queued again, to go on once resumed) or deleted while it ran. */
class CalendarLeft extends Error {}

/** How often a running import looks at its calendar's state (ms). */
const CALENDAR_CHECK_MS = 500;

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
  /** The order in which this server gave calendars their turns (a tie-break below the heartbeats' second). */
  const turns = new Map<number, number>();
  let turn = 0;

  /** Who the import runs as: the person who queued it, still an administrator of its calendar (or of the network). */
  async function importer(id: number, calendar: number): Promise<Viewer> {
    const row = await importsStore.findImport(db, id);
    const user = row ? await usersStore.findUserById(db, Number(row.user_id)) : undefined;
    const role = !user ? '' : user.role === 'administrator' ? user.role : await services.calendars.roleOf(Number(user.id), calendar);
    if (!user || role !== 'administrator') throw new ImportError('the user who queued this import is no longer an administrator');
    return viewerOf({ id: Number(user.id), login: user.login, role });
  }

  /**
   * Run an import (or its next slice). Resolves `'slice'` when it ended a slice and went back to
   * the queue (another calendar's import waits), `'stopped'` when a stop interrupted it.
   */
  async function runImport(row: importsStore.ClaimedImport, isStopped: () => boolean): Promise<'ended' | 'slice' | 'stopped'> {
    const id = Number(row.id);
    const options = JSON.parse(row.options) as StoredOptions;
    const earlier = options.resume;
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
    let report: ImportReport | undefined;
    const slice = sliceOf(row, earlier, isStopped);
    const calendar = calendarWatch(row.calendar_id);
    const hooks = {
      onReport(r: ImportReport) {
        report = r;
      },
      onProgress(p: Progress) {
        // Called once a record is done: a stop then ends the run with that record counted.
        lastProgress = p;
        if (isStopped()) throw new Interrupted('stopping');
        calendar.afterRecord();
        if (p.phase !== phase || nowMs() - lastWrite >= PROGRESS_EVERY_MS || p.done === p.total) {
          phase = p.phase;
          write(p);
        }
        // After the record is counted and its progress noted: the next slice goes on from here.
        slice.afterRecord(p);
      },
    };
    let dir: string | undefined;
    let rename = (s: string) => s;
    const ended = JSON.stringify({ ...options, sealed_password: undefined, resume: undefined });
    try {
      const admin = await importer(id, row.calendar_id);
      let final: ImportReport;
      if (row.kind === 'ics') {
        let input = options.url ?? '';
        if (row.upload !== null) {
          dir = await mkdtemp(join(tmpdir(), 'calendar-import-'));
          input = join(dir, 'upload.ics');
          await writeFile(input, row.upload);
          const path = input;
          rename = (s) => s.split(path).join(row.source);
        }
        final = await importIcs(
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
            ...(earlier ? { resume: earlier } : {}),
          },
          hooks,
        );
      } else {
        const password = await queue.passwordOf(options);
        final = await importTec(
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
        if (earlier) final.takeUpRewalked(earlier.report);
      }
      await pending;
      await importsStore.finishImport(db, id, {
        status: 'done',
        options: ended,
        counts: JSON.stringify(countsOf(final)),
        messages: JSON.stringify(messagesOf(final, rename)),
        error: null,
        finished_gmt: gmtOf(nowMs()),
        heartbeat_gmt: gmtOf(nowMs()),
      });
      return 'ended';
    } catch (err) {
      // Its calendar was deleted: its row went with it, and so must what the import wrote since.
      if (err instanceof CalendarLeft && calendar.state() === 'gone') return 'ended';
      const requeued = err instanceof Interrupted || err instanceof SliceEnded || err instanceof CalendarLeft;
      // Its progress as it stopped: the row, queued again, says how far it got.
      if (requeued) write(lastProgress);
      await pending;
      if (requeued) {
        // Where it stopped, for the next run to go on from (a stop keeps it too).
        const resume = report && resumeOf(row, report, earlier, slice.records(), lastProgress.done);
        await importsStore.finishImport(db, id, {
          status: 'queued',
          ...(resume ? { options: JSON.stringify({ ...options, resume }) } : {}),
          heartbeat_gmt: gmtOf(nowMs()),
          // A suspension is no failed start either: the import goes on once the calendar is resumed.
          slice: err instanceof SliceEnded || err instanceof CalendarLeft,
        });
        return err instanceof Interrupted ? 'stopped' : 'slice';
      }
      // Operator-level failures (unreachable, refused, not iCalendar, credentials) are the import's outcome; anything else too, logged by the runner.
      await importsStore.finishImport(db, id, { status: 'failed', options: ended, error: rename((err as Error).message), finished_gmt: gmtOf(nowMs()), heartbeat_gmt: gmtOf(nowMs()) });
      if (!(err instanceof ImportError)) throw err;
      return 'ended';
    } finally {
      clearInterval(heartbeat);
      if (dir) await rm(dir, { recursive: true, force: true });
      // A calendar deleted while the import wrote (its last records perhaps after the deletion's
      // transaction): what is left under its id is removed, as the deletion removed the rest.
      if (await calendar.gone()) await deleteCalendarRows(db, row.calendar_id);
    }
  }

  /**
   * The state of a running import's calendar, looked at in the background at most every
   * CALENDAR_CHECK_MS (a record never waits on it): once it is suspended or deleted, the next
   * record's end stops the import (`CalendarLeft`). `gone` looks now, for the end of the run.
   */
  function calendarWatch(id: number) {
    let state: 'active' | 'suspended' | 'gone' = 'active';
    let lastCheck = nowMs();
    let checking = false;
    const look = async () => {
      const row = await findCalendarById(db, id);
      state = !row ? 'gone' : row.status === 'active' ? 'active' : 'suspended';
      return state;
    };
    return {
      state: () => state,
      afterRecord() {
        if (state !== 'active') throw new CalendarLeft(state === 'gone' ? 'its calendar was deleted' : 'its calendar is suspended');
        const now = nowMs();
        if (checking || now - lastCheck < CALENDAR_CHECK_MS) return;
        checking = true;
        lastCheck = now;
        look()
          .catch(() => state)
          .finally(() => {
            checking = false;
          });
      },
      gone: async () => (await look().catch(() => state)) === 'gone',
    };
  }

  /**
   * The slice of a run: it ends after a record once IMPORT_SLICE has passed since the run's first
   * new record while another calendar's import waits (looked for in the background, at most every
   * second, so that a record never waits on it). A tec run walks again what the earlier ones did:
   * its clock starts past that many records.
   */
  function sliceOf(row: importsStore.ClaimedImport, earlier: StoredOptions['resume'], isStopped: () => boolean) {
    const sliceMs = services.config.importSliceMs;
    const walkedBefore = row.kind === 'tec' ? (earlier?.at ?? 0) : 0;
    let records = 0;
    let from: number | undefined;
    let lastCheck = 0;
    let checking = false;
    let waits = false;
    return {
      records: () => records,
      afterRecord(p: Progress) {
        records++;
        // An ics import's last event: nothing is left to go on with.
        if (sliceMs <= 0 || records <= walkedBefore || (row.kind === 'ics' && p.done >= p.total)) return;
        const now = nowMs();
        from ??= now;
        if (now - from < sliceMs) return;
        if (waits && !isStopped()) throw new SliceEnded('another calendar waits');
        if (checking || now - lastCheck < Math.min(sliceMs, WAITING_CHECK_MS)) return;
        checking = true;
        lastCheck = now;
        importsStore
          .otherCalendarWaits(db, row.calendar_id)
          .then((w) => {
            waits = w;
          })
          .catch(() => {})
          .finally(() => {
            checking = false;
          });
      },
    };
  }

  /** What the next run of an import stopped now goes on from. */
  function resumeOf(row: importsStore.ClaimedImport, report: ImportReport, earlier: StoredOptions['resume'], records: number, done: number): { at: number; report: ReportState } {
    // An ics run reports the events of the text done so far, those of the earlier runs included.
    if (row.kind === 'ics') return { at: done, report: report.state(MAX_IDS) };
    if (earlier) report.takeUpRewalked(earlier.report);
    return { at: records, report: report.state(MAX_IDS) };
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
      // The queue is every calendar's, served by calendar in turns; each import runs in the calendar
      // it was queued in (its records, its import map, its configuration: site URL, time zone).
      const row = await importsStore.claimNextImport(db, gmtOf(now), (calendar) => turns.get(calendar) ?? -1);
      if (!row) return { value: undefined };
      turns.delete(row.calendar_id);
      turns.set(row.calendar_id, ++turn);
      if (turns.size > 1000) turns.delete(turns.keys().next().value!);
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
