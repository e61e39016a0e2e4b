/**
 * The CalDAV face's resources: the two trees (the authenticated one under /dav/, the public one
 * under /dav/public/), what a path names in them (root, principals, a principal, the calendar
 * home, a calendar, an event), and each resource's href.
 *
 * @example
 *   const where = locate('/dav/calendars/events/42.ics'); // { tree: PRIVATE_TREE, s: ['calendars', 'events', '42.ics'] }
 *   const res = await resolve(dav, where.tree, where.s);   // { kind: 'object', cal, id: 42 }
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { calendarSlugOf } from '../web/calendars.js';
import { isAuthenticated, type Viewer } from '../domain/permissions.js';
import type { CalendarRef, Calendars } from './calendars.js';

/** What every part of the face reads: the configuration and the calendars. */
export interface Dav {
  config: Config;
  calendars: Calendars;
}

/** The DAV root every URL of the face is under (the authenticated tree's root). */
export const DAV_ROOT = '/dav';

/** The public tree's root: the calendars as an anonymous visitor reads them, without credentials. */
export const PUBLIC_ROOT = `${DAV_ROOT}/public`;

/**
 * One of the two trees: the authenticated one (credentials required) or the public one
 * (anonymous), as a calendar's URLs name it: `prefix` is the path its URLs start with
 * (`/c/north` for a calendar reached under the service's own host; '' at the root and on a
 * calendar's own host name), which every href it answers with carries.
 */
export interface Tree {
  public: boolean;
  base: string;
  prefix: string;
}
export const PRIVATE_TREE: Tree = { public: false, base: DAV_ROOT, prefix: '' };
export const PUBLIC_TREE: Tree = { public: true, base: PUBLIC_ROOT, prefix: '' };

/** The tree as reached under `prefix` (see `Tree`). */
export function treeUnder(tree: Tree, prefix: string): Tree {
  return prefix === '' ? tree : { public: tree.public, base: `${prefix}${tree.public ? PUBLIC_ROOT : DAV_ROOT}`, prefix };
}

/** The path prefix of the calendar a request named by its path (`/c/north`), or '' (web/calendars.ts took it off the URL). */
export function davPrefixOf(req: FastifyRequest): string {
  const slug = calendarSlugOf(req);
  return slug === undefined ? '' : `/c/${slug}`;
}

/** A resource of the face, from its path. */
export type Resource =
  | { kind: 'root'; href?: string }
  | { kind: 'principals' }
  | { kind: 'principal'; login: string | null }
  | { kind: 'home' }
  | { kind: 'calendar'; cal: CalendarRef }
  | { kind: 'object'; cal: CalendarRef; id: number };

export const principalsHref = (tree: Tree) => `${tree.base}/principals/`;
export const principalHref = (tree: Tree, viewer: Viewer) =>
  !tree.public && isAuthenticated(viewer) ? `${principalsHref(tree)}users/${encodeURIComponent(viewer.login)}/` : `${principalsHref(tree)}anonymous/`;
export const homeHref = (tree: Tree) => `${tree.base}/calendars/`;
export const calendarHref = (tree: Tree, cal: CalendarRef) => `${homeHref(tree)}${encodeURIComponent(cal.key)}/`;
export const objectHref = (tree: Tree, cal: CalendarRef, id: number) => `${calendarHref(tree, cal)}${id}.ics`;

/** An event's file name in a calendar (`42.ics`), as its id; undefined for any other name. */
export function objectIdOf(name: string): number | undefined {
  const m = /^([1-9][0-9]{0,14})\.ics$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The path's segments under the DAV root (decoded), or undefined when it is not under it. */
export function segmentsOf(url: string): string[] | undefined {
  const path = url.split('?')[0]!;
  if (path !== DAV_ROOT && !path.startsWith(`${DAV_ROOT}/`)) return undefined;
  try {
    return path
      .slice(DAV_ROOT.length)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/** The tree a path is in and its segments under that tree's root, or undefined when it is not under the DAV root. */
export function locate(url: string, prefix = ''): { tree: Tree; s: string[] } | undefined {
  const s = segmentsOf(url);
  if (!s) return undefined;
  return s[0] === 'public' ? { tree: treeUnder(PUBLIC_TREE, prefix), s: s.slice(1) } : { tree: treeUnder(PRIVATE_TREE, prefix), s };
}

export async function resolve(dav: Dav, tree: Tree, s: string[]): Promise<Resource | undefined> {
  if (s.length === 0) return { kind: 'root' };
  if (s[0] === 'principals') {
    if (s.length === 1) return { kind: 'principals' };
    if (tree.public) return s.length === 2 && s[1] === 'anonymous' ? { kind: 'principal', login: null } : undefined;
    if (s.length === 3 && s[1] === 'users') return { kind: 'principal', login: s[2]! };
    return undefined;
  }
  if (s[0] !== 'calendars') return undefined;
  if (s.length === 1) return { kind: 'home' };
  const cal = await dav.calendars.resolve(s[1]!);
  if (!cal) return undefined;
  if (s.length === 2) return { kind: 'calendar', cal };
  const m = s.length === 3 ? /^([1-9][0-9]{0,14})\.ics$/.exec(s[2]!) : null;
  if (!m) return undefined;
  return { kind: 'object', cal, id: Number(m[1]) };
}

/**
 * An href (absolute URL or path) as a path under the DAV root, or undefined: under `prefix` (a
 * calendar reached by its path), without it; one outside it is none of this calendar's.
 */
export function hrefPath(dav: Dav, href: string, prefix = ''): string | undefined {
  const text = href.trim();
  let path: string;
  try {
    path = new URL(text, dav.config.siteUrl).pathname;
  } catch {
    return undefined;
  }
  if (prefix === '') return path;
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

/** A resource's href in its tree. */
export function hrefFor(tree: Tree, res: Resource): string {
  switch (res.kind) {
    case 'root':
      return res.href ?? `${tree.base}/`;
    case 'principals':
      return principalsHref(tree);
    case 'principal':
      return res.login === null ? `${principalsHref(tree)}anonymous/` : `${principalsHref(tree)}users/${encodeURIComponent(res.login)}/`;
    case 'home':
      return homeHref(tree);
    case 'calendar':
      return calendarHref(tree, res.cal);
    case 'object':
      return objectHref(tree, res.cal, res.id);
  }
}
