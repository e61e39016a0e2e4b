/**
 * The `network-follows` job: brings every calendar's follows up to date (domain/network.ts
 * `syncChanged`): the follows of the calendars the change log touched since its last step copy
 * the new published events, update the changed ones and trash those unpublished or deleted. Every
 * 5 seconds, one server at a time (singleton): two servers would copy an event twice.
 *
 * @example
 *   const job = registerNetworkJob(runner, services);
 *   await job.runOnce(); // { value: 2 }: two follows synced
 */
import type { DomainServices } from '../domain/services.js';
import type { JobHandle, JobRunner } from './runner.js';

/** The part of the logger the job uses (a follower's quota refusing copies). */
export interface NetworkJobLogger {
  warn(obj: object, msg: string): void;
}

const EVERY_MS = 5000;

export function registerNetworkJob(runner: JobRunner, services: Pick<DomainServices, 'network'>, logger?: NetworkJobLogger): JobHandle<number> {
  return runner.register<number>({
    name: 'network-follows',
    everyMs: EVERY_MS,
    singleton: true,
    backoff: { initialMs: EVERY_MS, maxMs: 5 * 60_000 },
    async run() {
      // A follower whose events quota is used up misses those copies (logged); the step goes on.
      const synced = await services.network.syncChanged((r) =>
        logger?.warn(
          { job: 'network-follows', calendar: r.calendarId, follow: r.followId, source: r.sourceCalendarId, notCopied: r.notCopied },
          `network follow ${r.followId}: ${r.notCopied} event(s) not copied, the calendar's events quota is used up`,
        ),
      );
      return { value: synced };
    },
  });
}
