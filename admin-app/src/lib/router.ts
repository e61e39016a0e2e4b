/**
 * The router: the History API under ADMIN_PATH. `path` is the app path (after ADMIN_PATH, starting
 * with '/'), `query` its search parameters. Guards (an editor with unsaved changes) are asked before
 * any navigation, the browser's Back button included, and `beforeunload` covers reloads and leaving.
 *
 * @example
 *   navigate('/events/42');
 *   const stop = addGuard(() => (dirty ? t('editor.leave') : null));
 */
import { signal } from '@preact/signals';
import { boot } from './session';

const base = boot.adminPath.replace(/\/+$/, '');

function appPath(pathname: string): string {
  const rest = pathname.startsWith(base) ? pathname.slice(base.length) : pathname;
  return rest === '' ? '/' : rest;
}

export const path = signal<string>(typeof location === 'undefined' ? '/' : appPath(location.pathname));
export const query = signal<URLSearchParams>(new URLSearchParams(typeof location === 'undefined' ? '' : location.search));

/** A guard returns a question to ask (navigation goes on only if the user agrees) or null. */
type Guard = () => string | null;
const guards = new Set<Guard>();

export function addGuard(guard: Guard): () => void {
  guards.add(guard);
  return () => guards.delete(guard);
}

function allowed(): boolean {
  for (const g of guards) {
    const question = g();
    if (question && !window.confirm(question)) return false;
  }
  return true;
}

/** The URL of an app path. */
export function href(to: string): string {
  return base + (to.startsWith('/') ? to : '/' + to);
}

/** Go to an app path (with its query). `replace` rewrites the current history entry. */
export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): boolean {
  if (!options.force && !allowed()) return false;
  const url = new URL(href(to), location.origin);
  if (options.replace) history.replaceState(null, '', url.pathname + url.search);
  else history.pushState(null, '', url.pathname + url.search);
  path.value = appPath(url.pathname);
  query.value = new URLSearchParams(url.search);
  return true;
}

/** Change the query of the current path (filters, paging) without a new history entry. */
export function setQuery(values: Record<string, string | number | undefined | null>): void {
  const next = new URLSearchParams(query.value);
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === null || v === '') next.delete(k);
    else next.set(k, String(v));
  }
  const search = next.toString();
  history.replaceState(null, '', href(path.value) + (search ? `?${search}` : ''));
  query.value = next;
}

let current = typeof location === 'undefined' ? '' : location.pathname + location.search;

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    if (!allowed()) {
      history.pushState(null, '', current);
      return;
    }
    path.value = appPath(location.pathname);
    query.value = new URLSearchParams(location.search);
    current = location.pathname + location.search;
  });
  path.subscribe(() => {
    current = location.pathname + location.search;
  });
  window.addEventListener('beforeunload', (e) => {
    for (const g of guards)
      if (g()) {
        e.preventDefault();
        e.returnValue = '';
        return;
      }
  });
}
