/**
 * Post statuses: which exist, what a writer ends up with, and what a list may ask for
 * (behavior.md §3.4 and §5).
 *
 * @example
 *   scaleBackStatus(contributor, 'publish') // 'pending'
 *   listStatusFilter(anonymous, 'tribe_events', 'publish,draft') // null (not allowed → 400)
 */
import { canReadPost, typeCan, type Viewer } from './permissions.js';
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
 * WordPress' date rule (`wp_insert_post`): `publish` with a date at least a minute ahead becomes
 * `future`, and `future` with a date less than a minute ahead (or past) becomes `publish`. Other
 * statuses are kept. Dates are UTC wall times (`YYYY-MM-DD HH:MM:SS`); call it with the record's
 * publication date, or now when it has none (so `future` without a date publishes at once).
 *
 * @example applyScheduling('publish', '2030-01-01 00:00:00', '2026-01-01 00:00:00') // 'future'
 */
export function applyScheduling(status: string, dateGmt: string, nowGmt: string): string {
  const ahead = dateGmt >= plusOneMinute(nowGmt);
  if (status === 'publish' && ahead) return 'future';
  if (status === 'future' && !ahead) return 'publish';
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
 * exactly `publish` is allowed; with it, every entry must be a known status or `any`. Returns the
 * statuses as sent (`any` kept, so `rest_url` echoes it; `listScope` expands it), or null when
 * the value is not allowed (→ 400).
 *
 * `any` is an extension (COMPAT, docs/api.md "Compatibility choices"): the original answers 400 to it,
 * yet writes `status=any` into the `next_rest_url` it hands an editor, so the pages it links to
 * could not be followed. Here `any` means what the editors' default means (WordPress' `any`:
 * every status but trash and auto-draft), and any other status sent beside it is added.
 */
export function listStatusFilter(viewer: Viewer, type: PostType, value: unknown): string[] | null {
  const list = splitStatusList(value);
  if (list.length === 0) return null;
  if (!typeCan(viewer, 'edit', type)) return list.length === 1 && list[0] === 'publish' ? list : null;
  return list.every((s) => s === 'any' || isPostStatus(s)) ? list : null;
}

/** The statuses a validated list stands for: `any` expanded to ANY_STATUSES, duplicates dropped. */
export function expandStatuses(list: readonly string[]): string[] {
  const out = new Set<string>();
  for (const s of list) for (const status of s === 'any' ? ANY_STATUSES : [s]) out.add(status);
  return [...out];
}

/** The statuses a list shows when no `status` is given: `any` for editors of the type, else publish. */
export function defaultListStatuses(viewer: Viewer, type: PostType): { statuses: readonly string[]; label: string } {
  return typeCan(viewer, 'edit', type) ? { statuses: ANY_STATUSES, label: 'any' } : { statuses: ['publish'], label: 'publish' };
}

/** What a list shows a viewer: the statuses, the label echoed in `rest_url`, and an author limit. */
export interface ListScope {
  statuses: readonly string[];
  /** `any` for the default of editors, else the statuses joined with ',' */
  label: string;
  /**
   * When set, only records that are published or written by this user id may be listed: the
   * viewer may not read other users' records in some of the requested statuses (COMPAT 11).
   */
  onlyPublishedOrAuthor?: number;
}

/**
 * The visibility of a list (COMPAT decision 11): the statuses asked for (validated by
 * `listStatusFilter`) or the default (`any` for users with the type's edit capability, else
 * `publish`); and, unless the viewer may read other users' records in every one of those statuses
 * (`canReadPost`: editors and administrators), only published records plus the viewer's own. The
 * original showed other users' drafts to contributors (behavior.md §3.4); we do not.
 *
 * @example listScope(contributor, 'tribe_events') // { statuses: ANY_STATUSES, label: 'any', onlyPublishedOrAuthor: contributor.id }
 */
export function listScope(viewer: Viewer, type: PostType, requested?: readonly string[] | null): ListScope {
  const base = requested && requested.length ? { statuses: expandStatuses(requested), label: requested.join(',') } : defaultListStatuses(viewer, type);
  const othersReadable = base.statuses.every((status) => canReadPost(viewer, type, { author_id: -1, status }));
  return othersReadable ? base : { ...base, onlyPublishedOrAuthor: viewer.id };
}
