/**
 * Every screen: the app's own (each loaded on first use) and the plug-ins', found with
 * `import.meta.glob('./plugins/*.tsx')` and loaded after the first screen is shown (their chunks
 * stay out of the initial budget); the navigation shows them as they arrive.
 */
import { signal } from '@preact/signals';
import { lazyComponent } from '../components/Lazy';
import type { ScreenDef } from '../lib/screens';
import { boot } from '../lib/session';

const EDITORS = ['administrator', 'editor', 'author', 'contributor'];
const TERM_MANAGERS = ['administrator', 'editor'];

export const coreScreens: ScreenDef[] = [
  { path: '/', nav: { labelKey: 'nav.dashboard', group: 'content', order: 0 }, roles: EDITORS, component: lazyComponent(() => import('./Dashboard').then((m) => m.Dashboard)) },
  { path: '/events', nav: { labelKey: 'nav.events', group: 'content', order: 10 }, roles: EDITORS, component: lazyComponent(() => import('./EventsList').then((m) => m.EventsList)) },
  { path: '/events/new', roles: EDITORS, component: lazyComponent(() => import('./EventEditor').then((m) => m.EventEditor)) },
  { path: '/events/:id', roles: EDITORS, component: lazyComponent(() => import('./EventEditor').then((m) => m.EventEditor)) },
  { path: '/venues', nav: { labelKey: 'nav.venues', group: 'content', order: 20 }, roles: EDITORS, component: lazyComponent(() => import('./Linked').then((m) => m.VenuesList)) },
  { path: '/venues/:id', roles: EDITORS, component: lazyComponent(() => import('./Linked').then((m) => m.VenueEditor)) },
  { path: '/organizers', nav: { labelKey: 'nav.organizers', group: 'content', order: 30 }, roles: EDITORS, component: lazyComponent(() => import('./Linked').then((m) => m.OrganizersList)) },
  { path: '/organizers/:id', roles: EDITORS, component: lazyComponent(() => import('./Linked').then((m) => m.OrganizerEditor)) },
  { path: '/categories', nav: { labelKey: 'nav.categories', group: 'content', order: 40 }, roles: TERM_MANAGERS, component: lazyComponent(() => import('./Terms').then((m) => m.CategoriesList)) },
  { path: '/categories/:id', roles: TERM_MANAGERS, component: lazyComponent(() => import('./Terms').then((m) => m.CategoryEditor)) },
  { path: '/tags', nav: { labelKey: 'nav.tags', group: 'content', order: 50 }, roles: TERM_MANAGERS, component: lazyComponent(() => import('./Terms').then((m) => m.TagsList)) },
  { path: '/tags/:id', roles: TERM_MANAGERS, component: lazyComponent(() => import('./Terms').then((m) => m.TagEditor)) },
];

const pluginModules = import.meta.glob<{ screens: ScreenDef[] }>('./plugins/*.tsx');

/** The plug-ins' screens, once loaded. */
export const pluginScreens = signal<ScreenDef[]>([]);
/** Whether every plug-in module has loaded (before that, an unknown path may be a plug-in's). */
export const pluginsLoaded = signal<boolean>(Object.keys(pluginModules).length === 0);

export async function loadPlugins(): Promise<void> {
  const loaded = await Promise.allSettled(Object.values(pluginModules).map((load) => load()));
  const screens: ScreenDef[] = [];
  for (const r of loaded) {
    // A screen of a feature the server has off (SUBMISSIONS=off, …) does not exist.
    if (r.status === 'fulfilled') screens.push(...(r.value.screens ?? []).filter((s) => s.feature === undefined || boot.features.includes(s.feature)));
    else console.error('admin plug-in failed to load', r.reason);
  }
  pluginScreens.value = screens;
  pluginsLoaded.value = true;
}
