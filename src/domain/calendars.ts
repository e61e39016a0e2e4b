/**
 * Many calendars in one service: the one rule of which calendar the work at hand is of, each
 * calendar's configuration, people's roles per calendar, and the network's administration.
 *
 * - **Which calendar.** A request names its calendar by its path (`/c/{slug}/…`) or its host name
 *   (a calendar's own domain); anything else is the default calendar's (id 1), whose URLs are those
 *   of a single-calendar installation. `enter` runs the request's work in that calendar: every
 *   statement on calendar data keeps to it (store/calendar-scope.ts), what the store keeps is kept
 *   per calendar (store/handle.ts `slotsOf`), and `config` answers with that calendar's settings.
 * - **Configuration.** `config` (the one given to every service and face) reads, in a calendar, the
 *   calendar's own: the installation's environment, then its URL (`SITE_URL` + `/c/{slug}`, or its
 *   host), its name, then the settings its administrators changed in the app. Each calendar's is
 *   made when a request first enters it and kept for a few seconds (`RUNTIME_TTL_MS`) in a bounded
 *   cache, so that every instance sees a change (a setting, a suspension) within that time.
 * - **Slugs.** A calendar's slug names its URLs and its fediverse actor. A slug it leaves is kept as
 *   a former slug (its old actor answers, moved, and its followers are sent a Move: federation),
 *   until a calendar takes it: any calendar may, and it is then that calendar's alone.
 * - **People.** An account is one login across the service. Its role in the default calendar is
 *   `users.role`; an administrator there is a network administrator, an administrator of every
 *   calendar (WordPress multisite's super admin). Elsewhere its role is the one `calendar_roles`
 *   gives, or none: signed in, it may do what an anonymous reader may. An application password
 *   limited to one calendar proves nobody in the others.
 *
 * @example
 *   const runtime = await calendars.resolve({ slug: 'north' });
 *   await calendars.enter(runtime!, () => services.events.list(query)); // north's events only
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { CALENDAR_SETTINGS, applyCalendarSettings, parseSetting, type Config } from '../config.js';
import type { Store } from '../store/db.js';
import { isUniqueViolation, writeTransaction } from '../store/changes.js';
import { readCalendarSettings, storedEverywhere } from '../store/calendar-settings.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow, inCalendar } from '../store/calendar-scope.js';
import * as calendarsStore from '../store/calendars.js';
import type { CalendarRow } from '../store/calendars.js';
import { findUserByLogin } from '../store/users.js';
import { ANONYMOUS, isRole, viewerOf, type Viewer } from './permissions.js';
import { apiError, invalidParams } from './errors.js';
import type { MediaService } from './media/index.js';
import { QUOTA_MAX, QUOTA_NAMES, cappedHistoryDays, parseQuotas, type CalendarQuotas, type QuotaName, type Quotas } from './quotas.js';

export type { CalendarRow };
export { DEFAULT_CALENDAR_ID, calendarIdNow };

/** How long a calendar's configuration is kept before it is read again (settings, status, name). */
export const RUNTIME_TTL_MS = 2000;
/** Calendars whose configuration is kept at once (the most recently entered). */
export const RUNTIMES_KEPT = 256;

/** A calendar as a request runs in it. */
export interface CalendarRuntime {
  calendar: CalendarRow;
  /** the calendar's configuration (the installation's, with its URL, name and own settings) */
  config: Config;
  /** its own quotas (those it does not name are the installation's: domain/quotas.ts) */
  quotas: Quotas;
  /** when it was read (ms) */
  readAt: number;
}

/** A calendar as the network's administration shows it. */
export interface CalendarView {
  id: number;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  host: string | null;
  url: string;
  quotas: Record<string, number>;
  created: string;
  default: boolean;
}

