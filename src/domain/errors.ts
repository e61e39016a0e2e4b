/**
 * WordPress-style errors: `{code, message, data: {status, ...}}`, with the HTTP status equal to
 * `data.status`. Every code and message the API can send is written once, here.
 *
 * @example
 *   throw apiError('event-is-in-trash');
 *   throw invalidParams({ page: 'Invalid parameter.' });
 */
import type { StoreFault } from '../store/faults.js';

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly data: Record<string, unknown>;
  /** extra top-level keys of the body (WordPress' `additional_data`) */
  readonly extra: Record<string, unknown>;

  constructor(code: string, message: string, status: number, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.status = status;
    this.data = data;
    this.extra = extra;
  }

  /** HTTP headers sent with this error (e.g. `Retry-After`). */
  headers: Record<string, string> = {};

  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data }, ...this.extra };
  }
}

/** The catalogue: code → [status, message]. `%d`/`%s` are filled by apiError's args. */
export const ERRORS = {
  rest_no_route: [404, 'No route was found matching the URL and request method.'],
  // Many calendars in one service (domain/calendars.ts).
  calendar_not_found: [404, 'No calendar has that ID or slug.'],
  calendar_exists: [400, 'A calendar already has that slug or host name.'],
  calendar_default: [400, 'The default calendar cannot be deleted.'],
  calendar_suspended: [503, 'This calendar is suspended.'],
  // A calendar's quota used up (domain/quotas.ts): 403 (events, webhook endpoints), 413 (media
  // bytes) or 429 with Retry-After (requests a minute, submissions a day); data names the quota,
  // its limit and what is used.
  calendar_quota_exceeded: [403, 'This calendar has used its %s quota (%d of %d).'],
  // Networks of calendars (domain/network.ts).
  network_not_public: [400, 'Only a published event that is not password-protected can be proposed to another calendar.'],
  network_same_calendar: [400, 'A calendar cannot propose events to itself or follow itself.'],
  network_already_proposed: [409, 'This event is already proposed to that calendar and waits for its moderators.'],
  network_already_there: [409, 'This event is already in that calendar (an accepted proposal or a copy of a follow).'],
  network_proposal_declined: [409, 'That calendar declined this event as it is; change the event to propose it again.'],
  network_proposals_closed: [403, 'That calendar takes no submissions.'],
  network_calendar_suspended: [409, 'That calendar is suspended: it takes no proposals and cannot be followed until it is resumed.'],
  network_follow_not_found: [404, 'This calendar does not follow that calendar.'],
  network_copy_read_only: [403, 'This event is a copy of another calendar’s event: it follows its source and cannot be changed here.'],
  network_linked_read_only: [403, 'This venue or organizer is a copy of another calendar’s: it follows its source and cannot be changed here.'],
  // WordPress' rest_trash_not_supported: a calendar is deleted for good, so the caller says so.
  calendar_trash_not_supported: [501, 'Calendars cannot be trashed. Set “force” to true to delete.'],
  rest_invalid_json: [400, 'Invalid JSON body passed.'],
  rest_forbidden: [401, 'Sorry, you are not allowed to do that.'],
  // WordPress' rest_cookie_check_errors: a session cookie with a wrong X-WP-Nonce / _wpnonce.
  rest_cookie_invalid_nonce: [403, 'Cookie check failed'],
  // WRITE_WORKER (web/write-worker.ts): the write thread stopped, or failed, with a write in hand.
  rest_write_interrupted: [503, 'The server stopped while it answered this request: it was either saved whole or not at all. Read the item to see which, then try again if it is missing.'],
  rest_write_failed: [500, 'The server could not answer this request.'],
  rest_invalid_namespace: [404, 'The specified namespace could not be found.'],
  rest_callback_invalid: [400, 'Invalid JSONP callback function.'],
  rest_callback_disabled: [400, 'JSONP support is disabled on this site.'],
  'rest-event-not-found': [404, 'Event with ID %d does not exist.'],
  'rest-invalid-event-id': [400, 'The specified ID is not a valid event.'],
  'event-no-longer-available': [403, 'This event is no longer available'],
  'event-not-accessible': [403, 'The requested event is not accessible'],
  'event-password-protected': [403, 'The requested event is not accessible without a password'],
  'event-archive-page-not-found': [404, 'The requested event archive page does not exist'],
  'event-is-in-trash': [410, 'The event is already trashed'],
  'could-not-delete-event': [500, 'The event could not be deleted'],
  'could-not-update-event': [403, 'The event could not be updated'],
  'venue-not-accessible': [403, 'The requested venue is not accessible'],
  'organizer-not-accessible': [403, 'The requested organizer is not accessible'],
  'could-not-create-venue': [400, 'The venue could not be created from the provided data'],
  'could-not-create-organizer': [400, 'The organizer could not be created from the provided data'],
  'invalid-linked-post-id': [400, 'The provided linked post ID is not valid'],
  'could-not-update-venue': [400, 'The venue could not be updated'],
  'could-not-update-organizer': [400, 'The organizer could not be updated'],
  'venue-is-in-trash': [410, 'The venue is already trashed'],
  'organizer-is-in-trash': [410, 'The organizer is already trashed'],
  'could-not-delete-venue': [500, 'The venue could not be deleted'],
  'could-not-delete-organizer': [500, 'The organizer could not be deleted'],
  'venue-archive-page-not-found': [404, 'The requested venue archive page does not exist'],
  'organizer-archive-page-not-found': [404, 'The requested organizer archive page does not exist'],
  term_exists: [400, 'A term with the name provided already exists with this parent.'],
  term_exists_tag: [400, 'A term with the name provided already exists in this taxonomy.'],
  rest_term_invalid: [400, 'Parent term does not exist.'],
  rest_taxonomy_not_hierarchical: [400, 'Cannot set parent term, taxonomy is not hierarchical.'],
  duplicate_term_slug: [400, 'The slug “%s” is already in use by another term.'],
  /** WordPress sent it without a status (so as 500); a bad name is the client's error here. */
  empty_term_name: [400, 'A name is required for this term.'],
  internal_server_error: [500, 'There has been a critical error on this website.'],
  // Not in the original (WordPress answers a database outage with an HTML "Error establishing a
  // database connection" page); ours, so that clients get the usual JSON error and can retry.
  rest_database_unavailable: [503, 'The database is not available at the moment. Please try again shortly.'],
  rest_database_busy: [503, 'The database is busy. Please try again shortly.'],
  rest_database_read_only: [503, 'The database is read-only at the moment; nothing was changed.'],
  rest_database_full: [507, 'The database has run out of space; nothing was changed.'],
  // Ours: conditional writes and sync tokens.
  rest_precondition_failed: [412, 'The record has changed since the version given in If-Match or If-Unmodified-Since; nothing was changed. Read it again.'],
  rest_sync_token_expired: [410, 'The sync token is invalid, from another database, or older than the kept history; do a full sync without sync_token.'],
  rest_webhook_not_found: [404, 'No webhook endpoint with this ID.'],
  rest_webhook_delivery_not_found: [404, 'No delivery with this ID for this webhook endpoint.'],
  // Ours: the FullCalendar event source's range.
  rest_embed_range_too_wide: [400, 'The range from start to end is longer than %d days; ask for a shorter one.'],
  rest_embed_range_empty: [400, 'The end of the range must be after its start.'],
  // Ours (with WordPress' codes where it has one): the admin app's routes (docs/admin-api.md).
  rest_user_invalid_id: [404, 'Invalid user ID.'],
  existing_user_login: [400, 'Sorry, that username already exists!'],
  // WordPress' answer to a login among its illegal ones: here the service's own accounts' (domain/system-accounts.ts).
  rest_user_invalid_username: [400, 'Sorry, that username is not allowed.'],
  // Ours: an account under the login of one of the service's own that can be signed in to is a person's, never used as the service's.
  rest_system_account_taken: [503, 'The account %s can be signed in to, so the service does not write as it: an administrator must remove that account first (its records can go to another user).'],
  existing_user_email: [400, 'Sorry, that email address is already used!'],
  rest_user_invalid_role: [400, 'Sorry, you are not allowed to give users that role (one of %s).'],
  rest_user_invalid_reassign: [400, 'Invalid user ID for reassignment: %s.'],
  rest_user_has_content: [409, '%s'],
  rest_user_last_administrator: [400, 'This is the only administrator: make another user an administrator first.'],
  // The Two-Factor plugin's code: the account password over HTTP Basic of a user with two-factor sign-in.
  invalid_application_credentials: [401, 'Error: API login for user disabled. Two-factor sign-in is on for this user: use an application password.'],
  // Ours: the MCP face (docs/mcp.md) refuses credentials that sign nobody in, where REST reads on as a visitor.
  rest_invalid_credentials: [401, 'Unknown username or wrong password: send an application password over HTTP Basic, or no credentials to read as a visitor.'],
  rest_application_password_name: [400, 'An application name of 1 to 100 characters is required.'],
  application_password_duplicate_name: [409, 'Each application name should be unique.'],
  application_password_not_found: [404, 'Could not find an application password with that id.'],
  rest_import_invalid_id: [404, 'Invalid import ID.'],
  // The media library (docs/media.md); the first is WordPress' own for an upload without a file.
  rest_upload_no_data: [400, 'No data supplied.'],
  rest_upload_file_too_big: [413, 'The file is %d bytes; images of at most %d bytes are accepted.'],
  rest_upload_invalid_type: [415, 'Sorry, this file type is not accepted: upload a JPEG, PNG, GIF, WebP or AVIF image.'],
  rest_upload_svg_refused: [415, 'SVG images are not accepted (they can carry scripts): upload a JPEG, PNG, GIF, WebP or AVIF image.'],
  rest_upload_unreadable: [400, 'The file is not a readable image.'],
  rest_upload_too_many_pixels: [413, 'The image has %d pixels; at most %d are accepted.'],
  rest_media_not_found: [404, 'No media item with this ID.'],
  rest_changes_pruned: [410, 'The changes after %d are no longer all kept (the log is pruned after SYNC_HISTORY_DAYS): read the data again, then follow from the current head.'],
  federation_follower_not_found: [404, 'No follower with this ID.'],
  federation_follower_not_pending: [409, 'This follow is not waiting for a decision.'],
  federation_delivery_not_found: [404, 'No failed or abandoned delivery with this ID.'],
  federation_not_found: [404, 'No federation object at this URL.'],
  federation_bad_request: [400, 'The request could not be read: %s'],
  federation_unauthorized: [401, 'The request signature could not be verified: %s'],
  federation_not_acceptable: [406, 'This URL answers ActivityStreams JSON only (Accept: application/activity+json).'],
  federation_gone: [410, 'This object was deleted.'],
  federation_payload_too_large: [413, 'The request body is larger than FEDERATION_MAX_BODY_BYTES.'],
  federation_replayed: [401, 'This signed request was received already (a replay); sign each request anew.'],
  federation_blocked: [403, 'Requests from this domain are refused.'],
  federation_rate_limited: [429, 'Too many inbox requests from this address or host; try again later.'],
  // Community submissions.
  submission_not_found: [404, 'No submission with this ID or link.'],
  submission_login_required: [401, 'Sign in to propose an event.'],
  submission_rate_limited: [429, 'Too many submissions. Try again in %d seconds.'],
  submission_rejected_as_spam: [400, 'The submission could not be accepted.'],
  submission_too_fast: [400, 'The form was sent too quickly. Take a moment and send it again.'],
  submission_pow_required: [400, 'The proof-of-work solution is missing or wrong. Ask for a new challenge and solve it.'],
  submission_too_many_links: [400, 'The submission holds more than %d links.'],
  submission_not_editable: [409, 'This submission can no longer be changed (it is %s).'],
  submission_not_pending: [409, 'This submission has already been decided (it is %s).'],
  // People: invitations, password resets and the password policy.
  weak_password: [400, '%s'],
  incorrect_password: [400, 'The current password is incorrect.'],
  rest_invitation_email: [400, 'An invitation needs the e-mail address it is sent to.'],
  rest_invitation_not_found: [404, 'This user has no pending invitation.'],
  rest_review_not_pending: [409, 'Only an event pending review can be sent back with a note.'],
  rest_review_note_required: [400, 'Say what to change: the note is sent to the contributor.'],
  // Deleting an event permanently (calendar/admin/v1/events/{id}).
  rest_preview_trashed: [400, 'An event in the trash has no preview link: restore it first.'],
  rest_restore_not_trashed: [400, 'Only an event in the trash can be restored.'],
  rest_purge_not_trashed: [400, 'Only an event in the trash can be deleted permanently: move it to the trash first.'],
  rest_purge_occurrence: [
    400,
    'An occurrence of a recurring event cannot be deleted permanently on its own (its series would generate it again): it stays in the trash, or delete the whole series permanently.',
  ],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * Build a catalogued error; `args` fill `%d`/`%s` in order.
 *
 * @example apiError('rest-event-not-found', { args: [99] }) // message "Event with ID 99 does not exist."
 */
export function apiError(
  code: ErrorCode,
  options: { args?: (string | number)[]; status?: number; data?: Record<string, unknown>; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
): ApiError {
  const [status, template] = ERRORS[code];
  let i = 0;
  const message = template.replace(/%[ds]/g, () => String(options.args?.[i++] ?? ''));
  const wireCode = code === 'term_exists_tag' ? 'term_exists' : code;
  const error = new ApiError(wireCode, message, options.status ?? status, options.data ?? {}, options.extra ?? {});
  if (options.headers) error.headers = options.headers;
  return error;
}

/**
 * The answer to a database fault (`src/store/faults.ts`): 503 with `Retry-After` (seconds) while
 * the database is unreachable, busy or read-only; 507 Insufficient Storage when it is full (no
 * `Retry-After`: space has to be freed first). Writes are transactions, so a failed one changed nothing.
 *
 * @example faultError('busy') // 503 rest_database_busy, Retry-After: 1
 */
export function faultError(fault: StoreFault): ApiError {
  switch (fault) {
    case 'unavailable':
      return apiError('rest_database_unavailable', { headers: { 'retry-after': '5' } });
    case 'busy':
      return apiError('rest_database_busy', { headers: { 'retry-after': '1' } });
    case 'read-only':
      return apiError('rest_database_read_only', { headers: { 'retry-after': '30' } });
    case 'full':
      return apiError('rest_database_full');
  }
}

/** 401 for anonymous callers, 403 for authenticated ones (`rest_authorization_required_code()`). */
export function forbidden(authenticated: boolean): ApiError {
  return apiError('rest_forbidden', { status: authenticated ? 403 : 401 });
}

/** `rest_missing_callback_param` naming the missing parameters in declaration order. */
export function missingParams(names: string[]): ApiError {
  return new ApiError('rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, 400, { params: names });
}

/** One failed parameter: the message WordPress reports, plus its `details` entry when it has one. */
export interface ParamFailure {
  message: string;
  detail?: { code: string; message: string; data: Record<string, unknown> };
}

/**
 * `rest_invalid_param` listing every failed parameter. `details` is `[]` when every failure was a
 * plain "Invalid parameter." (as WordPress serialises an empty PHP array).
 */
export function invalidParams(failures: Record<string, ParamFailure | string>): ApiError {
  const params: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(failures)) {
    const failure = typeof f === 'string' ? { message: f } : f;
    params[name] = failure.message;
    if (failure.detail) details[name] = failure.detail;
  }
  return new ApiError('rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, 400, {
    params,
    details: Object.keys(details).length ? details : [],
  });
}

/** The message of a plain failed validator. */
export const INVALID_PARAMETER = 'Invalid parameter.';
