/**
 * The e-mails of submissions: the submitter told of each step (received, approved with the public
 * URL, rejected, changes asked) in their language with their private link, and the moderators
 * told of what waits (at once or in a digest, to SUBMISSIONS_NOTIFY_TO or every moderator).
 *
 * @example tellSubmitter(core, row, 'approved', token, { title, when, eventUrl });
 */
import * as store from '../../store/submissions.js';
import type { SubmissionRow } from '../../store/submissions.js';
import { decisionMail, moderatorMail, type Decision } from './mail.js';
import type { SubmissionCore } from './core.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow } from '../../store/calendar-scope.js';
import { addressesOfCalendarRoles } from '../../store/people.js';

export function tellSubmitter(
  core: SubmissionCore,
  row: SubmissionRow,
  decision: Decision,
  token: string | undefined,
  about: { title?: string | undefined; when?: string; publishAt?: string; eventUrl?: string },
): void {
  if (!core.mailer || row.email === '' || !token) return;
  const { title, ...rest } = about;
  core.deliver({
    to: row.email,
    ...decisionMail(core.localeOfRow(row), { site: core.config.siteName, name: row.name, title: title ?? '', decision, reason: row.reason, link: core.paths.status(token), ...rest }),
  });
}

export async function notifyModerators(core: SubmissionCore, rows: SubmissionRow[]): Promise<void> {
  if (!core.mailer || rows.length === 0) return;
  // The addresses administrators chose (SUBMISSIONS_NOTIFY_TO), else every moderator of the
  // submission's calendar with one (its own editors and administrators, and the network's).
  const calendar = calendarIdNow();
  const to =
    core.config.submissionsNotifyTo.length > 0
      ? [...core.config.submissionsNotifyTo]
      : calendar === DEFAULT_CALENDAR_ID
        ? await store.moderatorEmails(core.db)
        : await addressesOfCalendarRoles(core.db, calendar, ['administrator', 'editor']);
  if (to.length === 0) return;
  const items = [];
  for (const r of rows) {
    const e = await core.events.findById(Number(r.event_id));
    items.push({ title: e?.title ?? '', start: core.whenOfRecord(r, e, 'en') ?? '', submitter: r.name, flagged: r.flags !== '{}', resubmitted: await core.wasResubmitted(r) });
  }
  await core.mailer.send({ to, ...moderatorMail('en', { site: core.config.siteName, queue: core.paths.queue(), items }) });
  await store.markNotified(
    core.db,
    rows.map((r) => Number(r.id)),
  );
}
