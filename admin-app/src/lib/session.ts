/**
 * Who is signed in, and what the server told the page when it served it: the boot data embedded by
 * the admin face (src/admin) as `<script type="application/json" id="admin-boot">` (data, never
 * executed: the face's CSP allows no inline script).
 *
 * @example
 *   if (can('publish_tribe_events')) showPublish();
 *   currentUser.value.roles // ['editor']
 */
import { signal } from '@preact/signals';

export interface CurrentUser {
  id: number;
  name: string;
  roles: string[];
  /** WordPress capabilities the user has (`{ publish_tribe_events: true, … }`). */
  capabilities: Record<string, boolean>;
}

export interface Boot {
  /** The REST root, e.g. `/api` (paths of `api()` are relative to it). */
  restRoot: string;
  /** The REST nonce (`wp_rest`) of the session. */
  nonce: string;
  /** ADMIN_PATH, e.g. `/admin`. */
  adminPath: string;
  /** The locale the server chose (the user's choice cookie, else Accept-Language). */
  locale: string;
  /** Languages the app has catalogues for. */
  locales: string[];
  siteName: string;
  /** The site's time zone (new events start in it). */
  timezone: string;
  /** The site's public URL. */
  siteUrl: string;
  /** The form nonce of the account pages' forms (sign out). */
  formNonce: string;
  /** Optional features the server has on (`submissions`, `federation`): screens that need one are shown only then. */
  features: string[];
  user: CurrentUser;
}

function readBoot(): Boot {
  const el = typeof document === 'undefined' ? null : document.getElementById('admin-boot');
  const fallback: Boot = {
    restRoot: '/api',
    nonce: '',
    adminPath: '/admin',
    locale: 'en',
    locales: ['en', 'fr'],
    siteName: '',
    timezone: 'UTC',
    siteUrl: '',
    formNonce: '',
    features: [],
    user: { id: 0, name: '', roles: [], capabilities: {} },
  };
  if (!el?.textContent) return fallback;
  return { ...fallback, ...(JSON.parse(el.textContent) as Partial<Boot>) };
}

export const boot: Boot = readBoot();

export const currentUser = signal<CurrentUser>(boot.user);

/**
 * The calendar this page's admin works in, when it is not the default one (`/c/north/admin`:
 * `north`; '' at the service's own paths and on a calendar's own host name).
 */
const calendarOfPage = /^\/c\/([a-z0-9-]+)\//.exec(`${boot.adminPath}/`)?.[1] ?? '';

/**
 * The name of what this browser keeps (localStorage) for this calendar's admin: the calendars of one
 * host share its origin, hence its localStorage, and one calendar's unsaved event or place in the
 * log must not come up in another's (an event kept as `new` would fill another calendar's editor).
 * The default calendar's names are as they were, so that what was kept before stays found.
 */
export function keptName(name: string): string {
  return calendarOfPage === '' ? name : `${name}@c/${calendarOfPage}`;
}

/** Whether the current user has the capability. */
export function can(capability: string): boolean {
  return currentUser.value.capabilities[capability] === true;
}

/** Whether the current user has one of the roles. */
export function hasRole(roles: readonly string[]): boolean {
  return currentUser.value.roles.some((r) => roles.includes(r));
}
