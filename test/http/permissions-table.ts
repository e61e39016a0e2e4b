/**
 * The expected answers of the permission matrices, computed from a small table that mirrors
 * behavior.md §3 (roles and capabilities, WordPress' meta-capability mapping) and §5 (statuses),
 * plus our documented choices (COMPAT 3 and 11, docs/api.md "Compatibility choices"). Deliberately
 * independent of `src/domain/permissions.ts` and `src/domain/statuses.ts`, so the matrices can
 * catch them being wrong.
 */

export const ROLE_NAMES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];
/** A caller: a role, or anonymous. */
export type Caller = RoleName | 'anonymous';
export const CALLERS: Caller[] = [...ROLE_NAMES, 'anonymous'];

/**
 * behavior.md §3.2: capabilities per role, the same for events, venues and organizers (`*`
 * stands for the type), plus the core ones the term routes use.
 */
const POST_CAPS: Record<Caller, string[]> = {
  administrator: ['read', 'read_private', 'edit', 'edit_others', 'edit_private', 'edit_published', 'delete', 'delete_others', 'delete_private', 'delete_published', 'publish'],
  editor: ['read', 'read_private', 'edit', 'edit_others', 'edit_private', 'edit_published', 'delete', 'delete_others', 'delete_private', 'delete_published', 'publish'],
  author: ['read', 'edit', 'edit_published', 'delete', 'delete_published', 'publish'],
  contributor: ['read', 'edit', 'delete'],
  subscriber: ['read'],
  anonymous: [],
};
/** `manage_categories` (tags' manage_terms): editor and administrator. */
const MANAGE_CATEGORIES: Caller[] = ['administrator', 'editor'];

export function has(caller: Caller, cap: string): boolean {
  return POST_CAPS[caller].includes(cap);
}

const publishedLike = (status: string) => status === 'publish' || status === 'future';

/** WordPress' edit_post / delete_post mapping (behavior.md §3.2 "Meta caps"). */
export function mayWrite(caller: Caller, verb: 'edit' | 'delete', own: boolean, status: string, statusBeforeTrash = 'publish'): boolean {
  if (caller === 'anonymous') return false;
  let needed: string[];
  if (own) needed = publishedLike(status) || (status === 'trash' && publishedLike(statusBeforeTrash)) ? [`${verb}_published`] : [verb];
  else if (publishedLike(status)) needed = [`${verb}_others`, `${verb}_published`];
  else if (status === 'private') needed = [`${verb}_others`, `${verb}_private`];
  else needed = [`${verb}_others`];
  return needed.every((c) => has(caller, c));
}

/** WordPress' read_post: public → everyone; own → read; private → read_private; else edit_post. */
export function mayRead(caller: Caller, own: boolean, status: string): boolean {
  if (status === 'publish') return true;
  if (caller === 'anonymous') return false;
  if (own) return true;
  if (status === 'private') return has(caller, 'read_private');
  return mayWrite(caller, 'edit', false, status);
}

/** What a test expects: a status code, and for errors the error code. */
export interface Expected {
  status: number;
  code?: string;
}

export const FORBIDDEN = 'rest_forbidden';
export const FORBIDDEN_MESSAGE = 'Sorry, you are not allowed to do that.';

/** 401 for anonymous callers, 403 for users (COMPAT 10). */
export function denied(caller: Caller): Expected {
  return { status: caller === 'anonymous' ? 401 : 403, code: FORBIDDEN };
}

/** Creating a record of a post type: the type's edit cap; another author needs edit_others (our choice). */
export function expectCreate(caller: Caller, authorIsOther = false): Expected {
  if (!has(caller, 'edit')) return denied(caller);
  if (authorIsOther && !has(caller, 'edit_others')) return denied(caller);
  return { status: 201 };
}

/**
 * The status a create stores (behavior.md §5, and our choice to scale back `private` too):
 * publishers keep what they send (nothing → publish; publish with a future date → future);
 * others get pending for publish/future/private and draft for nothing.
 */
export function expectStoredStatus(caller: Caller, sent: string | undefined, futureDate = false): string {
  if (has(caller, 'publish')) {
    const s = sent ?? 'publish';
    return s === 'publish' && futureDate ? 'future' : s;
  }
  if (sent === undefined) return 'draft';
  return ['publish', 'future', 'private'].includes(sent) ? 'pending' : sent;
}

/** Updating or deleting an existing record (per-record check, also by slug: COMPAT 3). */
export function expectWrite(caller: Caller, verb: 'edit' | 'delete', own: boolean, status: string, inTrashCode: string): Expected {
  if (!mayWrite(caller, verb, own, status)) return denied(caller);
  if (verb === 'delete') return status === 'trash' ? { status: 410, code: inTrashCode } : { status: 200 };
  return { status: 200 };
}

/**
 * Reading one record. Events: trash is 403 for everyone, `event-no-longer-available` to those who
 * could read it and `event-not-accessible` to the others (docs/api.md); other non-public statuses are
 * 403 `event-not-accessible` without read_post. Venues/organizers: 403 `<kind>-not-accessible`
 * without read_post, no special trash rule.
 */
export function expectRead(caller: Caller, own: boolean, status: string, kind: 'event' | 'venue' | 'organizer'): Expected {
  const readable = mayRead(caller, own, status);
  if (kind === 'event' && status === 'trash') return { status: 403, code: readable ? 'event-no-longer-available' : 'event-not-accessible' };
  return readable ? { status: 200 } : { status: 403, code: `${kind}-not-accessible` };
}

/** WordPress' `any`: every status but trash (and auto-draft). */
export const ANY = ['publish', 'future', 'draft', 'pending', 'private'];

/**
 * Whether a record shows in a list (COMPAT 11): its status is among those asked for (default:
 * `any` for users with the type's edit cap, else publish), and the caller may read it; users who
 * cannot read other users' unpublished records see only published ones plus their own.
 */
export function expectListed(caller: Caller, own: boolean, status: string, asked?: string[]): boolean {
  const statuses = asked ?? (has(caller, 'edit') ? ANY : ['publish']);
  if (!statuses.includes(status)) return false;
  return status === 'publish' || (own && caller !== 'anonymous') || mayRead(caller, false, status);
}

/** A list's `status` parameter: without the edit cap only exactly `publish`; `any` and unknown statuses are 400. */
export function expectListStatusParam(caller: Caller, value: string): Expected {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!has(caller, 'edit')) return list.length === 1 && list[0] === 'publish' ? { status: 200 } : { status: 400, code: 'rest_invalid_param' };
  const known = ['publish', 'future', 'draft', 'pending', 'private', 'trash', 'any'];
  return list.length > 0 && list.every((s) => known.includes(s)) ? { status: 200 } : { status: 400, code: 'rest_invalid_param' };
}

/**
 * Term writes (behavior.md §3.3): `edit_tribe_events` and the taxonomy's manage_terms: categories
 * `publish_tribe_events` (author and up), tags `manage_categories` (editor and up).
 */
export function expectTermWrite(caller: Caller, taxonomy: 'categories' | 'tags', success: number): Expected {
  const manage = taxonomy === 'categories' ? has(caller, 'publish') : MANAGE_CATEGORIES.includes(caller);
  return has(caller, 'edit') && manage ? { status: success } : denied(caller);
}

/** The statuses records are put in for the matrices. */
export const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
