/**
 * The jobs of community submissions, on the server's runner:
 *
 * - `submission-retention` (hourly): erases the submitter's name, e-mail and address
 *   SUBMISSION_RETENTION_DAYS after the decision, 500 submissions a step (`more` while there are);
 * - `submission-digest` (daily, with SUBMISSIONS_NOTIFY=daily and SMTP_URL): one e-mail to the
 *   moderators listing the submissions received since the last one.
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

export interface SubmissionJobs {
  retention: JobHandle<number>;
  digest?: JobHandle<number>;
}

const HOUR = 3_600_000;

export function registerSubmissionJobs(runner: JobRunner, services: Pick<DomainServices, 'config' | 'submissions'>): SubmissionJobs {
  const retention = runner.register<number>({
    name: 'submission-retention',
    everyMs: HOUR,
    firstMs: 60_000,
    backoff: { initialMs: 60_000, maxMs: HOUR },
    async run() {
      const erased = await services.submissions.eraseExpired();
      return erased >= 500 ? { more: true, value: erased } : { value: erased };
    },
  });
  if (services.config.submissionsNotify !== 'daily' || !services.config.smtpUrl) return { retention };
  const digest = runner.register<number>({
    name: 'submission-digest',
    everyMs: 24 * HOUR,
    backoff: { initialMs: 5 * 60_000, maxMs: 6 * HOUR },
    singleton: true,
    async run() {
      return { value: await services.submissions.sendDigest() };
    },
  });
  return { retention, digest };
}
