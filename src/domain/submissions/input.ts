/**
 * What a submitter (or a moderator editing before approval) sends, checked: every field's error at
 * once, the description sanitised to a strict subset of HTML, a new venue or organizer kept
 * pending, links counted over every text; and the per-address and per-e-mail limits taken.
 *
 * @example const input = await eventInputOf(core, body, false); // EventInput, or 400 naming each field
 */
import sanitizeHtml from 'sanitize-html';
import * as store from '../../store/submissions.js';
import { clientKeyOf } from '../client-address.js';
import { parseDateInput } from '../dates/strtotime.js';
import { isValidTimezone } from '../dates/zones.js';
import { apiError, invalidParams } from '../errors.js';
import { isPositiveInt } from '../values.js';
import type { EventInput } from '../events/index.js';
import { isOrganizerEmail } from '../linked-posts/rules.js';
import { gmt, quotaKey, str, type SubmissionCore } from './core.js';
import { quotaExceeded } from '../quotas.js';
import type { SubmissionInput } from './types.js';

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

/** Check the fields; returns the event's input and the submitter's identity. */
export async function eventInputOf(core: SubmissionCore, input: SubmissionInput, partial: boolean, failures: Record<string, string> = {}): Promise<EventInput> {
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
    if (d.length > core.config.submissionsMaxDescription) failures.description = `The description must be at most ${core.config.submissionsMaxDescription} characters.`;
    else out.description = sanitizeHtml(d, DESCRIPTION_HTML);
  }
  // The dates are read in the submission's zone, as the event service will; a wrong one is
  // reported with the other fields (every error at once), not after them.
  const zoneOfInput = str(input.timezone).trim();
  const dateZone = zoneOfInput !== '' && isValidTimezone(zoneOfInput) ? zoneOfInput : core.config.timezone;
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
    // An id beyond what the column holds is no category's (and must not reach SQL: PostgreSQL refuses it).
    if (ids.length > 20 || ids.some((x) => !/^[1-9]\d{0,9}$/.test(x) || !isPositiveInt(x))) failures.categories = 'categories must be a list of category IDs.';
    else out.categories = ids.map(Number);
  }
  if (has('venue') && str(input.venue) !== '0') {
    const v = input.venue;
    if (typeof v === 'number' || (typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v))) {
      const found = await core.venues.findById(Number(v));
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
      const found = await core.organizers.findById(Number(v));
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
  if (texts.reduce((n, t) => n + countLinks(t), 0) > core.config.submissionsMaxLinks) throw apiError('submission_too_many_links', { args: [core.config.submissionsMaxLinks] });
  return out;
}

/**
 * Take this submission's places in the per-address and per-e-mail limits, or refuse it (429 with
 * Retry-After: when the oldest place in the window frees). Counting and taking are one step in
 * the database (store/submissions.ts `reserveSubmissionQuota`), so submissions sent at once, to
 * any instance, get no more places than sequential ones. Returns the places, to give back should
 * the submission not be stored.
 */
export async function reservePlaces(core: SubmissionCore, ip: string, email: string): Promise<number[]> {
  // A calendar whose events quota is full refuses the submission for that, before it takes a
  // place: otherwise submissions sent at once would hold the day's places while each is refused,
  // and the others be told the day is used up (429, a day's Retry-After). The write's own guard
  // still holds the quota.
  await core.deps.quotas?.check(core.db, 'events', 1);
  const limits: store.QuotaLimit[] = [];
  const now = Date.now();
  if (core.config.submissionsMaxPerAddress > 0 && ip !== '') limits.push({ key: quotaKey('ip', clientKeyOf(ip)), max: core.config.submissionsMaxPerAddress });
  if (core.config.submissionsMaxPerEmail > 0 && email !== '') limits.push({ key: quotaKey('email', email), max: core.config.submissionsMaxPerEmail });
  // The calendar's `submissions_per_day` quota: one more place, the calendar's own (the quota
  // table's rows are each calendar's), counted over the last 24 hours.
  const limit = core.deps.quotas?.limit('submissions_per_day') ?? 0;
  const perDay = typeof limit === 'number' ? limit : await limit;
  const calendarKey = quotaKey('calendar', 'day');
  if (perDay > 0) limits.push({ key: calendarKey, max: perDay, sinceGmt: gmt(new Date(now - SUBMISSION_QUOTA_DAY_MS)) });
  if (limits.length === 0) return [];
  const taken = await store.reserveSubmissionQuota(core.db, limits, gmt(new Date(now - core.config.submissionsRateWindowMs)), gmt(new Date(now)));
  if ('ids' in taken) return taken.ids;
  const windowMs = taken.refused === calendarKey ? SUBMISSION_QUOTA_DAY_MS : core.config.submissionsRateWindowMs;
  const freeAt = taken.oldestGmt ? Date.parse(taken.oldestGmt.replace(' ', 'T') + 'Z') + windowMs : now + windowMs;
  const seconds = Math.max(1, Math.ceil((freeAt - now) / 1000));
  if (taken.refused === calendarKey) throw quotaExceeded('submissions_per_day', perDay, taken.used, seconds);
  throw apiError('submission_rate_limited', { args: [seconds], headers: { 'retry-after': String(seconds) } });
}

/** The window of a calendar's `submissions_per_day` quota (its places are kept this long at least). */
export const SUBMISSION_QUOTA_DAY_MS = 24 * 60 * 60 * 1000;