/** Slugs: lower-case letters, digits and hyphens, 1 to 60, not one the service's own paths take. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/;
const RESERVED = new Set(['default', 'api', 'wp-json', 'admin', 'c', 'dav', 'mcp', 'events', 'static', 'assets', 'media', 'embed', 'submit']);
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$/;

const frame = new AsyncLocalStorage<CalendarRuntime>();
const nowGmt = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

/**
 * Run `fn` as the default calendar's work, whatever calendar the work at hand is of: its
 * configuration is the installation's own (a listener of the default calendar's changes, called
 * from another calendar's request, updates the default calendar's configuration, not that one's).
 */
export function asDefaultCalendar<T>(fn: () => T): T {
  return frame.exit(() => inCalendar(DEFAULT_CALENDAR_ID, fn));
}

/**
 * Put a calendar's stored settings in its configuration. Its name (`calendarName`, another
 * calendar's than the default one) is its site's name, unless the environment or its administrators
 * gave another: the settings put back the installation's default name.
 */
export function applyOwnSettings(config: Config, stored: Record<string, string>, calendarName: string | undefined): void {
  applyCalendarSettings(config, stored);
  const nameSource = config.sources?.siteName;
  if (calendarName !== undefined && stored.SITE_NAME === undefined && nameSource !== 'environment' && nameSource !== 'flag') config.siteName = calendarName;
}

/** The calendar the work at hand runs in (undefined: the default one, outside any request of another). */
export function runtimeNow(): CalendarRuntime | undefined {
  return frame.getStore();
}

/**
 * The configuration every service and face is given: in a calendar other than the default one,
 * that calendar's (reads and writes alike: a settings change made there is that calendar's).
 */
export function calendarConfig(base: Config): Config {
  return new Proxy(base, {
    get(target, prop) {
      const runtime = frame.getStore();
      return Reflect.get(runtime ? runtime.config : target, prop);
    },
    set(target, prop, value) {
      const runtime = frame.getStore();
      return Reflect.set(runtime ? runtime.config : target, prop, value);
    },
  });
}

export interface CalendarService {
  /**
   * The calendar a request names by its path's slug or its host name (undefined: none such).
   * `formerToo`: a slug no calendar has now names the calendar that had it before, if one did (a
   * fediverse actor's former identifier; the calendar's pages are not under it).
   */
  resolve(by: { slug?: string; host?: string; formerToo?: boolean }): Promise<CalendarRuntime | undefined>;
  /** Run `fn` as work of this calendar. */
  enter<T>(runtime: CalendarRuntime, fn: () => T): T;
  /** Run `fn` as work of the calendar with this id (jobs, the CLI); throws when there is none. */
  within<T>(id: number, fn: () => Promise<T>): Promise<T>;
  list(options?: { page?: number; perPage?: number; search?: string; ids?: readonly number[] }): Promise<{ calendars: CalendarView[]; total: number }>;
  get(idOrSlug: number | string): Promise<CalendarView>;
  create(input: { slug: string; name: string; host?: string | null; quotas?: Record<string, number> }): Promise<CalendarView>;
  update(idOrSlug: number | string, patch: { slug?: string; name?: string; host?: string | null; status?: 'active' | 'suspended'; quotas?: Record<string, number> }): Promise<CalendarView>;
  /** Delete the calendar and every record of it, then the files of its images that no other calendar uses. */
  remove(idOrSlug: number | string): Promise<void>;
  /** The viewer as the calendar of the work at hand sees it (its role there; an application password of another calendar: nobody). */
  viewerHere(viewer: Viewer, options?: { appPasswordCalendar?: number | null }): Promise<Viewer>;
  /** An account's role in a calendar ('' : none); the default calendar's is `users.role`. */
  roleOf(userId: number, idOrSlug: number | string): Promise<string>;
  /** Give an account a role in a calendar other than the default one ('' removes it). */
  setRole(login: string, idOrSlug: number | string, role: string): Promise<void>;
  /** The people with a role in a calendar other than the default one. */
  members(idOrSlug: number | string): Promise<Array<{ user_id: number; login: string; role: string }>>;
  /**
   * Whether the viewer is a network administrator (an administrator of the default calendar),
   * whichever calendar the request is in: a calendar's own administrator is not one.
   */
  isNetworkAdministrator(viewer: Viewer): Promise<boolean>;
  /** The calendars an account may enter with a role, the default one first. */
  calendarsOf(viewer: Viewer): Promise<Array<{ calendar: CalendarView; role: string }>>;
  /** The calendar's URL (its site's base). */
  urlOf(calendar: CalendarRow): string;
  /** Limit an application password (by its uuid) to one calendar: it proves nobody in the others. */
  limitAppPassword(uuid: string, idOrSlug: number | string): Promise<void>;
  /**
   * A calendar setting across the calendars (the change log's pruning reads each calendar's
   * SYNC_HISTORY_DAYS): the installation's value, which every calendar without one of its own has,
   * and each calendar's own where it differs. A setting pinned in the environment or by a flag is
   * the installation's everywhere.
   */
  settingEverywhere<K extends keyof Config>(key: K): Promise<{ installation: Config[K]; own: Map<number, Config[K]> }>;
  /**
   * The days of sync history across the calendars, for the change log's pruning: as
   * `settingEverywhere('syncHistoryDays')`, with each value longer than the installation's capped
   * by its calendar's `sync_history_days` quota (its own, else the installation's).
   */
  historyEverywhere(): Promise<{ installation: number; own: Map<number, number> }>;
  /** Forget what is kept of a calendar (after a change to it). */
  forget(id: number): void;
  /**
   * Whether a host name is a calendar's own, as known now (read again every `RUNTIME_TTL_MS`, in the
   * background): synchronous, so that the default calendar's requests cost no look-up.
   */
  isCalendarHost(host: string): boolean;
}

