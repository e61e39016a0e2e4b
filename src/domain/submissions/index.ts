/**
 * Community submissions (issue 29): the public proposes events, editors moderate.
 *
 * A submission stores its event `pending` through the event service (and any new venue or
 * organizer `pending` too), authored by the registered submitter or, for anonymous ones, by the
 * `community-submissions` user (a contributor nobody can sign in as), so nothing of it is public
 * until a moderator approves it. The submitter's identity (name, e-mail, client address) lives
 * only in the `submissions` table: never in the event, so never in public answers, pages, feeds,
 * sync deltas or webhook payloads. The submitter holds a private link (a random token; only its
 * SHA-256 is stored) to see the status and the moderator's reason, edit while pending or when
 * changes are asked for, and withdraw.
 *
 * Abuse defences, in the order they are checked: who may submit (SUBMISSIONS), the honeypot and
 * the fill time (the form's), the proof of work (SUBMISSIONS_POW: each solution once, on every
 * instance), sizes and links, then the per-address (IPv6 by /64) and per-e-mail limits, counted
 * and taken in one step in the database; likely duplicates (same title and start) are flagged, not
 * refused.
 *
 * @example
 *   const { token, submission } = await services.submissions.create(input, { viewer, ip: req.ip, locale: 'en' });
 *   await services.submissions.approve(editor, submission.id, { publishAt: '2031-03-01 09:00' });
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import sanitizeHtml from 'sanitize-html';
import type { Config } from '../../config.js';
import type { Store } from '../../store/db.js';
import * as store from '../../store/submissions.js';
import type { SubmissionRow } from '../../store/submissions.js';
import { findUserByLogin } from '../../store/users.js';
import { clientKeyOf } from '../client-address.js';
import { apiError, invalidParams } from '../errors.js';
import type { EventInput, EventService } from '../events/index.js';
import type { LinkedPostService } from '../linked-posts/index.js';
import type { Links } from '../links.js';
import { can, viewerOf, type Viewer } from '../permissions.js';
import { isOrganizerEmail } from '../linked-posts/rules.js';
import { costTyped } from '../representations/event.js';
import { isValidTimezone } from '../dates/zones.js';
import { parseDateInput } from '../dates/strtotime.js';
import type { UserService } from '../users.js';
import { instantText, whenText } from './dates.js';
import { createMailer, decisionMail, moderatorMail, type Decision, type Locale, type Mailer } from './mail.js';
import { createProofOfWork, type ProofOfWork } from './pow.js';

export type { Locale } from './mail.js';

export const SUBMISSION_STATUSES = ['pending', 'changes_requested', 'approved', 'rejected', 'withdrawn'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];
/** The webhook event types (src/webhooks/types.ts lists them). */
export const SUBMISSION_EVENTS = ['received', 'approved', 'rejected', 'changes_requested'] as const;

/** The login of the user anonymous submissions are authored by. */
export const SUBMISSIONS_USER = 'community-submissions';

/** What a submitter sends (the form's fields, the API's body). */
export interface SubmissionInput {
  title?: unknown;
  description?: unknown;
  start_date?: unknown;
  end_date?: unknown;
  timezone?: unknown;
  all_day?: unknown;
  /** an existing venue's id, or a new one `{venue, address, city, province, zip, country, phone, website}` */
  venue?: unknown;
  /** an existing organizer's id, or a new one `{organizer, email, phone, website}` */
  organizer?: unknown;
  categories?: unknown;
  image?: unknown;
  cost?: unknown;
  website?: unknown;
  name?: unknown;
  email?: unknown;
}

/** Who submits, from where, and what the form's own checks carry. */
export interface SubmissionContext {
  viewer: Viewer;
  ip: string;
  locale: Locale;
  /** the form's hidden field that people leave empty */
  honeypot?: string;
  /** when the form was served (ms), from its signed field; undefined for the API */
  startedMs?: number;
  /** the ALTCHA payload (base64) */
  pow?: unknown;
}

export interface ModerationOptions {
  /** publish at this time (site time zone, or with an offset) instead of now */
  publishAt?: string;
  /** event fields changed by the moderator before approving (edit then approve) */
  edits?: EventInput;
  /** the new venue: approved with the event (default) or replaced by this existing venue */
  mergeVenue?: number;
  /** the new organizers: approved (default) or replaced by these existing organizers */
  mergeOrganizers?: number[];
  reason?: string;
}

