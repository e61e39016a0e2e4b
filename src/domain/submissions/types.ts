/**
 * Community submissions' vocabulary: their statuses and webhook events, what a submitter sends
 * and from where, what a moderator decides, what the service offers and needs.
 */
import type { CalendarQuotas } from '../quotas.js';
import type { Config } from '../../config.js';
import type { Store } from '../../store/db.js';
import type { EventInput, EventService } from '../events/index.js';
import type { LinkedPostService } from '../linked-posts/index.js';
import type { Links } from '../links.js';
import type { Viewer } from '../permissions.js';
import type { UserService } from '../users.js';
import type { Locale } from './mail.js';
import type { ProofOfWork } from './pow.js';

export const SUBMISSION_STATUSES = ['pending', 'changes_requested', 'approved', 'rejected', 'withdrawn'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];
/** The webhook event types (src/webhooks/types.ts lists them). */
export const SUBMISSION_EVENTS = ['received', 'approved', 'rejected', 'changes_requested'] as const;

/** The login of the user anonymous submissions are authored by (one of the service's own accounts, whose logins are reserved). */
export { SUBMISSIONS_USER } from '../system-accounts.js';

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
  /**
   * A proposal from another calendar of the network (domain/network.ts): its event (a copy) stored
   * pending, the proposer as submitter, the source in the log. Returns the submission and event ids.
   */
  receiveProposal(input: EventInput, from: { userId: number; name: string; email: string; source: { calendar: string; url: string; event_id: number } }): Promise<{ id: number; eventId: number }>;
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
  setPaths(paths: { status: (token: string) => string; queue: () => string }): void;
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
  /**
   * The calendars' quotas: submissions past the calendar's `submissions_per_day` are refused, and
   * so is a submission while its `events` quota is full, before it takes a day's place (domain/quotas.ts).
   */
  quotas?: Pick<CalendarQuotas, 'limit' | 'check'>;
}