/**
 * The viewer as the calendar of the work at hand sees it: in the default calendar, as the account
 * is; a network administrator (an administrator of the default calendar) administers every
 * calendar; elsewhere the role `calendar_roles` gives, or none (signed in, with no capability). An
 * application password limited to another calendar proves nobody here; limited to this one, it
 * proves its viewer for this calendar only (`calendarOnly`: it administers no network).
 */
export async function viewerHere(db: Store['db'], viewer: Viewer, options: { appPasswordCalendar?: number | null } = {}): Promise<Viewer> {
  const id = calendarIdNow();
  if (viewer.id <= 0) return viewer;
  if (options.appPasswordCalendar != null && options.appPasswordCalendar !== id) return ANONYMOUS;
  const here = await roleHere(db, viewer, id);
  return options.appPasswordCalendar != null && here.id > 0 ? { ...here, calendarOnly: id } : here;
}

async function roleHere(db: Store['db'], viewer: Viewer, id: number): Promise<Viewer> {
  if (id === DEFAULT_CALENDAR_ID || viewer.role === 'administrator') return viewer;
  const role = await calendarsStore.roleIn(db, viewer.id, id);
  if (!role || !isRole(role)) return { id: viewer.id, login: viewer.login, role: null, caps: NO_CAPS };
  return { ...viewerOf({ id: viewer.id, login: viewer.login, role }), roleIn: id };
}
const NO_CAPS: ReadonlySet<string> = new Set<string>();

