/**
 * Roles, capabilities and the per-record checks of the original (WordPress roles with The Events
 * Calendar's capabilities, behavior.md §3.2). Pure functions of (viewer, record).
 *
 * @example
 *   const editor = viewerOf({ id: 2, login: 'ed', role: 'editor' });
 *   can(editor, 'edit_others_tribe_events') // true
 *   canEditPost(contributor, 'tribe_events', { author_id: contributor.id, status: 'publish' }) // false
 */
import type { PostType } from '../store/schema.js';

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

/** The capability suffix of each post type (`edit_tribe_events`, `publish_tribe_venues`, …). */
export const CAPABILITY_TYPE: Record<PostType, string> = {
  tribe_events: 'tribe_events',
  tribe_venue: 'tribe_venues',
  tribe_organizer: 'tribe_organizers',
};

const FULL_POST_CAPS = ['read_private_', 'edit_', 'edit_others_', 'edit_private_', 'edit_published_', 'delete_', 'delete_others_', 'delete_private_', 'delete_published_', 'publish_'];
const AUTHOR_POST_CAPS = ['edit_', 'edit_published_', 'delete_', 'delete_published_', 'publish_'];
const CONTRIBUTOR_POST_CAPS = ['edit_', 'delete_'];

function postCaps(prefixes: string[]): string[] {
  const out: string[] = [];
  for (const type of Object.values(CAPABILITY_TYPE)) for (const p of prefixes) out.push(p + type);
  return out;
}

/** WordPress core capabilities this service uses, per role. */
const CORE_CAPS: Record<Role, string[]> = {
  administrator: ['read', 'edit_posts', 'publish_posts', 'manage_categories', 'upload_files', 'unfiltered_html', 'edit_others_posts', 'list_users'],
  editor: ['read', 'edit_posts', 'publish_posts', 'manage_categories', 'upload_files', 'unfiltered_html', 'edit_others_posts'],
  author: ['read', 'edit_posts', 'publish_posts', 'upload_files'],
  contributor: ['read', 'edit_posts'],
  subscriber: ['read'],
};

const ROLE_CAPS: Record<Role, ReadonlySet<string>> = {
  administrator: new Set([...CORE_CAPS.administrator, ...postCaps(FULL_POST_CAPS)]),
  editor: new Set([...CORE_CAPS.editor, ...postCaps(FULL_POST_CAPS)]),
  author: new Set([...CORE_CAPS.author, ...postCaps(AUTHOR_POST_CAPS)]),
  contributor: new Set([...CORE_CAPS.contributor, ...postCaps(CONTRIBUTOR_POST_CAPS)]),
  subscriber: new Set(CORE_CAPS.subscriber),
};

/** Who is asking: an authenticated user, or anonymous (id 0, no capabilities). */
export interface Viewer {
  id: number;
  login: string;
  role: Role | null;
  caps: ReadonlySet<string>;
  /**
   * The calendar an application password limited to one calendar proved this viewer in: its role
   * there holds, but it acts for no other calendar (it administers no network).
   */
  calendarOnly?: number;
  /**
   * The calendar whose own role list (`calendar_roles`) gave this viewer its role: an administrator
   * there runs that calendar, not the accounts every calendar shares.
   */
  roleIn?: number;
}

export const ANONYMOUS: Viewer = Object.freeze({ id: 0, login: '', role: null, caps: new Set<string>() });

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** A viewer for a stored user. */
export function viewerOf(user: { id: number; login: string; role: string }): Viewer {
  const role = isRole(user.role) ? user.role : 'subscriber';
  return { id: user.id, login: user.login, role, caps: ROLE_CAPS[role] };
}

export function isAuthenticated(viewer: Viewer): boolean {
  return viewer.id > 0;
}

/**
 * Whether a search by this viewer leaves password-protected records out, as WordPress does for a
 * visitor who is not signed in: a visitor, and an account with no role in the calendar at hand (one
 * login across the service is a stranger to a calendar it has no part in, and a search would tell
 * a protected record's hidden content word by word). In the default calendar every account has a
 * role, so there it is the original's rule.
 */
export function searchesAsVisitor(viewer: Viewer): boolean {
  return !isAuthenticated(viewer) || viewer.role === null;
}

/**
 * Whether this viewer manages accounts, which are one login across every calendar: every user,
 * their roles, passwords, application passwords, invitations and sessions. Only an administrator
 * whose role is the account's own (a network administrator, in whatever calendar it asks), and
 * never through an application password limited to one calendar: otherwise a calendar's
 * administrator could take over the accounts of another.
 */
export function managesAccounts(viewer: Viewer): boolean {
  return viewer.id > 0 && viewer.role === 'administrator' && viewer.roleIn === undefined && viewer.calendarOnly === undefined;
}

/**
 * Whether this viewer may change its own credentials and account (e-mail, password, application
 * passwords, sessions): any signed-in account, but not through an application password limited to
 * one calendar, which would otherwise mint itself an unlimited one or take over the account.
 */
export function managesOwnAccount(viewer: Viewer): boolean {
  return viewer.id > 0 && viewer.calendarOnly === undefined;
}

/** Primitive capability check. */
export function can(viewer: Viewer, cap: string): boolean {
  return viewer.caps.has(cap);
}

