/**
 * The jobs of community submissions of every calendar, on the server's runner (each calendar's
 * work done in it):
 *
 * - `submission-retention` (hourly): erases the submitter's name, e-mail and address
 *   SUBMISSION_RETENTION_DAYS after the decision, 500 submissions a step (`more` while there are);
 * - `submission-digest` (daily, with SMTP_URL): one e-mail to the moderators of each calendar
 *   whose SUBMISSIONS_NOTIFY is `daily`, listing the submissions received since the last one.
 *
 * Both are safe to run twice (erasing again changes nothing; the digest marks what it sent), and
 * `singleton` keeps two servers from sending the same digest at once.
 *
 * @example
 *   const { retention } = registerSubmissionJobs(runner, services);
 *   await retention.runOnce(); // { value: 3 }: three submitters' data erased
 */
import type { DomainServices } from '../domain/services.js';
import type { JobHandle, JobRunner } from './runner.js';
import { calendarsWithSubmissions } from '../store/submissions.js';
import { DEFAULT_CALENDAR_ID } from '../store/calendar-scope.js';

export interface SubmissionJobs {
  retention: JobHandle<number>;
  digest?: JobHandle<number>;
}

const HOUR = 3_600_000;

/**
 * The calendars a job has work in (the default one always: it also prunes what no calendar owns,
 * the proofs of work), each then done in its calendar, with its configuration (retention days,
 * recipients, site name and URL).
 */
async function calendarsOf(services: Pick<DomainServices, 'store'>, purpose: 'retention' | 'digest'): Promise<number[]> {
  const ids = await calendarsWithSubmissions(services.store.db, purpose);
  return ids.includes(DEFAULT_CALENDAR_ID) ? ids : [DEFAULT_CALENDAR_ID, ...ids];
}

export function registerSubmissionJobs(runner: JobRunner, services: Pick<DomainServices, 'config' | 'submissions' | 'store' | 'calendars'>): SubmissionJobs {
  const retention = runner.register<number>({
    name: 'submission-retention',
    everyMs: HOUR,
    firstMs: 60_000,
    backoff: { initialMs: 60_000, maxMs: HOUR },
    async run(ctx) {
      let erased = 0;
      let more = false;
      for (const id of await calendarsOf(services, 'retention')) {
        if (ctx.isStopped()) break;
        const n = await services.calendars.within(id, () => services.submissions.eraseExpired());
        erased += n;
        if (n >= 500) more = true;
      }
      return more ? { more: true, value: erased } : { value: erased };
    },
  });
  // SUBMISSIONS_NOTIFY is each calendar's own (and may change while the server runs): the job is
  // there whenever e-mail can be sent, and each calendar's digest is sent when it chose one.
  if (!services.config.smtpUrl) return { retention };
  const digest = runner.register<number>({
    name: 'submission-digest',
    everyMs: 24 * HOUR,
    backoff: { initialMs: 5 * 60_000, maxMs: 6 * HOUR },
    singleton: true,
    async run(ctx) {
      let sent = 0;
      for (const id of await calendarsOf(services, 'digest')) {
        if (ctx.isStopped()) break;
        // Each calendar's digest lists its own submissions, sent with its configuration.
        sent += await services.calendars.within(id, () => services.submissions.sendDigest());
      }
      return { value: sent };
    },
  });
  return { retention, digest };
}
