/**
 * Post statuses: which exist, what a writer ends up with, and what a list may ask for
 * (behavior.md §3.4 and §5).
 *
 * @example
 *   scaleBackStatus(contributor, 'publish') // 'pending'
 *   listStatusFilter(anonymous, 'tribe_events', 'publish,draft') // null (not allowed → 400)
 */
import { typeCan, type Viewer } from './permissions.js';
import type { PostType } from '../store/schema.js';

/** Statuses a record can have (WordPress' registered post statuses that matter here). */
export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash', 'auto-draft', 'inherit'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** What `status=any` (the default for editors' lists) covers: everything but trash and auto-draft. */
export const ANY_STATUSES: readonly string[] = ['publish', 'future', 'draft', 'pending', 'private'];

export function isPostStatus(value: unknown): value is PostStatus {
  return typeof value === 'string' && (POST_STATUSES as readonly string[]).includes(value);
}

/**
 * The status a write stores. Users who may publish events keep what they send (empty → publish);
 * others get `pending` for publish/future/private and `draft` when they send none
 * (the original's `scale_back_post_status`, which always checks the event publish capability;
 * `private` is scaled back too, which the original forgot to do).
 */
export function scaleBackStatus(viewer: Viewer, requested: string | undefined | null): string {
  const wanted = requested ?? '';
  if (typeCan(viewer, 'publish', 'tribe_events')) return wanted === '' ? 'publish' : wanted;
  if (wanted === '') return 'draft';
  if (wanted === 'publish' || wanted === 'future' || wanted === 'private') return 'pending';
  return wanted;
}

/**
 * WordPress' date rule: `publish` with a date more than a minute ahead becomes `future`, and
 * `future` with a past date becomes `publish`.
 */
export function applyScheduling(status: string, dateGmt: string, nowGmt: string): string {
  if (status === 'publish' && dateGmt > plusOneMinute(nowGmt)) return 'future';
  if (status === 'future' && dateGmt <= nowGmt) return 'publish';
  return status;
}

function plusOneMinute(wall: string): string {
  const d = new Date(wall.replace(' ', 'T') + 'Z');
  d.setUTCSeconds(d.getUTCSeconds() + 60);
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Split a `status` list parameter (CSV or array), trimming spaces. */
export function splitStatusList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : String(value ?? '').split(',');
  return items.map((s) => String(s).trim()).filter((s) => s !== '');
}

/**
 * Validate a list's `status` parameter for this viewer: without the type's edit capability only
 * exactly `publish` is allowed; with it, every entry must be a known status. Returns the statuses,
 * or null when the value is not allowed (→ 400).
 */
export function listStatusFilter(viewer: Viewer, type: PostType, value: unknown): string[] | null {
  const list = splitStatusList(value);
  if (list.length === 0) return null;
  if (!typeCan(viewer, 'edit', type)) return list.length === 1 && list[0] === 'publish' ? list : null;
  return list.every(isPostStatus) ? list : null;
}

/** The statuses a list shows when no `status` is given: `any` for editors of the type, else publish. */
export function defaultListStatuses(viewer: Viewer, type: PostType): { statuses: readonly string[]; label: string } {
  return typeCan(viewer, 'edit', type) ? { statuses: ANY_STATUSES, label: 'any' } : { statuses: ['publish'], label: 'publish' };
}
