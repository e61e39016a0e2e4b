/**
 * `import tec`, reading the source (the importer in fetch, map and apply): where its
 * calendar API is (`--from` as given, then its `/wp-json`), its canonical REST root (discovery's
 * `Link: rel="https://api.w.org/"`, so that every spelling of the URL is one source in the import
 * map), whether the credentials were honoured, its lists page by page, this service's event index
 * (`calendar/admin/v1/events`) or WordPress' `/wp/v2/tribe_events` for the ids of hidden events,
 * single events and authors' names.
 *
 * @example
 *   const reader = await openTecSource(options, warn);
 *   await reader.forEachPage('venues', 'venues', {}, async (records) => { … });
 */
import { ImportError, checkUrl, createSource, mapLimit, RefusedTargetError, TooLargeError, type Source } from '../source.js';
import type { TecImportOptions } from './options.js';
import { ADMIN_NAMESPACE, type Json } from './map.js';

/** Find the namespace index under the URL given (or under its /wp-json); throws when it is not a TEC API. */
export async function locateApi(source: Source, from: string, namespace: string): Promise<string> {
  const root = checkUrl(from, '--from').href.replace(/\/+$/, '');
  const tried: string[] = [];
  for (const candidate of [root, `${root}/wp-json`]) {
    const url = `${candidate}/${namespace}`;
    try {
      const res = await source.getJson(url, [400, 403, 404, 405, 410]);
      const body = res.body as Json;
      const routes = body && typeof body === 'object' ? Object.keys(body.routes ?? {}) : [];
      if (res.status === 200 && (body.namespace === namespace || routes.some((r) => r.includes(`/${namespace}/events`)))) return candidate;
      tried.push(`${url} answered ${res.status}${res.status === 200 ? ' without the namespace index' : ''}`);
    } catch (err) {
      if (!(err instanceof ImportError) || err instanceof RefusedTargetError || err instanceof TooLargeError || /credentials/.test(err.message)) throw err;
      tried.push(err.message);
    }
  }
  throw new ImportError(
    `${from} is not a The Events Calendar REST API: ${tried.join('; ')}. Give the REST root (e.g. https://example.org/wp-json), and --namespace when the calendar's namespace is not ${namespace}.`,
  );
}

