/**
 * Screens: what the router can show. The app's own screens (screens/index.ts) and the plug-ins'
 * (`admin-app/src/screens/plugins/<name>.tsx`, each exporting `screens: ScreenDef[]`) are the same
 * kind of record: a path pattern (`/users/:id`), an optional entry in the navigation (a catalogue
 * key, a group, an order), the WordPress roles that may see it, and a Preact component given the
 * path's parameters.
 *
 * @example
 *   export const screens: ScreenDef[] = [{ path: '/users', nav: { labelKey: 'users.nav', group: 'people', order: 10 }, roles: ['administrator'], component: Users }];
 */
import type { ComponentType } from 'preact';
import { boot, hasRole } from './session';

export type NavGroup = 'content' | 'people' | 'system';

export interface ScreenDef {
  /** e.g. '/users', '/users/:id' (under ADMIN_PATH) */
  path: string;
  nav?: { labelKey: string; group: NavGroup; order: number };
  /** WordPress roles allowed to see it */
  roles: string[];
  /** A feature the server must have on for the screen to exist (`boot.features`: `submissions`, `federation`, `network`). */
  feature?: string;
  /**
   * A feature the signed-in user must have to open the screen (`network`: a network
   * administrator's). Without it the screen exists but is not allowed, as for a role it lacks.
   */
  needs?: string;
  component: ComponentType<{ params: Record<string, string> }>;
}

export const NAV_GROUPS: NavGroup[] = ['content', 'people', 'system'];

/** Every WordPress role that may sign in here. */
export const ALL_ROLES = ['administrator', 'editor', 'author', 'contributor'];

/** The parameters of `path` when it matches `pattern` (`/events/:id`), else null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** The screen for a path: the first whose pattern matches, literal patterns before parameterised ones. */
export function findScreen(screens: ScreenDef[], path: string): { screen: ScreenDef; params: Record<string, string> } | null {
  const ordered = [...screens].sort((a, b) => a.path.split(':').length - b.path.split(':').length);
  for (const screen of ordered) {
    const params = matchPath(screen.path, path);
    if (params) return { screen, params };
  }
  return null;
}

/** Whether the signed-in user may open this screen: one of its roles, and what it `needs`. */
export function mayOpen(screen: Pick<ScreenDef, 'roles' | 'needs'>): boolean {
  return hasRole(screen.roles) && (screen.needs === undefined || boot.features.includes(screen.needs));
}