/** Type-level capability, e.g. typeCan(v, 'edit', 'tribe_venue') checks `edit_tribe_venues`. */
export function typeCan(viewer: Viewer, action: 'edit' | 'delete' | 'publish' | 'read_private' | 'edit_others', type: PostType): boolean {
  return viewer.caps.has(`${action}_${CAPABILITY_TYPE[type]}`);
}

/** The fields of a record the checks look at. */
export interface OwnedRecord {
  author_id: number;
  status: string;
  pre_trash_status?: string;
}

const PUBLIC_STATUSES = new Set(['publish']);

/**
 * WordPress' `map_meta_cap` for `edit_post` / `delete_post` (behavior.md §3.2): the primitive
 * capabilities needed, all of them. Own records: `*_published_*` when published or scheduled (or
 * trashed from there), else `edit_*`/`delete_*` (core asks nothing more for one's own private
 * record). Other users' records: `*_others_*`, plus `*_published_*` when published or scheduled,
 * or `*_private_*` when private.
 */
function mapEditLike(viewer: Viewer, verb: 'edit' | 'delete', type: PostType, post: OwnedRecord): string[] {
  const t = CAPABILITY_TYPE[type];
  const published = post.status === 'publish' || post.status === 'future';
  if (viewer.id > 0 && post.author_id === viewer.id) {
    if (published) return [`${verb}_published_${t}`];
    if (post.status === 'trash') {
      const before = post.pre_trash_status ?? '';
      return before === 'publish' || before === 'future' ? [`${verb}_published_${t}`] : [`${verb}_${t}`];
    }
    return [`${verb}_${t}`];
  }
  const caps = [`${verb}_others_${t}`];
  if (published) caps.push(`${verb}_published_${t}`);
  else if (post.status === 'private') caps.push(`${verb}_private_${t}`);
  return caps;
}

/** WordPress `edit_post` meta capability. */
export function canEditPost(viewer: Viewer, type: PostType, post: OwnedRecord): boolean {
  if (viewer.id === 0) return false;
  return mapEditLike(viewer, 'edit', type, post).every((c) => viewer.caps.has(c));
}

/** WordPress `delete_post` meta capability. */
export function canDeletePost(viewer: Viewer, type: PostType, post: OwnedRecord): boolean {
  if (viewer.id === 0) return false;
  return mapEditLike(viewer, 'delete', type, post).every((c) => viewer.caps.has(c));
}

/**
 * WordPress `read_post`: published records are public; own records are readable by their author;
 * private ones need `read_private_*`; other statuses (draft, pending, future, trash) need `edit_post`.
 */
export function canReadPost(viewer: Viewer, type: PostType, post: OwnedRecord): boolean {
  if (PUBLIC_STATUSES.has(post.status)) return true;
  if (viewer.id === 0) return false;
  if (post.author_id === viewer.id) return true;
  if (post.status === 'private') return typeCan(viewer, 'read_private', type);
  return canEditPost(viewer, type, post);
}

/**
 * Whether the viewer may attribute a record of this type to the user `authorId` (the `author`
 * write field). Our choice, stricter than the original (which lets anyone who passes the route
 * check name any existing user, behavior.md §3.3): naming yourself, or sending nothing, is always
 * fine; naming someone else needs `edit_others_*` of the type, as WordPress core's own posts
 * controller requires. Routes answer 403 `rest_forbidden` otherwise (docs/api.md "Compatibility choices").
 *
 * @example canAssignAuthor(author, 'tribe_events', otherUserId) // false
 */
export function canAssignAuthor(viewer: Viewer, type: PostType, authorId: number | null | undefined): boolean {
  if (authorId === null || authorId === undefined) return true;
  if (viewer.id > 0 && Number(authorId) === viewer.id) return true;
  return typeCan(viewer, 'edit_others', type);
}

/**
 * Whether the viewer may create a record of this type attributed to `authorId` (the `author`
 * write field; absent = the viewer): the type's `edit_*` capability and {@link canAssignAuthor}.
 * The permission of `POST /events`, `/venues` and `/organizers`, and of every inline venue or
 * organizer an event write creates (the same rule, so the same 403 `rest_forbidden`).
 *
 * @example canCreatePost(author, 'tribe_venue', adminId) // false
 */
export function canCreatePost(viewer: Viewer, type: PostType, authorId: unknown): boolean {
  return typeCan(viewer, 'edit', type) && canAssignAuthor(viewer, type, authorId === null || authorId === undefined ? authorId : Number(authorId));
}

/** The taxonomy capabilities of the original (behavior.md §3.2). */
export function canManageTerms(viewer: Viewer, taxonomy: 'tribe_events_cat' | 'post_tag'): boolean {
  if (!typeCan(viewer, 'edit', 'tribe_events')) return false;
  return taxonomy === 'tribe_events_cat' ? typeCan(viewer, 'publish', 'tribe_events') : can(viewer, 'manage_categories');
}

/** Whether the viewer may assign terms of the taxonomy to events. */
export function canAssignTerms(viewer: Viewer, taxonomy: 'tribe_events_cat' | 'post_tag'): boolean {
  return taxonomy === 'tribe_events_cat' ? typeCan(viewer, 'edit', 'tribe_events') : can(viewer, 'edit_posts');
}