/** The REST root a `Link` header names (`<https://site/wp-json/>; rel="https://api.w.org/"`), if any. */
function discoveredRoot(link: string | null, base: string): string | undefined {
  for (const part of (link ?? '').split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!m || !/rel\s*=\s*"?([^";]*\s)?https:\/\/api\.w\.org\/(\s[^";]*)?"?/.test(m[2]!)) continue;
    try {
      return new URL(m[1]!, base).pathname.replace(/\/+$/, '');
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The canonical REST root of a source, so that every spelling of its URL is one source in
 * the import map: on the origin given (scheme, host and port as URL normalises them), the root path
 * that discovery names: the `Link: rel="https://api.w.org/"` header of the site's home page, else
 * of the namespace index found; kept only when it serves the namespace. Else the root found.
 */
export async function canonicalRoot(source: Source, located: string, namespace: string): Promise<string> {
  const origin = new URL(located).origin;
  const paths: string[] = [];
  try {
    // Through the source's private-address guard, as every request of an import.
    const home = await source.home(`${origin}/`);
    const path = discoveredRoot(home.link, home.url);
    if (path !== undefined && new URL(home.url).origin === origin) paths.push(path);
  } catch {
    // No home page: the namespace index' Link below.
  }
  const index = await source.getJson(`${located}/${namespace}`, [400, 401, 403, 404, 405, 410]).catch(() => undefined);
  const indexed = index ? discoveredRoot(index.headers.get('link'), located) : undefined;
  if (indexed !== undefined) paths.push(indexed);
  for (const path of paths) {
    const root = `${origin}${path}`;
    if (root === located) return root;
    const res = await source.getJson(`${root}/${namespace}`, [400, 401, 403, 404, 405, 410]).catch(() => undefined);
    const body = res?.body as Json | undefined;
    if (res?.status === 200 && body && (body.namespace === namespace || Object.keys(body.routes ?? {}).some((r) => r.includes(`/${namespace}/events`)))) return root;
  }
  return located;
}

/** An answer of the source that may be a failure (its status says). */
export interface Answer {
  status: number;
  body: unknown;
}

/** The source of an import: its REST root, its calendar namespace and how to read them. */
export class TecReader {
  readonly source: Source;
  /** the REST root URL as located (before the canonical one was found) */
  readonly located: string;
  /** the canonical REST root */
  readonly root: string;
  /** the calendar namespace's URL */
  readonly ns: string;
  private readonly perPage: number;
  private readonly concurrency: number;
  private readonly warn: (message: string) => void;

  constructor(source: Source, located: string, root: string, ns: string, perPage: number, concurrency: number, warn: (message: string) => void) {
    this.source = source;
    this.located = located;
    this.root = root;
    this.ns = ns;
    this.perPage = perPage;
    this.concurrency = concurrency;
    this.warn = warn;
  }

  get authenticated(): boolean {
    return this.source.authenticated;
  }

  /**
   * Every record of a list, page by page: `concurrency` pages are read at once and handed to
   * `each` in order before the next ones are read, so an interrupted import has written whole
   * pages (and memory stays bounded).
   */
  async forEachPage(path: string, key: string, query: Record<string, string>, each: (records: Json[], total: number) => Promise<void>): Promise<void> {
    const url = (page: number) => `${this.ns}/${path}?${new URLSearchParams({ ...query, per_page: String(this.perPage), page: String(page) })}`;
    const read = async (page: number): Promise<{ records: Json[]; totalPages: number; total: number }> => {
      const res = await this.source.getJson(url(page), [400, 404]);
      if (res.status !== 200) return { records: [], totalPages: 0, total: 0 }; // past the last page
      const body = res.body as Json;
      if (!Array.isArray(body[key])) throw new ImportError(`${url(page)} did not answer a list of ${key} (is this a The Events Calendar API?)`);
      return { records: body[key], totalPages: Number(body.total_pages ?? res.headers.get('x-wp-totalpages') ?? 1) || 1, total: Number(body.total ?? body[key].length) };
    };
    const first = await read(1);
    await each(first.records, first.total);
    for (let page = 2; page <= first.totalPages; page += this.concurrency) {
      const batch = Array.from({ length: Math.min(this.concurrency, first.totalPages - page + 1) }, (_, i) => page + i);
      for (const p of await mapLimit(batch, this.concurrency, read)) await each(p.records, first.total);
    }
  }

  /** Every record of a list (small lists: terms). */
  async readAll(path: string, key: string, query: Record<string, string>): Promise<Json[]> {
    const out: Json[] = [];
    await this.forEachPage(path, key, query, async (records) => void out.push(...records));
    return out;
  }

  /** One event (`accept`: statuses answered instead of thrown). */
  async event(id: number, accept: number[]): Promise<Answer> {
    return this.source.getJson(`${this.ns}/events/${id}`, accept);
  }

  /** Events by id, `concurrency` at once; undefined for those that do not answer 200. */
  async events(ids: number[]): Promise<Array<Json | undefined>> {
    return mapLimit(ids, this.concurrency, async (id) => {
      const res = await this.event(id, [400, 403, 404, 410]);
      return res.status === 200 ? (res.body as Json) : undefined;
    });
  }

  /** WordPress' `/wp/v2/users/ID` of an author (public for authors of published posts), when it answers. */
  async author(sid: string): Promise<Answer | undefined> {
    return this.source.getJson(`${this.root}/wp/v2/users/${encodeURIComponent(sid)}`, [400, 401, 403, 404]).catch(() => undefined);
  }

  /** Every entry of the source's event index when it offers one the credentials may read; undefined otherwise. */
  async readEventIndex(): Promise<Json[] | undefined> {
    if (!this.source.authenticated) return undefined;
    const offered = await this.source.getJson(`${this.root}/${ADMIN_NAMESPACE}`, [400, 401, 403, 404, 405, 410]).catch(() => undefined);
    const routes = offered?.status === 200 && offered.body && typeof offered.body === 'object' ? Object.keys((offered.body as Json).routes ?? {}) : [];
    if (!routes.includes(`/${ADMIN_NAMESPACE}/events`)) return undefined;
    const url = (page: number) => `${this.root}/${ADMIN_NAMESPACE}/events?per_page=500&page=${page}`;
    const first = await this.source.getJson(url(1), [400, 401, 403, 404]);
    if (first.status !== 200 || !Array.isArray(first.body)) {
      this.warn(`${url(1)} answered ${first.status}: the user may not read the event index (editors and administrators may); looking for hidden events elsewhere`);
      return undefined;
    }
    const all = [...(first.body as Json[])];
    const pages = Number(first.headers.get('x-wp-totalpages') ?? 1) || 1;
    for (let page = 2; page <= pages; page++) all.push(...((await this.source.getJson(url(page))).body as Json[]));
    return all;
  }

  /**
   * The ids of every event WordPress' own API lists (`/wp/v2/tribe_events`, every status the
   * credentials may read); undefined, with a warning, when it does not answer.
   */
  async wordpressEventIds(): Promise<number[] | undefined> {
    const root = this.root;
    const source = this.source;
    const wpUrl = (page: number) => `${root}/wp/v2/tribe_events?${new URLSearchParams({ status: source.authenticated ? 'any' : 'publish', per_page: '100', page: String(page), _fields: 'id' })}`;
    const first = await source.getJson(wpUrl(1), [400, 401, 403, 404]).catch((err: Error) => ({ status: 0, headers: new Headers(), body: err.message }));
    if (first.status === 200 && Array.isArray(first.body)) {
      const pages = Number(first.headers.get('x-wp-totalpages') ?? 1) || 1;
      const all = [...(first.body as Json[])];
      for (let page = 2; page <= pages; page++) all.push(...((await source.getJson(wpUrl(page))).body as Json[]));
      return all.map((r) => Number(r.id));
    }
    this.warn(
      `${root}/wp/v2/tribe_events did not list event ids (${first.status || String(first.body)})${source.authenticated ? ` and ${root}/${ADMIN_NAMESPACE}/events is not offered` : ''}: events hidden from listings (hide_from_listings) cannot be found and were not imported${source.authenticated ? '' : ' (an instance of this service lists them to authenticated editors: give --user and --app-password)'}`,
    );
    return undefined;
  }
}

/**
 * Open the source of `options.from`: its calendar API located, its canonical REST root found, and
 * the credentials checked (`onLocated` runs once the root is known, before). WordPress answers 401 to wrong ones; this service (like the original's
 * recorded behaviour) treats them as anonymous, which the `Allow` header of the event list shows.
 */
export async function openTecSource(options: TecImportOptions, warn: (message: string) => void, onLocated: (located: string, root: string) => Promise<void>): Promise<TecReader> {
  const source = createSource({
    user: options.user,
    password: options.password,
    retries: options.retries,
    retryDelayMs: options.retryDelayMs,
    allowPrivate: options.allowPrivate,
    maxBytes: options.maxBytes,
  });
  const located = await locateApi(source, options.from, options.namespace);
  // One source however its URL is spelled: the REST root discovery names, on the origin given.
  const root = await canonicalRoot(source, located, options.namespace);
  const ns = `${root}/${options.namespace}`;
  await onLocated(located, root);
  const probe = await source.getJson(`${ns}/events?per_page=1`);
  if (source.authenticated && !(probe.headers.get('allow') ?? '').includes('POST')) {
    throw new ImportError(
      `${ns}/events answered as if no credentials were sent (its Allow header has no POST): the login or application password is wrong, the user may not edit events, or the host strips the Authorization header before it reaches WordPress. Without credentials, leave out --user and --app-password (only public records are imported).`,
    );
  }
  return new TecReader(source, located, root, ns, options.perPage ?? 50, options.concurrency, warn);
}