export function createCalendarService(pristine: Config, store: Store, quotas?: Pick<CalendarQuotas, 'defaultChanged'>, media?: Pick<MediaService, 'calendarFilesRemoval'>): CalendarService {
  const db = store.db;
  const kept = new Map<number, CalendarRuntime>();
  let hosts: ReadonlySet<string> = new Set();
  let hostsReadAt = 0;
  let hostsReading = false;
  const readHosts = () => {
    if (hostsReading) return;
    hostsReading = true;
    hostsReadAt = Date.now();
    void db
      .selectFrom('calendars')
      .select('host')
      .where('host', 'is not', null)
      .execute()
      .then(
        (rows) => {
          hosts = new Set(rows.map((r) => r.host!));
        },
        () => undefined,
      )
      .finally(() => {
        hostsReading = false;
      });
  };

  // The installation's own SITE_URL: the configuration given answers, within a calendar, with that calendar's.
  const siteUrl = pristine.siteUrl;
  const urlOf = (calendar: CalendarRow): string => {
    if (Number(calendar.id) === DEFAULT_CALENDAR_ID) return siteUrl;
    if (calendar.host) return `${new URL(siteUrl).protocol}//${calendar.host}`;
    return `${siteUrl}/c/${calendar.slug}`;
  };

  const view = (row: CalendarRow): CalendarView => ({
    id: Number(row.id),
    slug: row.slug,
    name: row.name,
    status: row.status === 'suspended' ? 'suspended' : 'active',
    host: row.host,
    url: urlOf(row),
    quotas: parseQuotas(row.quotas),
    created: row.created_gmt,
    default: Number(row.id) === DEFAULT_CALENDAR_ID,
  });

  async function load(row: CalendarRow): Promise<CalendarRuntime> {
    const id = Number(row.id);
    const stored = await inCalendar(id, () => readCalendarSettings(db));
    const config: Config = { ...pristine, siteUrl: urlOf(row), siteName: row.name, sources: { ...pristine.sources } };
    applyOwnSettings(config, stored, row.name);
    return { calendar: { ...row, id }, config, quotas: parseQuotas(row.quotas), readAt: Date.now() };
  }

  /** The calendar's kept configuration while it is fresh and its row unchanged, else read anew; kept either way. */
  async function runtimeOf(row: CalendarRow): Promise<CalendarRuntime> {
    const known = kept.get(Number(row.id));
    const fresh =
      known !== undefined && Date.now() - known.readAt < RUNTIME_TTL_MS && (['slug', 'name', 'status', 'host', 'quotas'] as const).every((column) => known.calendar[column] === row[column]);
    return keep(fresh ? known : await load(row));
  }

  function keep(runtime: CalendarRuntime): CalendarRuntime {
    kept.delete(runtime.calendar.id);
    if (kept.size >= RUNTIMES_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(runtime.calendar.id, runtime);
    return runtime;
  }

  // A slug or id no calendar can have is looked for nowhere: a NUL byte or a number past the
  // column's range would be the database's error (PostgreSQL), not a calendar not found.
  const bySlug = (slug: string) => (SLUG.test(slug) ? calendarsStore.findCalendarBySlug(db, slug) : Promise.resolve(undefined));
  const byId = (id: number) => (Number.isSafeInteger(id) && id > 0 && id <= 2 ** 31 - 1 ? calendarsStore.findCalendarById(db, id) : Promise.resolve(undefined));

  async function find(idOrSlug: number | string): Promise<CalendarRow> {
    // Text is a slug first: a calendar made before slugs needed a letter may have digits alone
    // for one (`2`), and the command line's `calendars delete 2` means that calendar, not id 2.
    const row = typeof idOrSlug === 'number' ? await byId(idOrSlug) : ((await bySlug(idOrSlug)) ?? (/^\d+$/.test(idOrSlug) ? await byId(Number(idOrSlug)) : undefined));
    if (!row) throw apiError('calendar_not_found');
    return row;
  }

  function checkSlug(slug: unknown): string {
    if (typeof slug !== 'string' || !SLUG.test(slug)) throw invalidParams({ slug: 'A calendar slug is 1 to 60 lower-case letters, digits and hyphens, starting and ending with a letter or digit.' });
    // Digits alone read as a calendar's id wherever a calendar is named by either (the command
    // line, the network's proposals and follows): `set-role 2 …` would act on calendar id 2.
    if (/^\d+$/.test(slug)) throw invalidParams({ slug: 'A calendar slug needs a letter: digits alone read as a calendar’s ID.' });
    if (RESERVED.has(slug)) throw invalidParams({ slug: `"${slug}" is taken by the service's own paths.` });
    // A calendar's slug is its fediverse actor's identifier; the default calendar's is FEDERATION_HANDLE.
    if (slug === pristine.federationHandle.toLowerCase()) throw invalidParams({ slug: `"${slug}" is the default calendar’s fediverse handle (FEDERATION_HANDLE).` });
    return slug;
  }
  function checkName(name: unknown): string {
    if (typeof name !== 'string' || name.trim() === '' || name.length > 200) throw invalidParams({ name: 'A calendar name is 1 to 200 characters.' });
    return name.trim();
  }
  function checkHost(host: unknown): string | null {
    if (host === null || host === undefined || host === '') return null;
    if (typeof host !== 'string' || !HOST.test(host.toLowerCase())) throw invalidParams({ host: 'A host name such as events.example.org.' });
    const lower = host.toLowerCase();
    if (lower === new URL(siteUrl).host) throw invalidParams({ host: 'That host name is the default calendar’s.' });
    return lower;
  }
  const quotaNames: ReadonlySet<string> = new Set(QUOTA_NAMES);
  function checkQuotas(quotas: unknown): Record<string, number> {
    if (quotas === undefined) return {};
    if (!quotas || typeof quotas !== 'object' || Array.isArray(quotas)) throw invalidParams({ quotas: 'An object of quota names and whole numbers.' });
    // The failure names its quota in `details.quotas.data.quota`, so that a form shows it by its field.
    const refuse = (quota: string, message: string) => invalidParams({ quotas: { message, detail: { code: 'rest_invalid_param', message, data: { status: 400, quota } } } });
    const out: Record<string, number> = {};
    for (const [name, given] of Object.entries(quotas)) {
      if (!quotaNames.has(name)) throw refuse(name, `Unknown quota "${name}" (${QUOTA_NAMES.join(', ')}).`);
      // A form sends its numbers as text; a number past 2^53 (1e300, 2^53 + 1) has already lost
      // digits when parsed, so it is refused rather than kept as some other number.
      const value = typeof given === 'string' && /^\d{1,16}$/.test(given) ? Number(given) : given;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw refuse(name, `The quota "${name}" must be a whole number, 0 or more.`);
      const max = QUOTA_MAX[name as QuotaName];
      if (max !== undefined && value > max) throw refuse(name, `The quota "${name}" is at most ${max}.`);
      out[name] = value;
    }
    return out;
  }

  const service: CalendarService = {
    async resolve({ slug, host, formerToo }) {
      let row = slug !== undefined ? await bySlug(slug) : host !== undefined ? await calendarsStore.findCalendarByHost(db, host.toLowerCase()) : undefined;
      if (!row && slug !== undefined && formerToo && SLUG.test(slug)) row = await calendarsStore.findCalendarByFormerSlug(db, slug);
      return row ? runtimeOf(row) : undefined;
    },
    enter(runtime, fn) {
      return inCalendar(runtime.calendar.id, () => frame.run(runtime, fn));
    },
    async within(id, fn) {
      // Out of the frame of the calendar at hand: the default calendar's configuration, links and
      // quotas are the installation's own, not those of the calendar that asks (a proposal to it).
      if (id === DEFAULT_CALENDAR_ID) return asDefaultCalendar(fn);
      const row = await byId(id);
      if (!row) throw apiError('calendar_not_found');
      return service.enter(await runtimeOf(row), fn);
    },
    async list({ page = 1, perPage = 50, search, ids } = {}) {
      const { rows, total } = await calendarsStore.listCalendars(db, { offset: (page - 1) * perPage, limit: perPage, ...(search ? { search } : {}), ...(ids ? { ids } : {}) });
      return { calendars: rows.map(view), total };
    },
    async get(idOrSlug) {
      return view(await find(idOrSlug));
    },
    async create(input) {
      const slug = checkSlug(input.slug);
      const name = checkName(input.name);
      const host = checkHost(input.host);
      const quotas = checkQuotas(input.quotas);
      try {
        const row = await calendarsStore.insertCalendar(db, { slug, name, host, quotas: JSON.stringify(quotas), created_gmt: nowGmt() });
        hostsReadAt = 0;
        return view(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw apiError('calendar_exists');
        throw error;
      }
    },
    async update(idOrSlug, patch) {
      const row = await find(idOrSlug);
      const id = Number(row.id);
      const changes: Partial<Pick<CalendarRow, 'slug' | 'name' | 'status' | 'host' | 'quotas'>> = {};
      if (patch.slug !== undefined) {
        if (id === DEFAULT_CALENDAR_ID) throw invalidParams({ slug: 'The default calendar keeps its slug (its URLs are the service’s own).' });
        changes.slug = checkSlug(patch.slug);
      }
      if (patch.name !== undefined) changes.name = checkName(patch.name);
      if (patch.host !== undefined) {
        if (id === DEFAULT_CALENDAR_ID && patch.host) throw invalidParams({ host: 'The default calendar answers on SITE_URL.' });
        changes.host = checkHost(patch.host);
      }
      if (patch.status !== undefined) {
        if (patch.status !== 'active' && patch.status !== 'suspended') throw invalidParams({ status: 'active or suspended.' });
        if (id === DEFAULT_CALENDAR_ID && patch.status === 'suspended') throw invalidParams({ status: 'The default calendar cannot be suspended.' });
        changes.status = patch.status;
      }
      if (patch.quotas !== undefined) changes.quotas = JSON.stringify(checkQuotas(patch.quotas));
      try {
        const updated = await calendarsStore.updateCalendar(db, id, changes, nowGmt());
        kept.delete(id);
        if (id === DEFAULT_CALENDAR_ID && updated) quotas?.defaultChanged(parseQuotas(updated.quotas));
        hostsReadAt = 0;
        return view(updated!);
      } catch (error) {
        if (isUniqueViolation(error)) throw apiError('calendar_exists');
        throw error;
      }
    },
    async remove(idOrSlug) {
      const row = await find(idOrSlug);
      const id = Number(row.id);
      if (id === DEFAULT_CALENDAR_ID) throw apiError('calendar_default');
      // Its image files go too (those no other calendar uses), once its rows are gone.
      const removeFiles = await media?.calendarFilesRemoval(id);
      await writeTransaction(db, (trx) => calendarsStore.deleteCalendarRows(trx, id));
      // Answers kept of it (replayed below the server while the log does not move) go with it.
      await calendarsStore.noteCalendarChanged(db, id);
      kept.delete(id);
      await removeFiles?.();
    },
    viewerHere: (viewer, options) => viewerHere(db, viewer, options),
    async roleOf(userId, idOrSlug) {
      const row = await find(idOrSlug);
      if (Number(row.id) === DEFAULT_CALENDAR_ID) {
        const user = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
        return user?.role ?? '';
      }
      return calendarsStore.roleIn(db, userId, Number(row.id));
    },
    async setRole(login, idOrSlug, role) {
      const row = await find(idOrSlug);
      if (Number(row.id) === DEFAULT_CALENDAR_ID) throw invalidParams({ calendar: 'Roles in the default calendar are the accounts’ own (users set-role).' });
      if (role !== '' && !isRole(role)) throw invalidParams({ role: 'administrator, editor, author, contributor, subscriber, or empty to remove.' });
      const user = await findUserByLogin(db, login);
      if (!user) throw invalidParams({ login: 'No user has that login.' });
      await calendarsStore.setRoleIn(db, Number(user.id), Number(row.id), role);
    },
    async members(idOrSlug) {
      const row = await find(idOrSlug);
      const roles = await calendarsStore.rolesOf(db, Number(row.id));
      if (roles.length === 0) return [];
      const users = await db
        .selectFrom('users')
        .select(['id', 'login'])
        .where(
          'id',
          'in',
          roles.map((r) => r.user_id),
        )
        .execute();
      const logins = new Map(users.map((u) => [Number(u.id), u.login]));
      return roles.map((r) => ({ user_id: Number(r.user_id), login: logins.get(Number(r.user_id)) ?? '', role: r.role }));
    },
    async isNetworkAdministrator(viewer) {
      // Elsewhere than the default calendar the viewer's role may be that calendar's own: the
      // account's own role (the default calendar's) decides.
      if (viewer.id <= 0 || viewer.role !== 'administrator' || viewer.calendarOnly !== undefined) return false;
      if (calendarIdNow() === DEFAULT_CALENDAR_ID) return true;
      const user = await db.selectFrom('users').select('role').where('id', '=', viewer.id).executeTakeFirst();
      return user?.role === 'administrator';
    },
    async calendarsOf(viewer) {
      if (viewer.id <= 0) return [];
      // A password limited to one calendar: that one, with the role it proved there.
      if (viewer.calendarOnly !== undefined) {
        const only = await calendarsStore.findCalendarById(db, viewer.calendarOnly);
        return only ? [{ calendar: view(only), role: viewer.role ?? '' }] : [];
      }
      const defaultRow = await calendarsStore.findCalendarById(db, DEFAULT_CALENDAR_ID);
      const out: Array<{ calendar: CalendarView; role: string }> = [];
      const homeRole = (await db.selectFrom('users').select('role').where('id', '=', viewer.id).executeTakeFirst())?.role ?? '';
      if (defaultRow) out.push({ calendar: view(defaultRow), role: homeRole });
      if (homeRole === 'administrator') {
        const { rows } = await calendarsStore.listCalendars(db, { offset: 0, limit: 500 });
        for (const row of rows) if (Number(row.id) !== DEFAULT_CALENDAR_ID) out.push({ calendar: view(row), role: 'administrator' });
        return out;
      }
      const mine = await calendarsStore.calendarsOfUser(db, viewer.id);
      if (mine.length === 0) return out;
      const { rows } = await calendarsStore.listCalendars(db, { offset: 0, limit: 500, ids: mine.map((m) => Number(m.calendar_id)) });
      const roles = new Map(mine.map((m) => [Number(m.calendar_id), m.role]));
      for (const row of rows) out.push({ calendar: view(row), role: roles.get(Number(row.id)) ?? '' });
      return out;
    },
    urlOf,
    async limitAppPassword(uuid, idOrSlug) {
      const row = await find(idOrSlug);
      await calendarsStore.limitAppPassword(db, uuid, Number(row.id));
    },
    async settingEverywhere<K extends keyof Config>(key: K) {
      const setting = CALENDAR_SETTINGS.find((s) => s.key === key);
      if (!setting) throw new Error(`${String(key)} is not a calendar setting`);
      const source = pristine.sources?.[key];
      if (source === 'environment' || source === 'flag') return { installation: pristine[key], own: new Map<number, Config[K]>() };
      // As applyCalendarSettings reads them: the declared default, unless the calendar stored its own.
      const installation = parseSetting(setting, setting.defaultText) as Config[K];
      const own = new Map<number, Config[K]>();
      for (const [id, text] of await storedEverywhere(db, setting.env)) {
        try {
          const value = parseSetting(setting, text) as Config[K];
          if (value !== installation) own.set(id, value);
        } catch {
          // A value that does not parse is in force nowhere (applyCalendarSettings skips it too).
        }
      }
      return { installation, own };
    },
    async historyEverywhere() {
      const history = await service.settingEverywhere('syncHistoryDays');
      const longer = [...history.own].filter(([, days]) => days > history.installation).map(([id]) => id);
      if (longer.length === 0) return history;
      const own = new Map(history.own);
      const { rows } = await calendarsStore.listCalendars(db, { offset: 0, limit: longer.length, ids: longer });
      for (const row of rows) {
        const id = Number(row.id);
        own.set(id, cappedHistoryDays(own.get(id)!, parseQuotas(row.quotas).sync_history_days ?? pristine.calendarQuotaSyncHistoryDays));
      }
      return { installation: history.installation, own };
    },
    forget(id) {
      kept.delete(id);
      hostsReadAt = 0;
    },
    isCalendarHost(host) {
      if (Date.now() - hostsReadAt >= RUNTIME_TTL_MS) readHosts();
      return hosts.has(host);
    },
  };
  return service;
}
