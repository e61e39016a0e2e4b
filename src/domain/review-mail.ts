/**
 * The review notifications, read from the change log of every calendar (one cursor,
 * `mail_cursors.review`), each calendar's events in it: when a contributor's event becomes `pending`
 * (submitted for review, through the REST API or the admin app), the editors and administrators of
 * its calendar with an e-mail address are told (SUBMISSIONS_NOTIFY_TO instead
 * when it is set); when it goes from `pending` to published (or scheduled), its contributor is told,
 * with its public address. "Sent back with a note" tells the contributor from its own action
 * (`sendBack`), the note being no part of the event. Community submissions, which have e-mails of
 * their own (domain/submissions), are left out. Mails and the cursor are written in one
 * transaction, so a notification is queued once; the outbox job sends it (and retries).
 *
 * One cursor is fair to every calendar: a batch handles every calendar's changes in it, in log
 * order, so no calendar's change is passed over for a later one; and a batch that stops short of
 * the head is followed by the next at once (`more`), so a change waits only for the reading of the
 * changes logged before it (a busy calendar's thousands), not for a later commit or the minute's poll.
 *
 * @example
 *   const { queued, more } = await notifyReviews(services); // 2 mails queued; more: the log goes on past this batch
 */
import { headOf, readChanges } from '../store/change-log.js';
import { writeTransaction } from '../store/changes.js';
import { addressesOfCalendarRoles, addressesOfRoles, isSubmittedEvent, mailCursor, setMailCursor } from '../store/people.js';
import { DEFAULT_CALENDAR_ID, acrossCalendars } from '../store/calendar-scope.js';
import * as usersStore from '../store/users.js';
import { ApiError, apiError } from './errors.js';
import { peopleOf } from './people.js';
import { pendingReviewMail, publishedMail, sentBackMail } from './people-mail.js';
import { viewerOf, type Viewer } from './permissions.js';
import type { DomainContext } from './context.js';
import type { Mail } from './submissions/mail.js';
import { SUBMISSIONS_USER } from './submissions/types.js';

const CURSOR = 'review';
/** Change-log rows read in one step. */
const BATCH = 500;

type ReviewServices = Pick<DomainContext, 'store' | 'users' | 'config' | 'clock' | 'events' | 'links' | 'calendars'>;

const editLink = (config: DomainContext['config'], id: number) => `${config.siteUrl}${config.adminPath}/events/${id}`;

/**
 * Queue the notifications of the changes logged since the cursor, one batch of the log (every
 * calendar's changes in it, in log order): how many mails were queued, and whether the log goes on
 * past the batch (the job then reads the next one at once).
 */
export async function notifyReviews(services: ReviewServices): Promise<{ queued: number; more: boolean }> {
  const db = services.store.db;
  const head = await headOf(db);
  const from = await mailCursor(db, CURSOR);
  // The first run starts at the present: what happened before the feature is not announced.
  if (from === undefined) {
    await writeTransaction(db, (trx) => setMailCursor(trx, CURSOR, head));
    return { queued: 0, more: false };
  }
  if (from >= head) return { queued: 0, more: false };
  // The log of every calendar (one cursor for all); each calendar's events are read in it.
  const { rows, through } = await acrossCalendars(() => readChanges(db, from, head, BATCH));
  // Each event's status before the first write of the window (null: created in it), by calendar.
  const byCalendar = new Map<number, Map<number, string | null>>();
  for (const r of rows) {
    if (r.type !== 'event') continue;
    let before = byCalendar.get(r.calendar);
    if (!before) byCalendar.set(r.calendar, (before = new Map()));
    if (before.has(r.id)) continue;
    if (r.action === 'create') before.set(r.id, null);
    else if (r.detail?.before !== undefined) before.set(r.id, r.detail.before?.status ?? null);
  }
  const mails: Array<{ kind: string; to: string | string[]; mail: Mail }> = [];
  for (const [calendar, before] of byCalendar) {
    // With that calendar's configuration: its name, its URLs, its recipients. A calendar deleted
    // since has nobody left to tell.
    try {
      mails.push(...(await services.calendars.within(calendar, () => reviewMailsOf(services, calendar, before))));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'calendar_not_found')) throw err;
    }
  }
  const people = peopleOf(services);
  await writeTransaction(db, async (trx) => {
    for (const m of mails) for (const to of Array.isArray(m.to) ? m.to : [m.to]) await people.queue(trx, m.kind, to, m.mail);
    await setMailCursor(trx, CURSOR, through);
  });
  if (mails.length) people.queued();
  return { queued: mails.length, more: through < head };
}