export interface SubmissionService {
  readonly mode: Config['submissions'];
  readonly pow: ProofOfWork | undefined;
  /** Create a submission: its event pending, its token (shown once). */
  create(input: SubmissionInput, ctx: SubmissionContext): Promise<{ token: string; submission: Record<string, unknown> }>;
  /** The submitter's view of a submission, by its token (404 for an unknown one). */
  view(token: string): Promise<Record<string, unknown>>;
  /** Edit while pending or when changes were asked for (the submission is pending again). */
  edit(token: string, input: SubmissionInput): Promise<Record<string, unknown>>;
  withdraw(token: string): Promise<Record<string, unknown>>;
  /** The moderation queue. */
  list(filter: { statuses?: string[]; flagged?: boolean; email?: string; page: number; perPage: number }): Promise<{ items: Record<string, unknown>[]; total: number }>;
  get(id: number): Promise<Record<string, unknown>>;
  approve(viewer: Viewer, id: number, options?: ModerationOptions): Promise<Record<string, unknown>>;
  reject(viewer: Viewer, id: number, reason: string): Promise<Record<string, unknown>>;
  requestChanges(viewer: Viewer, id: number, reason: string): Promise<Record<string, unknown>>;
  log(filter: { submissionId?: number; page: number; perPage: number }): Promise<{ items: Record<string, unknown>[]; total: number }>;
  /** Every submission of one submitter (by e-mail), with their identity and the log. */
  exportSubmitter(email: string): Promise<Record<string, unknown>>;
  /** Erase one submitter's name, e-mail and address from all their submissions; returns how many. */
  eraseSubmitter(viewer: Viewer, email: string): Promise<number>;
  /** Erase identities SUBMISSION_RETENTION_DAYS after the decision (the retention job); returns how many. */
  eraseExpired(now?: Date): Promise<number>;
  /** Send the moderators' digest of submissions not yet told (the digest job); returns how many. */
  sendDigest(): Promise<number>;
  /** A webhook's data: the submission's id, status, event, reason, flags and times; never the submitter's identity. */
  webhookPayload(id: number): Promise<Record<string, unknown>>;
  /** The form's signed start time (a hidden field), and its time back (undefined: forged or missing). */
  formStamp(nowMs?: number): Promise<string>;
  stampTime(stamp: unknown): Promise<number | undefined>;
  /** Where errors of e-mails sent after the answer go (the app's logger). */
  setLogger(log: (message: string, error: unknown) => void): void;
  /** Paths the e-mails link to: the submitter's status page and the moderation screen. */
  setPaths(paths: { status: (token: string) => string; queue: string }): void;
  close(): void;
}

