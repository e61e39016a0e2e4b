/**
 * The server's background jobs on one runner (`runner.ts`): the occurrence horizon, change-log
 * pruning and, unless left out, webhook delivery. The composition root creates them, starts the
 * runner and stops it on close.
 *
 * @example
 *   const jobs = createJobs(services, app.log, { webhooks });
 *   jobs.runner.start();
 *   jobs.webhookWorker?.nudge(); // after a write
 *   await jobs.runner.stop();
 */
import type { DomainServices } from '../domain/services.js';
import type { WebhookService } from '../webhooks/service.js';
import { registerPruneJob, type PruneJob, type PruneLogger } from './change-log-pruning.js';
import { registerHorizonJob, type HorizonJob } from './horizon.js';
import { createJobRunner, type JobHandle, type JobRunner } from './runner.js';
import { pollIntervalMs, registerWebhookWorker, type WebhookWorker } from './webhook-delivery.js';
import { registerImportJob } from './imports.js';
import { registerSubmissionJobs, type SubmissionJobs } from './submissions.js';
import { registerSharedLimitsJob } from './shared-limits.js';
import { registerMailOutbox } from './mail-outbox.js';
import { registerNetworkJob } from './network-follows.js';

export interface Jobs {
  runner: JobRunner;
  /** Extends recurring events' occurrences. */
  horizonJob: HorizonJob;
  /** Prunes the change log past SYNC_HISTORY_DAYS. */
  pruneJob: PruneJob;
  /** Delivers webhooks; undefined without `webhooks`. */
  webhookWorker?: WebhookWorker;
  /** Community submissions' retention and digest; undefined with SUBMISSIONS=off. */
  submissionJobs?: SubmissionJobs;
  /** Deletes the failed-login counts and rate-limit grants no limit counts any more. */
  sharedLimitsJob: JobHandle<number>;
  /** Sends the queued e-mails about people (invitations, resets, reviews); undefined without SMTP_URL. */
  mailOutbox?: JobHandle<number>;
  /** Mirrors the events of the calendars each calendar follows (network-follows.ts). */
  networkJob: JobHandle<number>;
}

/** Declare the server's jobs to a new runner (not started). */
export function createJobs(services: DomainServices, logger: PruneLogger, options: { webhooks?: WebhookService; elsewhere?: (name: string) => void } = {}): Jobs {
  // A stop waits for a webhook delivery under way (each attempt is bounded by WEBHOOKS_TIMEOUT).
  const runner = createJobRunner({
    store: services.store,
    logger,
    stopWaitMs: Math.max(30_000, 2 * services.config.webhooksTimeoutMs),
    ...(options.elsewhere ? { elsewhere: options.elsewhere } : {}),
  });
  const webhookWorker = options.webhooks ? registerWebhookWorker(runner, options.webhooks, { pollMs: pollIntervalMs(services.config.webhooksRetrySchedule) }) : undefined;
  const horizonJob = registerHorizonJob(runner, services);
  const pruneJob = registerPruneJob(runner, services, logger);
  // Imports queued through the admin API.
  registerImportJob(runner, services);
  const submissionJobs = services.config.submissions !== 'off' ? registerSubmissionJobs(runner, services) : undefined;
  const sharedLimitsJob = registerSharedLimitsJob(runner, services);
  const mailOutbox = registerMailOutbox(runner, services);
  const networkJob = registerNetworkJob(runner, services, logger);
  return {
    runner,
    horizonJob,
    pruneJob,
    sharedLimitsJob,
    networkJob,
    ...(mailOutbox ? { mailOutbox } : {}),
    ...(webhookWorker ? { webhookWorker } : {}),
    ...(submissionJobs ? { submissionJobs } : {}),
  };
}
