/**
 * The `mail-outbox` job: sends the e-mails queued in `mail_outbox` (invitations, lost-password
 * links, review notifications: domain/people.ts) through SMTP_URL. A mail the server refuses or
 * cannot take stays queued and is tried again after 30 s, doubled per failure, at most an hour;
 * a queued mail nudges the job at once. One step at a time across the servers (`singleton`), so a
 * mail is sent by one of them. Sent mails are deleted after a week (their content is personal).
 *
 * @example
 *   const outbox = registerMailOutbox(runner, services);
 *   await outbox?.runOnce(); // { value: 2 }: two mails sent
 */
import type { DomainServices } from '../domain/services.js';
import { createMailer } from '../domain/submissions/mail.js';
import { dueMails, markMailFailed, markMailSent, nextMailDue, pruneSentMails } from '../store/people.js';
import type { JobHandle, JobRunner } from './runner.js';

const EVERY_MS = 60_000;
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 3_600_000;
const KEEP_SENT_MS = 7 * 86_400_000;

/** The retry delay after `attempts` failures. */
export const retryDelayMs = (attempts: number) => Math.min(RETRY_FIRST_MS * 2 ** Math.min(attempts - 1, 20), RETRY_MAX_MS);

export function registerMailOutbox(runner: JobRunner, services: Pick<DomainServices, 'config' | 'store' | 'people' | 'reviews'>): JobHandle<number> | undefined {
  const mailer = createMailer(services.config);
  if (!mailer) return undefined;
  const db = services.store.db;
  const gmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const listening: { stop?: () => void } = {};
  const job = runner.register<number>({
    name: 'mail-outbox',
    everyMs: EVERY_MS,
    firstMs: 1_000,
    singleton: true,
    backoff: { initialMs: RETRY_FIRST_MS, maxMs: RETRY_MAX_MS },
    async run(ctx) {
      let sent = 0;
      for (const mail of await dueMails(db, Date.now(), 20)) {
        if (ctx.isStopped()) break;
        try {
          await mailer.send({ to: mail.recipient, subject: mail.subject, text: mail.body_text, html: mail.body_html });
          await markMailSent(db, Number(mail.id), gmt(Date.now()));
          sent++;
        } catch (err) {
          const attempts = Number(mail.attempts) + 1;
          await markMailFailed(db, Number(mail.id), attempts, Date.now() + retryDelayMs(attempts), err instanceof Error ? err.message : String(err));
        }
      }
      await pruneSentMails(db, gmt(Date.now() - KEEP_SENT_MS));
      if (sent === 20) return { more: true, value: sent };
      const next = await nextMailDue(db);
      return { value: sent, ...(next !== undefined ? { nextInMs: Math.max(50, Math.min(EVERY_MS, next - Date.now())) } : {}) };
    },
    onStop: () => {
      listening.stop?.();
      mailer.close();
    },
  });
  listening.stop = services.people.onQueued(() => job.nudge());
  if (services.config.reviewNotify) registerReviewMail(runner, services);
  return job;
}

/**
 * The `review-mail` job: reads the change log after its cursor and queues the review
 * notifications (domain/review-mail.ts); woken by local commits, and by a poll for the other
 * servers' ones.
 */
function registerReviewMail(runner: JobRunner, services: Pick<DomainServices, 'config' | 'store' | 'people' | 'reviews'>): JobHandle<number> {
  const listening: { stop?: () => void } = {};
  const job = runner.register<number>({
    name: 'review-mail',
    everyMs: EVERY_MS,
    firstMs: 500,
    nudgeMs: 100,
    singleton: true,
    backoff: { initialMs: RETRY_FIRST_MS, maxMs: RETRY_MAX_MS },
    async run() {
      // A batch that stopped short of the head: the next one at once, not at the next commit or poll
      // (a calendar's change logged behind a busy calendar's thousands waits for their reading only).
      const { queued, more } = await services.reviews.notify();
      return { value: queued, more };
    },
    onStop: () => listening.stop?.(),
  });
  // Woken soon after each local commit (and by a poll for the other servers' ones), as the webhook worker.
  listening.stop = services.store.changes.subscribe(() => job.nudge(), { pollMs: EVERY_MS });
  return job;
}