export interface SubmissionDeps {
  config: Config;
  store: Store;
  events: EventService;
  venues: LinkedPostService;
  organizers: LinkedPostService;
  users: UserService;
  links: Links;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** A limit's key as stored: a hash, so the quota table holds no address. */
const quotaKey = (kind: 'ip' | 'email', value: string) => sha256(`${kind}:${value}`);
const gmt = (d = new Date()) => d.toISOString().slice(0, 19).replace('T', ' ');
const iso = (v: string | null | undefined) => (v ? v.replace(' ', 'T') + 'Z' : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const EMAIL = /^[^\s@<>()",;:]{1,64}@[^\s@<>()",;:]+\.[^\s@<>()",;:]{2,}$/;

/** The strict subset of HTML a description may hold. */
const DESCRIPTION_HTML: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'em', 'b', 'i', 'u', 'a', 'ul', 'ol', 'li', 'blockquote'],
  allowedAttributes: { a: ['href'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  disallowedTagsMode: 'discard',
};

/** How many links a text holds: URLs and e-mail links. */
export function countLinks(text: string): number {
  return (text.match(/\b(?:https?:\/\/|www\.|mailto:)/gi) ?? []).length;
}

/** A plain value (a form field), not a list or an object. */
const isScalar = (v: unknown) => v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Whether a submission can be changed by its submitter in this state. */
const editable = (status: string) => status === 'pending' || status === 'changes_requested';

export function createSubmissionService(deps: SubmissionDeps): SubmissionService {
  const { config, events, venues, organizers } = deps;
  const db = deps.store.db;
  const mailer: Mailer | undefined = createMailer({ ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}), smtpFrom: config.smtpFrom });
  const pow = config.submissionsPow
    ? createProofOfWork(
        () => store.powSecret(db),
        config.submissionsPowMaxNumber,
        (signature, untilMs) => store.usePowSolution(db, signature, gmt(new Date(untilMs))),
      )
    : undefined;
  let logError: (message: string, error: unknown) => void = () => undefined;
  let paths = { status: (token: string) => `${config.siteUrl}/events/submit/status/${token}`, queue: `${config.siteUrl}${config.adminPath}/` };
  /** Every record the service reads is read as an administrator would (the submitter's fields aside). */
  const admin = viewerOf({ id: 2 ** 31 - 1, login: 'submissions', role: 'administrator' });

  /** The author of anonymous submissions, made on first use. */
  let systemUserId: number | undefined;
  async function systemUser(): Promise<number> {
    if (systemUserId !== undefined) return systemUserId;
    const found = await findUserByLogin(db, SUBMISSIONS_USER);
    if (found) return (systemUserId = Number(found.id));
    try {
      const row = await deps.users.add({ login: SUBMISSIONS_USER, role: 'contributor', password: '', noPassword: true, name: 'Community submissions' });
      return (systemUserId = Number(row.id));
    } catch (e) {
      // Another instance made it first.
      const again = await findUserByLogin(db, SUBMISSIONS_USER);
      if (again) return (systemUserId = Number(again.id));
      throw e;
    }
  }

  /** What the submitter writes with: a contributor (so everything stays pending) who may name an image URL. */
  function submitterViewer(authorId: number): Viewer {
    const base = viewerOf({ id: authorId, login: SUBMISSIONS_USER, role: 'contributor' });
    return { ...base, caps: new Set([...base.caps, 'upload_files']) };
  }

  async function moderatorCheck(viewer: Viewer): Promise<void> {
    if (!can(viewer, 'edit_others_tribe_events') || !can(viewer, 'publish_tribe_events')) throw apiError('rest_forbidden');
  }

  /** Check the fields; returns the event's input and the submitter's identity. */
  async function eventInputOf(input: SubmissionInput, partial: boolean, failures: Record<string, string> = {}): Promise<EventInput> {
    const out: EventInput = {};
    const has = (k: keyof SubmissionInput) => input[k] !== undefined && input[k] !== null;
    if (!partial || has('title')) {
      const title = str(input.title).trim();
      if (title === '') failures.title = 'The title is required.';
      else if (title.length > 200) failures.title = 'The title must be at most 200 characters.';
      else out.title = title;
    }
    if (has('description')) {
      const d = str(input.description);
      if (d.length > config.submissionsMaxDescription) failures.description = `The description must be at most ${config.submissionsMaxDescription} characters.`;
      else out.description = sanitizeHtml(d, DESCRIPTION_HTML);
    }
    // The dates are read in the submission's zone, as the event service will; a wrong one is
    // reported with the other fields (every error at once), not after them.
    const zoneOfInput = str(input.timezone).trim();
    const dateZone = zoneOfInput !== '' && isValidTimezone(zoneOfInput) ? zoneOfInput : config.timezone;
    for (const k of ['start_date', 'end_date'] as const) {
      if (!partial || has(k)) {
        const v = str(input[k]).trim();
        if (v === '') failures[k] = `${k} is required.`;
        else if (!parseDateInput(v, dateZone)) failures[k] = `${k} is not a date.`;
        else out[k] = v;
      }
    }
    if (has('timezone') && str(input.timezone).trim() !== '') {
      const zone = str(input.timezone).trim();
      if (!isValidTimezone(zone)) failures.timezone = 'Unknown time zone.';
      else out.timezone = zone;
    }
    if (has('all_day')) out.all_day = input.all_day === true || ['1', 'true', 'on', 'yes'].includes(str(input.all_day).toLowerCase());
    if (has('cost')) {
      const c = str(input.cost).trim();
      if (c.length > 100) failures.cost = 'The cost must be at most 100 characters.';
      else out.cost = c;
    }
    for (const k of ['website', 'image'] as const) {
      if (!has(k) || str(input[k]).trim() === '') continue;
      const v = str(input[k]).trim();
      if (!/^https?:\/\/[^\s]+$/i.test(v) || v.length > 500) failures[k] = `${k} must be an http or https URL.`;
      else out[k] = v;
    }
    if (has('categories')) {
      const raw = Array.isArray(input.categories) ? input.categories : str(input.categories).split(',');
      const ids = raw.map((x) => str(x).trim()).filter((x) => x !== '');
      if (ids.length > 20 || ids.some((x) => !/^[1-9]\d{0,9}$/.test(x))) failures.categories = 'categories must be a list of category IDs.';
      else out.categories = ids.map(Number);
    }
    if (has('venue') && str(input.venue) !== '0') {
      const v = input.venue;
      if (typeof v === 'number' || (typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v))) {
        const found = await venues.findById(db, Number(v));
        if (!found || found.status !== 'publish') failures.venue = 'No such venue.';
        else out.venue = Number(v);
      } else if (v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isScalar)) {
        const o = v as Record<string, unknown>;
        const name = str(o.venue).trim();
        if (name === '') {
          if (Object.values(o).some((x) => str(x).trim() !== '')) failures.venue = 'A new venue needs a name.';
        } else {
          const venue: Record<string, unknown> = { venue: name.slice(0, 200), status: 'pending' };
          for (const f of ['address', 'city', 'province', 'state', 'zip', 'country', 'phone']) if (str(o[f]).trim() !== '') venue[f] = str(o[f]).trim().slice(0, 200);
          if (str(o.website).trim() !== '') {
            if (!/^https?:\/\/\S+$/i.test(str(o.website).trim())) failures.venue = 'The venue website must be an http or https URL.';
            else venue.website = str(o.website).trim();
          }
          out.venue = venue;
        }
      } else if (v !== '') failures.venue = 'venue must be a venue ID or a new venue.';
    }
    if (has('organizer') && str(input.organizer) !== '0') {
      const v = input.organizer;
      if (typeof v === 'number' || (typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v))) {
        const found = await organizers.findById(db, Number(v));
        if (!found || found.status !== 'publish') failures.organizer = 'No such organizer.';
        else out.organizer = [Number(v)];
      } else if (v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isScalar)) {
        const o = v as Record<string, unknown>;
        const name = str(o.organizer).trim();
        if (name === '') {
          if (Object.values(o).some((x) => str(x).trim() !== '')) failures.organizer = 'A new organizer needs a name.';
        } else {
          const org: Record<string, unknown> = { organizer: name.slice(0, 200), status: 'pending' };
          if (str(o.phone).trim() !== '') org.phone = str(o.phone).trim().slice(0, 100);
          if (str(o.email).trim() !== '') {
            if (!isOrganizerEmail(str(o.email).trim())) failures.organizer = 'The organizer e-mail is not an address.';
            else org.email = str(o.email).trim();
          }
          if (str(o.website).trim() !== '') {
            if (!/^https?:\/\/\S+$/i.test(str(o.website).trim())) failures.organizer = 'The organizer website must be an http or https URL.';
            else org.website = str(o.website).trim();
          }
          out.organizer = [org];
        }
      } else if (v !== '') failures.organizer = 'organizer must be an organizer ID or a new organizer.';
    }
    if (Object.keys(failures).length > 0) throw invalidParams(failures);
    // Links in every text field together (the description, names, addresses, cost).
    const texts = [str(input.title), str(input.description), str(input.cost), JSON.stringify(input.venue ?? ''), JSON.stringify(input.organizer ?? '')];
    if (texts.reduce((n, t) => n + countLinks(t), 0) > config.submissionsMaxLinks) throw apiError('submission_too_many_links', { args: [config.submissionsMaxLinks] });
    return out;
  }

  /**
   * Take this submission's places in the per-address and per-e-mail limits, or refuse it (429 with
   * Retry-After: when the oldest place in the window frees). Counting and taking are one step in
   * the database (store/submissions.ts `reserveSubmissionQuota`), so submissions sent at once, to
   * any instance, get no more places than sequential ones. Returns the places, to give back should
   * the submission not be stored.
   */
  async function reservePlaces(ip: string, email: string): Promise<number[]> {
    const limits: store.QuotaLimit[] = [];
    if (config.submissionsMaxPerAddress > 0 && ip !== '') limits.push({ key: quotaKey('ip', clientKeyOf(ip)), max: config.submissionsMaxPerAddress });
    if (config.submissionsMaxPerEmail > 0 && email !== '') limits.push({ key: quotaKey('email', email), max: config.submissionsMaxPerEmail });
    if (limits.length === 0) return [];
    const now = Date.now();
    const taken = await store.reserveSubmissionQuota(db, limits, gmt(new Date(now - config.submissionsRateWindowMs)), gmt(new Date(now)));
    if ('ids' in taken) return taken.ids;
    const freeAt = taken.oldestGmt ? Date.parse(taken.oldestGmt.replace(' ', 'T') + 'Z') + config.submissionsRateWindowMs : now + config.submissionsRateWindowMs;
    const seconds = Math.max(1, Math.ceil((freeAt - now) / 1000));
    throw apiError('submission_rate_limited', { args: [seconds], headers: { 'retry-after': String(seconds) } });
  }

  /** The event as the submitter and moderators see it (fields of the admin representation). */
  async function eventJson(eventId: number): Promise<Record<string, unknown> | null> {
    const record = await events.findById(eventId);
    if (!record) return null;
    const [json] = await events.represent([record], admin, 'single', deps.links);
    return json ?? null;
  }

  function submitterFields(json: Record<string, unknown> | null): Record<string, unknown> {
    if (!json) return {};
    const venue = json.venue as Record<string, unknown> | undefined;
    const orgs = (Array.isArray(json.organizer) ? json.organizer : []) as Array<Record<string, unknown>>;
    const cats = (Array.isArray(json.categories) ? json.categories : []) as Array<Record<string, unknown>>;
    const image = json.image as Record<string, unknown> | false | undefined;
    return {
      title: json.title,
      description: json.description,
      start_date: json.start_date,
      end_date: json.end_date,
      timezone: json.timezone,
      all_day: json.all_day,
      cost: costTyped(json as { cost: string }),
      website: json.website,
      image: image && typeof image === 'object' ? image.url : null,
      venue:
        venue && typeof venue === 'object' && 'id' in venue
          ? { id: venue.id, venue: venue.venue, address: venue.address, city: venue.city, zip: venue.zip, country: venue.country, status: venue.status }
          : null,
      organizer: orgs.map((o) => ({ id: o.id, organizer: o.organizer, email: o.email, phone: o.phone, website: o.website, status: o.status })),
      categories: cats.map((c) => ({ id: c.id, name: c.name })),
    };
  }

  /** The submitter's view (through their link): their own data, the status and the reason. */
  async function publicView(row: SubmissionRow): Promise<Record<string, unknown>> {
    const event = await eventJson(Number(row.event_id));
    return {
      id: Number(row.id),
      status: row.status,
      reason: row.reason,
      editable: editable(row.status),
      resubmitted: await wasResubmitted(row),
      created: iso(row.created_gmt),
      updated: iso(row.updated_gmt),
      decided: iso(row.decided_gmt),
      publish_at: iso(row.publish_at_gmt),
      name: row.name,
      email: row.email,
      event: submitterFields(event),
      url: row.status === 'approved' && event && (event.status === 'publish' || event.status === 'future') ? event.url : null,
    };
  }

  /** The moderators' view: the submitter's identity, flags, the event as stored, the records it made. */
  async function adminView(row: SubmissionRow, withLog = false): Promise<Record<string, unknown>> {
    const event = await eventJson(Number(row.event_id));
    const out: Record<string, unknown> = {
      id: Number(row.id),
      status: row.status,
      reason: row.reason,
      created: iso(row.created_gmt),
      updated: iso(row.updated_gmt),
      decided: iso(row.decided_gmt),
      publish_at: iso(row.publish_at_gmt),
      submitter: { user_id: Number(row.user_id), name: row.name, email: row.email, ip: row.ip, locale: row.locale, erased: iso(row.erased_gmt) },
      flags: JSON.parse(row.flags) as unknown,
      event_id: Number(row.event_id),
      event: event ? { ...submitterFields(event), id: event.id, status: event.status } : null,
      new_venue_id: row.new_venue_id === null ? null : Number(row.new_venue_id),
      new_organizer_ids: JSON.parse(row.new_organizer_ids) as number[],
    };
    if (withLog) out.log = (await store.listLog(db, { submissionId: Number(row.id), limit: 200, offset: 0 })).rows.map(logJson);
    return out;
  }

  function logJson(r: store.SubmissionLogRow): Record<string, unknown> {
    return {
      id: Number(r.id),
      submission_id: Number(r.submission_id),
      actor_id: Number(r.actor_id),
      actor: r.actor,
      action: r.action,
      reason: r.reason,
      detail: JSON.parse(r.detail) as unknown,
      date: iso(r.created_gmt),
    };
  }

  async function flagsFor(eventId: number): Promise<Record<string, unknown>> {
    const record = await events.findById(eventId);
    if (!record) return {};
    const dupes = await store.likelyDuplicates(db, record.title, record.start_local, eventId);
    return dupes.length > 0 ? { duplicates: dupes } : {};
  }

  async function byToken(token: string): Promise<SubmissionRow> {
    if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw apiError('submission_not_found');
    const row = await store.findSubmissionByTokenHash(db, sha256(token));
    if (!row) throw apiError('submission_not_found');
    return row;
  }

  async function byId(id: number): Promise<SubmissionRow> {
    const row = await store.findSubmission(db, id);
    if (!row) throw apiError('submission_not_found');
    return row;
  }

  /** Send without holding the answer; failures go to the log. */
  function deliver(message: Parameters<Mailer['send']>[0]): void {
    if (!mailer) return;
    const to = Array.isArray(message.to) ? message.to : [message.to];
    if (to.length === 0 || to.every((t) => t === '')) return;
    mailer.send(message).catch((e: unknown) => logError('submission e-mail failed', e));
  }

  function tellSubmitter(row: SubmissionRow, decision: Decision, token: string | undefined, about: { title?: string | undefined; when?: string; publishAt?: string; eventUrl?: string }): void {
    if (!mailer || row.email === '' || !token) return;
    const { title, ...rest } = about;
    deliver({
      to: row.email,
      ...decisionMail(localeOfRow(row), { site: config.siteName, name: row.name, title: title ?? '', decision, reason: row.reason, link: paths.status(token), ...rest }),
    });
  }

  const localeOfRow = (row: SubmissionRow): Locale => (row.locale === 'fr' ? 'fr' : 'en');

  /** The event's dates in the submitter's language (undefined without the event). */
  function whenOfRecord(
    row: SubmissionRow,
    record: { start_local: string; end_local: string; all_day: number | boolean; timezone: string } | undefined | null,
    locale = localeOfRow(row),
  ): string | undefined {
    if (!record) return undefined;
    return whenText(locale, { start_date: record.start_local, end_date: record.end_local, all_day: Boolean(record.all_day), timezone: record.timezone });
  }

  /** Whether the submitter sent it again after a moderator asked for changes (its log says so). */
  async function wasResubmitted(row: SubmissionRow): Promise<boolean> {
    const { rows } = await store.listLog(db, { submissionId: Number(row.id), limit: 200, offset: 0 });
    return rows.some((r) => r.action === 'resubmitted');
  }

  /**
   * The private link's token: an HMAC of the submission's random salt with the key in `settings`
   * (only its SHA-256 is looked up), so decision e-mails can carry the link again.
   */
  async function tokenOf(salt: string): Promise<string> {
    const key = await store.powSecret(db);
    return createHmac('sha256', key).update(`submission-link:${salt}`).digest('base64url');
  }

  async function notifyModerators(rows: SubmissionRow[]): Promise<void> {
    if (!mailer || rows.length === 0) return;
    // The addresses administrators chose (SUBMISSIONS_NOTIFY_TO), else every moderator with one.
    const to = config.submissionsNotifyTo.length > 0 ? [...config.submissionsNotifyTo] : await store.moderatorEmails(db);
    if (to.length === 0) return;
    const items = [];
    for (const r of rows) {
      const e = await events.findById(Number(r.event_id));
      items.push({ title: e?.title ?? '', start: whenOfRecord(r, e, 'en') ?? '', submitter: r.name, flagged: r.flags !== '{}', resubmitted: await wasResubmitted(r) });
    }
    await mailer.send({ to, ...moderatorMail('en', { site: config.siteName, queue: paths.queue, items }) });
    await store.markNotified(
      db,
      rows.map((r) => Number(r.id)),
    );
  }

  /** Decide the pending records made by the submission: approve them or merge them into existing ones. */
  async function settleLinked(viewer: Viewer, row: SubmissionRow, options: ModerationOptions, edits: EventInput): Promise<Record<string, unknown>> {
    const detail: Record<string, unknown> = {};
    const newVenue = row.new_venue_id === null ? undefined : Number(row.new_venue_id);
    if (newVenue !== undefined) {
      const record = await venues.findById(db, newVenue);
      if (options.mergeVenue !== undefined) {
        const target = await venues.findById(db, options.mergeVenue);
        if (!target || target.status === 'trash') throw invalidParams({ merge_venue: 'No such venue.' });
        edits.venue = options.mergeVenue;
        detail.venue_merged_into = options.mergeVenue;
        if (record && record.status !== 'trash') await venues.trashPost(record);
      } else if (record && record.status === 'pending') {
        await venues.updatePost(record, { status: 'publish' }, viewer);
        detail.venue_approved = newVenue;
      }
    }
    const newOrgs = JSON.parse(row.new_organizer_ids) as number[];
    if (newOrgs.length > 0) {
      if (options.mergeOrganizers !== undefined) {
        for (const id of options.mergeOrganizers) {
          const target = await organizers.findById(db, id);
          if (!target || target.status === 'trash') throw invalidParams({ merge_organizers: 'No such organizer.' });
        }
        edits.organizer = options.mergeOrganizers;
        detail.organizers_merged_into = options.mergeOrganizers;
        for (const id of newOrgs) {
          const record = await organizers.findById(db, id);
          if (record && record.status !== 'trash') await organizers.trashPost(record);
        }
      } else {
        for (const id of newOrgs) {
          const record = await organizers.findById(db, id);
          if (record && record.status === 'pending') await organizers.updatePost(record, { status: 'publish' }, viewer);
        }
        detail.organizers_approved = newOrgs;
      }
    }
    return detail;
  }

  /** The new venue and organizers an edit made (the event's, when the edit named new ones). */
  async function madeRecords(eventId: number, input: EventInput): Promise<{ new_venue_id?: number | null; new_organizer_ids?: string }> {
    const out: { new_venue_id?: number | null; new_organizer_ids?: string } = {};
    const newVenue = input.venue !== undefined && typeof input.venue === 'object';
    const newOrgs = Array.isArray(input.organizer) && typeof input.organizer[0] === 'object';
    // An existing venue or organizer named instead of the new one: the new one is no longer used.
    if (typeof input.venue === 'number') out.new_venue_id = null;
    if (Array.isArray(input.organizer) && typeof input.organizer[0] === 'number') out.new_organizer_ids = '[]';
    if (!newVenue && !newOrgs) return out;
    const json = await eventJson(eventId);
    if (newVenue) out.new_venue_id = Number((json?.venue as { id?: number } | undefined)?.id ?? 0) || null;
    if (newOrgs) out.new_organizer_ids = JSON.stringify(((json?.organizer ?? []) as Array<{ id: number }>).map((o) => Number(o.id)));
    return out;
  }

  /** The pending venue and organizers an edit replaced are trashed (nobody else links to them). */
  async function trashReplaced(row: SubmissionRow, made: { new_venue_id?: number | null; new_organizer_ids?: string }): Promise<void> {
    if (made.new_venue_id !== undefined && row.new_venue_id !== null && Number(row.new_venue_id) !== made.new_venue_id) {
      const v = await venues.findById(db, Number(row.new_venue_id));
      if (v && v.status === 'pending') await venues.trashPost(v);
    }
    if (made.new_organizer_ids !== undefined) {
      const keep = new Set(JSON.parse(made.new_organizer_ids) as number[]);
      for (const id of JSON.parse(row.new_organizer_ids) as number[]) {
        if (keep.has(id)) continue;
        const o = await organizers.findById(db, id);
        if (o && o.status === 'pending') await organizers.trashPost(o);
      }
    }
  }

  /** Trash what a submission made (its event, its new venue and organizers): rejection and withdrawal. */
  async function trashMade(row: SubmissionRow): Promise<void> {
    const record = await events.findById(Number(row.event_id));
    if (record && record.status !== 'trash') await events.trash(record);
    if (row.new_venue_id !== null) {
      const v = await venues.findById(db, Number(row.new_venue_id));
      if (v && v.status === 'pending') await venues.trashPost(v);
    }
    for (const id of JSON.parse(row.new_organizer_ids) as number[]) {
      const o = await organizers.findById(db, id);
      if (o && o.status === 'pending') await organizers.trashPost(o);
    }
  }

  const actorOf = (viewer: Viewer) => ({ actor_id: viewer.id, actor: viewer.login });

  return {
    mode: config.submissions,
    pow,
    setLogger(log) {
      logError = log;
    },
    setPaths(p) {
      paths = p;
    },
    close() {
      mailer?.close();
    },

    async create(input, ctx) {
      const anonymous = ctx.viewer.id <= 0;
      if (config.submissions === 'off') throw apiError('rest_no_route');
      if (config.submissions === 'registered' && anonymous) throw apiError('submission_login_required');
      // The form's checks: a robot fills every field, and fills it at once.
      if (ctx.honeypot !== undefined && ctx.honeypot.trim() !== '') throw apiError('submission_rejected_as_spam');
      if (ctx.startedMs !== undefined && config.submissionsMinFillMs > 0 && Date.now() - ctx.startedMs < config.submissionsMinFillMs) throw apiError('submission_too_fast');
      if (pow && !(await pow.verify(ctx.pow))) throw apiError('submission_pow_required');
      let name = str(input.name).trim();
      let email = str(input.email).trim().toLowerCase();
      if (!anonymous) {
        const user = (await deps.users.list()).find((u) => Number(u.id) === ctx.viewer.id);
        if (name === '') name = user?.display_name || user?.login || '';
        if (email === '') email = (user?.email ?? '').toLowerCase();
      }
      // The submitter's fields and the event's are checked together: every error at once.
      const failures: Record<string, string> = {};
      if (name === '') failures.name = 'Your name is required.';
      else if (name.length > 200) failures.name = 'Your name must be at most 200 characters.';
      if (email === '') failures.email = 'Your e-mail address is required.';
      else if (email.length > 200 || !EMAIL.test(email)) failures.email = 'This is not an e-mail address.';
      const eventInput = await eventInputOf(input, false, failures);
      if (countLinks(name) > 0) throw apiError('submission_too_many_links', { args: [config.submissionsMaxLinks] });

      // Only what is stored counts: the places go back if the event or the submission is refused.
      const places = await reservePlaces(ctx.ip, email);
      let record: Awaited<ReturnType<EventService['create']>>;
      try {
        const authorId = anonymous ? await systemUser() : ctx.viewer.id;
        record = await events.create(submitterViewer(authorId), { ...eventInput, status: 'pending' });
      } catch (e) {
        await store.releaseSubmissionQuota(db, places).catch(() => undefined);
        throw e;
      }
      const eventId = Number(record.id);
      try {
        const json = await eventJson(eventId);
        const newVenueId = eventInput.venue && typeof eventInput.venue === 'object' ? Number((json?.venue as { id?: number } | undefined)?.id ?? 0) || null : null;
        const newOrgIds = Array.isArray(eventInput.organizer) && typeof eventInput.organizer[0] === 'object' ? ((json?.organizer ?? []) as Array<{ id: number }>).map((o) => Number(o.id)) : [];
        const now = gmt();
        const salt = randomBytes(16).toString('hex');
        const token = await tokenOf(salt);
        const flags = await flagsFor(eventId);
        const id = await store.insertSubmission(
          db,
          {
            token_hash: sha256(token),
            link_salt: salt,
            event_id: eventId,
            status: 'pending',
            user_id: anonymous ? 0 : ctx.viewer.id,
            name,
            email,
            ip: ctx.ip,
            locale: ctx.locale,
            flags: JSON.stringify(flags),
            new_venue_id: newVenueId,
            new_organizer_ids: JSON.stringify(newOrgIds),
            notified: config.submissionsNotify === 'off' || !mailer ? 1 : 0,
            created_gmt: now,
            updated_gmt: now,
          },
          { actor_id: anonymous ? 0 : ctx.viewer.id, actor: 'submitter', action: 'received', reason: '', detail: JSON.stringify(flags), created_gmt: now },
        );
        const row = await byId(id);
        if (config.submissionsNotify === 'immediate') notifyModerators([row]).catch((e: unknown) => logError('moderator e-mail failed', e));
        tellSubmitter(row, 'received', token, { title: record.title, when: whenOfRecord(row, record) });
        return { token, submission: await publicView(row) };
      } catch (e) {
        // Nothing half-written: the pending event goes when its submission could not be stored.
        const again = await events.findById(eventId);
        if (again && again.status !== 'trash') await events.trash(again).catch(() => undefined);
        await store.releaseSubmissionQuota(db, places).catch(() => undefined);
        throw e;
      }
    },

    async formStamp(nowMs = Date.now()) {
      const key = await store.powSecret(db);
      return `${nowMs}.${createHmac('sha256', key).update(`form-stamp:${nowMs}`).digest('base64url')}`;
    },

    async stampTime(stamp) {
      if (typeof stamp !== 'string') return undefined;
      const m = /^(\d{10,16})\.([A-Za-z0-9_-]{43})$/.exec(stamp);
      if (!m) return undefined;
      const key = await store.powSecret(db);
      const expected = createHmac('sha256', key).update(`form-stamp:${m[1]}`).digest('base64url');
      return expected === m[2] ? Number(m[1]) : undefined;
    },

    async webhookPayload(id) {
      const row = await store.findSubmission(db, id);
      if (!row) return { id, status: 'deleted' };
      return {
        id: Number(row.id),
        status: row.status,
        event_id: Number(row.event_id),
        reason: row.reason,
        flags: JSON.parse(row.flags) as unknown,
        new_venue_id: row.new_venue_id === null ? null : Number(row.new_venue_id),
        new_organizer_ids: JSON.parse(row.new_organizer_ids) as number[],
        created: iso(row.created_gmt),
        decided: iso(row.decided_gmt),
        publish_at: iso(row.publish_at_gmt),
      };
    },

    async view(token) {
      return publicView(await byToken(token));
    },

    async edit(token, input) {
      const row = await byToken(token);
      if (!editable(row.status)) throw apiError('submission_not_editable', { args: [row.status] });
      const eventInput = await eventInputOf(input, true);
      const record = await events.findById(Number(row.event_id));
      if (!record) throw apiError('submission_not_found');
      await events.update(submitterViewer(Number(record.author_id)), record, { ...eventInput, status: 'pending' });
      // A new venue or organizer named by the edit is the submission's too (approved or merged with it).
      const made = await madeRecords(Number(row.event_id), eventInput);
      await trashReplaced(row, made);
      const flags = await flagsFor(Number(row.event_id));
      const now = gmt();
      const resubmitted = row.status === 'changes_requested';
      await store.updateSubmission(
        db,
        Number(row.id),
        { status: 'pending', updated_gmt: now, flags: JSON.stringify(flags), ...made, ...(resubmitted ? { notified: config.submissionsNotify === 'off' || !mailer ? 1 : 0 } : {}) },
        {
          actor_id: Number(row.user_id),
          actor: 'submitter',
          action: resubmitted ? 'resubmitted' : 'edited',
          reason: '',
          detail: JSON.stringify({ fields: Object.keys(eventInput) }),
          created_gmt: now,
        },
        resubmitted ? 'received' : undefined,
      );
      const after = await byId(Number(row.id));
      if (resubmitted && config.submissionsNotify === 'immediate') notifyModerators([after]).catch((e: unknown) => logError('moderator e-mail failed', e));
      return publicView(after);
    },

    async withdraw(token) {
      const row = await byToken(token);
      if (!editable(row.status)) throw apiError('submission_not_editable', { args: [row.status] });
      await trashMade(row);
      const now = gmt();
      await store.updateSubmission(
        db,
        Number(row.id),
        { status: 'withdrawn', updated_gmt: now, decided_gmt: now },
        { actor_id: Number(row.user_id), actor: 'submitter', action: 'withdrawn', reason: '', detail: '{}', created_gmt: now },
      );
      return publicView(await byId(Number(row.id)));
    },

    async list(filter) {
      const { rows, total } = await store.listSubmissions(db, {
        ...(filter.statuses ? { statuses: filter.statuses } : {}),
        ...(filter.flagged !== undefined ? { flagged: filter.flagged } : {}),
        ...(filter.email ? { email: filter.email } : {}),
        limit: filter.perPage,
        offset: (filter.page - 1) * filter.perPage,
      });
      const items = [];
      for (const r of rows) items.push(await adminView(r));
      return { items, total };
    },

    async get(id) {
      return adminView(await byId(id), true);
    },

    async approve(viewer, id, options = {}) {
      await moderatorCheck(viewer);
      const row = await byId(id);
      if (row.status !== 'pending' && row.status !== 'changes_requested') throw apiError('submission_not_pending', { args: [row.status] });
      const record = await events.findById(Number(row.event_id));
      if (!record || record.status === 'trash') throw apiError('submission_not_found');
      // The moderator's edits are checked as the submitter's are (the event service trusts its callers).
      const edits: EventInput = options.edits ? await eventInputOf(options.edits as SubmissionInput, true) : {};
      if (options.publishAt !== undefined && !parseDateInput(options.publishAt, config.timezone)) throw invalidParams({ publish_at: 'publish_at is not a date.' });
      const detail = await settleLinked(viewer, row, options, edits);
      const input: EventInput = { ...edits, status: 'publish' };
      if (options.publishAt) input.date = options.publishAt;
      const updated = await events.update(viewer, record, input);
      const now = gmt();
      const publishAt = updated.status === 'future' ? updated.date_gmt : null;
      await store.updateSubmission(
        db,
        id,
        { status: 'approved', reason: options.reason ?? '', updated_gmt: now, decided_gmt: now, publish_at_gmt: publishAt },
        {
          ...actorOf(viewer),
          action: options.edits && Object.keys(options.edits).length > 0 ? 'edited_and_approved' : 'approved',
          reason: options.reason ?? '',
          detail: JSON.stringify({ ...detail, ...(publishAt ? { publish_at: iso(publishAt) } : {}), ...(options.edits ? { fields: Object.keys(options.edits) } : {}) }),
          created_gmt: now,
        },
        'approved',
      );
      const after = await byId(id);
      const locale = localeOfRow(after);
      const json = await eventJson(Number(row.event_id));
      tellSubmitter(after, 'approved', await tokenOf(after.link_salt), {
        title: updated.title,
        when: whenOfRecord(after, updated),
        ...(publishAt ? { publishAt: instantText(locale, publishAt, config.timezone) } : {}),
        ...(json && typeof json.url === 'string' ? { eventUrl: json.url } : {}),
      });
      return adminView(after, true);
    },

    async reject(viewer, id, reason) {
      await moderatorCheck(viewer);
      const row = await byId(id);
      if (row.status !== 'pending' && row.status !== 'changes_requested') throw apiError('submission_not_pending', { args: [row.status] });
      const record = await events.findById(Number(row.event_id));
      await trashMade(row);
      const now = gmt();
      await store.updateSubmission(
        db,
        id,
        { status: 'rejected', reason, updated_gmt: now, decided_gmt: now },
        { ...actorOf(viewer), action: 'rejected', reason, detail: '{}', created_gmt: now },
        'rejected',
      );
      const after = await byId(id);
      tellSubmitter(after, 'rejected', await tokenOf(after.link_salt), { title: record?.title, when: whenOfRecord(after, record) });
      return adminView(after, true);
    },

    async requestChanges(viewer, id, reason) {
      await moderatorCheck(viewer);
      const row = await byId(id);
      if (row.status !== 'pending') throw apiError('submission_not_pending', { args: [row.status] });
      const record = await events.findById(Number(row.event_id));
      const now = gmt();
      await store.updateSubmission(
        db,
        id,
        { status: 'changes_requested', reason, updated_gmt: now },
        { ...actorOf(viewer), action: 'changes_requested', reason, detail: '{}', created_gmt: now },
        'changes_requested',
      );
      const after = await byId(id);
      tellSubmitter(after, 'changes_requested', await tokenOf(after.link_salt), { title: record?.title, when: whenOfRecord(after, record) });
      return adminView(after, true);
    },

    async log(filter) {
      const { rows, total } = await store.listLog(db, {
        ...(filter.submissionId !== undefined ? { submissionId: filter.submissionId } : {}),
        limit: filter.perPage,
        offset: (filter.page - 1) * filter.perPage,
      });
      return { items: rows.map(logJson), total };
    },

    async exportSubmitter(email) {
      const rows = await store.submissionsOfEmail(db, email.trim());
      const items = [];
      for (const r of rows) items.push(await adminView(r, true));
      return { email: email.trim().toLowerCase(), exported: new Date().toISOString(), submissions: items };
    },

    async eraseSubmitter(viewer, email) {
      const rows = await store.submissionsOfEmail(db, email.trim());
      const ids = rows.map((r) => Number(r.id));
      const n = await store.eraseIdentities(db, ids);
      await store.forgetSubmissionQuota(db, quotaKey('email', email.trim().toLowerCase()));
      const now = gmt();
      for (const id of ids) await store.updateSubmission(db, id, { updated_gmt: now }, { ...actorOf(viewer), action: 'submitter_erased', reason: '', detail: '{}', created_gmt: now });
      return n;
    },

    async eraseExpired(now = new Date()) {
      const before = gmt(new Date(now.getTime() - config.submissionRetentionDays * 86_400_000));
      // The limits' places older than their window, and proofs of work whose challenge expired.
      await store.pruneSubmissionLimits(db, gmt(new Date(now.getTime() - config.submissionsRateWindowMs)), gmt(now));
      const ids = await store.expiredIdentities(db, before, 500);
      return store.eraseIdentities(db, ids);
    },

    async sendDigest() {
      if (!mailer) return 0;
      const rows = await store.unnotifiedSubmissions(db, 200);
      await notifyModerators(rows);
      return rows.length;
    },
  };
}
