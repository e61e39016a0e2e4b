/**
 * What every part of the submission service shares: its dependencies, the mailer and proof of
 * work, where e-mails link to and where their failures go (set by the face), and the small reads
 * and checks every part uses (a submission by id or token, its event as moderators see it, the
 * private link's token, the submitter's language and dates).
 *
 * @example
 *   const core = createSubmissionCore(deps);
 *   const row = await core.byToken(token);
 */
import { createHash, createHmac } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Store } from '../../store/db.js';
import * as store from '../../store/submissions.js';
import type { SubmissionRow } from '../../store/submissions.js';
import { apiError } from '../errors.js';
import { isPositiveInt } from '../values.js';
import { systemAccount } from '../system-accounts.js';
import type { EventService } from '../events/index.js';
import type { LinkedPostService } from '../linked-posts/index.js';
import { can, viewerOf, type Viewer } from '../permissions.js';
import { whenText } from './dates.js';
import { createMailer, type Locale, type Mailer } from './mail.js';
import { createProofOfWork, type ProofOfWork } from './pow.js';
import { SUBMISSIONS_USER, type SubmissionDeps } from './types.js';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** A limit's key as stored: a hash, so the quota table holds no address. */
export const quotaKey = (kind: 'ip' | 'email' | 'calendar', value: string) => sha256(`${kind}:${value}`);
export const gmt = (d = new Date()) => d.toISOString().slice(0, 19).replace('T', ' ');
export const iso = (v: string | null | undefined) => (v ? v.replace(' ', 'T') + 'Z' : null);
export const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
export const EMAIL = /^[^\s@<>()",;:]{1,64}@[^\s@<>()",;:]+\.[^\s@<>()",;:]{2,}$/;

/** Whether a submission can be changed by its submitter in this state. */
export const editable = (status: string) => status === 'pending' || status === 'changes_requested';

export interface SubmissionCore {
  deps: SubmissionDeps;
  config: Config;
  db: Store['db'];
  events: EventService;
  venues: LinkedPostService;
  organizers: LinkedPostService;
  mailer: Mailer | undefined;
  pow: ProofOfWork | undefined;
  /** Every record the service reads is read as an administrator would (the submitter's fields aside). */
  admin: Viewer;
  /** Where the e-mails link to (the face sets them). */
  paths: { status: (token: string) => string; queue: () => string };
  /** Where failures of e-mails sent after the answer go (the face sets it). */
  logError: (message: string, error: unknown) => void;
  /** The author of anonymous submissions, made on first use. */
  systemUser(): Promise<number>;
  /** What the submitter writes with: a contributor (so everything stays pending) who may name an image URL. */
  submitterViewer(authorId: number): Viewer;
  moderatorCheck(viewer: Viewer): Promise<void>;
  /** The event as the submitter and moderators see it (fields of the admin representation). */
  eventJson(eventId: number): Promise<Record<string, unknown> | null>;
  byToken(token: string): Promise<SubmissionRow>;
  byId(id: number): Promise<SubmissionRow>;
  /** Send without holding the answer; failures go to the log. */
  deliver(message: Parameters<Mailer['send']>[0]): void;
  localeOfRow(row: SubmissionRow): Locale;
  /** The event's dates in the submitter's language (undefined without the event). */
  whenOfRecord(row: SubmissionRow, record: { start_local: string; end_local: string; all_day: number | boolean; timezone: string } | undefined | null, locale?: Locale): string | undefined;
  /** Whether the submitter sent it again after a moderator asked for changes (its log says so). */
  wasResubmitted(row: SubmissionRow): Promise<boolean>;
  /**
   * The private link's token: an HMAC of the submission's random salt with the key in `settings`
   * (only its SHA-256 is looked up), so decision e-mails can carry the link again.
   */
  tokenOf(salt: string): Promise<string>;
  actorOf(viewer: Viewer): { actor_id: number; actor: string };
}

export function createSubmissionCore(deps: SubmissionDeps): SubmissionCore {
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
  const paths = { status: (token: string) => `${config.siteUrl}/events/submit/status/${token}`, queue: () => `${config.siteUrl}${config.adminPath}/` };
  const admin = viewerOf({ id: 2 ** 31 - 1, login: 'submissions', role: 'administrator' });

  let systemUserId: number | undefined;
  const core: SubmissionCore = {
    deps,
    config,
    db,
    events,
    venues,
    organizers,
    mailer,
    pow,
    admin,
    paths,
    logError: () => undefined,
    async systemUser() {
      if (systemUserId !== undefined) return systemUserId;
      // Never a person's account under that login (one that can sign in): 503 then (domain/system-accounts.ts).
      return (systemUserId = await systemAccount(db, deps.users, SUBMISSIONS_USER, { role: 'contributor', name: 'Community submissions' }));
    },
    submitterViewer(authorId) {
      const base = viewerOf({ id: authorId, login: SUBMISSIONS_USER, role: 'contributor' });
      return { ...base, caps: new Set([...base.caps, 'upload_files']) };
    },
    async moderatorCheck(viewer) {
      if (!can(viewer, 'edit_others_tribe_events') || !can(viewer, 'publish_tribe_events')) throw apiError('rest_forbidden');
    },
    async eventJson(eventId) {
      const record = await events.findById(eventId);
      if (!record) return null;
      const [json] = await events.represent([record], admin, 'single', deps.links);
      return json ?? null;
    },
    async byToken(token) {
      if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw apiError('submission_not_found');
      const row = await store.findSubmissionByTokenHash(db, sha256(token));
      if (!row) throw apiError('submission_not_found');
      return row;
    },
    async byId(id) {
      // An id beyond what the column holds is no submission's (and must not reach SQL: PostgreSQL refuses it).
      if (!isPositiveInt(id)) throw apiError('submission_not_found');
      const row = await store.findSubmission(db, id);
      if (!row) throw apiError('submission_not_found');
      return row;
    },
    deliver(message) {
      if (!mailer) return;
      const to = Array.isArray(message.to) ? message.to : [message.to];
      if (to.length === 0 || to.every((t) => t === '')) return;
      mailer.send(message).catch((e: unknown) => core.logError('submission e-mail failed', e));
    },
    localeOfRow: (row) => (row.locale === 'fr' ? 'fr' : 'en'),
    whenOfRecord(row, record, locale = core.localeOfRow(row)) {
      if (!record) return undefined;
      return whenText(locale, { start_date: record.start_local, end_date: record.end_local, all_day: Boolean(record.all_day), timezone: record.timezone });
    },
    async wasResubmitted(row) {
      const { rows } = await store.listLog(db, { submissionId: Number(row.id), limit: 200, offset: 0 });
      return rows.some((r) => r.action === 'resubmitted');
    },
    async tokenOf(salt) {
      const key = await store.powSecret(db);
      return createHmac('sha256', key).update(`submission-link:${salt}`).digest('base64url');
    },
    actorOf: (viewer) => ({ actor_id: viewer.id, actor: viewer.login }),
  };
  return core;
}