/**
 * The review mails of one calendar's events (run in that calendar): its editors and administrators
 * (`calendar_roles` there, and the network's administrators; the default calendar's are the
 * accounts' own roles) hear of events submitted for review; a contributor there hears that its
 * event was published.
 */
async function reviewMailsOf(services: ReviewServices, calendar: number, before: Map<number, string | null>): Promise<Array<{ kind: string; to: string | string[]; mail: Mail }>> {
  const db = services.store.db;
  const config = services.config;
  const mails: Array<{ kind: string; to: string | string[]; mail: Mail }> = [];
  const authors = new Map<number, Awaited<ReturnType<typeof usersStore.findUserById>>>();
  const roles = new Map<number, string>();
  const roleOf = async (user: NonNullable<Awaited<ReturnType<typeof usersStore.findUserById>>>) => {
    const id = Number(user.id);
    if (calendar === DEFAULT_CALENDAR_ID || user.role === 'administrator') return user.role;
    if (!roles.has(id)) roles.set(id, await services.calendars.roleOf(id, calendar));
    return roles.get(id)!;
  };
  for (const [id, was] of before) {
    const record = await services.events.findById(id);
    if (!record || Number(record.parent_id) !== 0) continue;
    const authorId = Number(record.author_id);
    if (!authors.has(authorId)) authors.set(authorId, await usersStore.findUserById(db, authorId));
    const author = authors.get(authorId);
    if (!author || (await roleOf(author)) !== 'contributor') continue;
    // A community submission's moderators and submitter hear of it through its own e-mails. An
    // anonymous one is the submissions account's (known at once: its submission row is written
    // just after its event, so this reader may see the event first).
    if (author.login === SUBMISSIONS_USER || (await isSubmittedEvent(db, id))) continue;
    const title = record.title || `#${id}`;
    if (was !== 'pending' && record.status === 'pending') {
      const to = config.submissionsNotifyTo.length
        ? config.submissionsNotifyTo
        : calendar === DEFAULT_CALENDAR_ID
          ? await addressesOfRoles(db, ['administrator', 'editor'])
          : await addressesOfCalendarRoles(db, calendar, ['administrator', 'editor']);
      if (to.length)
        mails.push({ kind: 'review-pending', to, mail: pendingReviewMail('en', { site: config.siteName, title, author: author.display_name || author.login, link: editLink(config, id) }) });
    } else if (was === 'pending' && (record.status === 'publish' || record.status === 'future') && author.email !== '') {
      const reader: Viewer = viewerOf({ id: authorId, login: author.login, role: 'administrator' });
      const [json] = await services.events.represent([record], reader, 'single', services.links);
      const url = typeof json?.url === 'string' ? json.url : `${config.siteUrl}/`;
      mails.push({ kind: 'review-published', to: author.email, mail: publishedMail('en', { site: config.siteName, name: author.display_name, title, url }) });
    }
  }
  return mails;
}

/**
 * "Send back with a note": a pending event goes back to draft, and its contributor is e-mailed the
 * note (with the link to edit it). Editors and administrators only (who may edit others' events).
 */
export async function sendBack(services: ReviewServices, viewer: Viewer, id: number, note: string): Promise<{ id: number; status: string; note: string }> {
  const text = note.trim();
  if (text === '') throw apiError('rest_review_note_required');
  const record = await services.events.findById(id);
  if (!record) throw apiError('rest-event-not-found', { args: [id] });
  if (record.status !== 'pending') throw apiError('rest_review_not_pending');
  const updated = await services.events.update(viewer, record, { status: 'draft' });
  const author = await usersStore.findUserById(services.store.db, Number(record.author_id));
  const people = peopleOf(services);
  if (author && author.email !== '') {
    const mail = sentBackMail('en', { site: services.config.siteName, name: author.display_name, title: record.title || `#${id}`, note: text, link: editLink(services.config, id) });
    await writeTransaction(services.store.db, (trx) => people.queue(trx, 'review-sent-back', author.email, mail));
    people.queued();
  }
  return { id, status: updated.status, note: text };
}
