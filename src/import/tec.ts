/**
 * `events-calendar import tec --from URL`: a whole calendar through The Events Calendar's REST API
 * (or this service's, which speaks the same): categories and tags (parents first), venues,
 * organizers, then events in every status the credentials can read, over all dates. Ids and
 * slugs are kept when free and mapped otherwise; authors become users without a password (or
 * `--author`); statuses, publication and modification dates, time zones, costs, flags, links and
 * images (as URL records) are kept.
 *
 * Issue 25: recurring events from another instance of this service arrive as series (rules,
 * occurrence ids, exceptions); events hidden from listings are found through its event index
 * (`calendar/admin/v1/events`, when offered) or WordPress' `/wp/v2`; the import map keys on the
 * canonical REST root that discovery names, so every spelling of the source's URL is one source.
 *
 * Every write goes through the domain services as an administrator (validation, permissions,
 * change log); the ids wanted are handed to the store through the import context, and the import
 * map row of each record is written in the record's own transaction, so an interrupted import
 * resumes by skipping what it already wrote (unchanged fingerprint) and a later run updates what
 * changed at the source (upsert by source and source id).
 *
 * @example
 *   const report = await importTec(services, admin, { from: 'https://site/wp-json', namespace: 'tribe/events/v1', … });
 */
import { createHash } from 'node:crypto';
import type { Services } from '../domain/services.js';
import type { Viewer } from '../domain/permissions.js';
import { ApiError } from '../domain/errors.js';
import type { EventInput } from '../domain/events/index.js';
import type { Executor } from '../store/schema.js';
import { writeTransaction } from '../store/changes.js';
import { withImportContext } from '../store/import-context.js';
import { findMapping, mappingsOf, putMapping, renameSource } from '../store/import-map.js';
import { occurrenceOf, occurrencesOf } from '../store/recurrence.js';
import * as postsStore from '../store/posts.js';
import * as linkedStore from '../store/linked-posts.js';
import * as termsStore from '../store/terms.js';
import * as usersStore from '../store/users.js';
import { checkUrl, createSource, ImportError, mapLimit, RefusedTargetError, type Source } from './source.js';
import { ImportReport, type ImportHooks } from './report.js';
import { proParentOf, proRecurrence } from './tec/pro.js';

export interface TecImportOptions {
  /** the source's REST root (https://site/wp-json) */
  from: string;
  /** the calendar's namespace there */
  namespace: string;
  user?: string;
  password?: string;
  /** map every author to this local login instead of creating users */
  author?: string;
  /** role of the users created for authors */
  authorRole: string;
  dryRun: boolean;
  /** pages fetched at once */
  concurrency: number;
  retries: number;
  retryDelayMs: number;
  perPage?: number;
  /** read from loopback, private and reserved addresses too (`--allow-private`) */
  allowPrivate?: boolean;
}

type Json = Record<string, any>;
/** `series`: a TEC Pro recurring event (its parent's id) imported here as a series (issue 25). */
type Kind = 'category' | 'tag' | 'venue' | 'organizer' | 'event' | 'user' | 'series';

const ZERO_DATE = '0000-00-00 00:00:00';
/** The list window: all dates (the default window ends 24 months ahead). */
const ALL_DATES = { start_date: '1900-01-01 00:00:00', end_date: '2200-12-31 23:59:59' };

/** This service's administration namespace, where it offers its event index (issue 25). */
const ADMIN_NAMESPACE = 'calendar/admin/v1';

const fingerprint = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
const reason = (err: unknown) => (err instanceof ApiError ? `${err.code}: ${err.message}${(err.data as Json).params ? ' ' + JSON.stringify((err.data as Json).params) : ''}` : (err as Error).message);

/** Find the namespace index under the URL given (or under its /wp-json); throws when it is not a TEC API. */
async function locateApi(source: Source, from: string, namespace: string): Promise<string> {
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
      if (!(err instanceof ImportError) || err instanceof RefusedTargetError || /credentials/.test(err.message)) throw err;
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
 * The canonical REST root of a source (issue 25), so that every spelling of its URL is one source in
 * the import map: on the origin given (scheme, host and port as URL normalises them), the root path
 * that discovery names: the `Link: rel="https://api.w.org/"` header of the site's home page, else
 * of the namespace index found; kept only when it serves the namespace. Else the root found.
 */
async function canonicalRoot(source: Source, located: string, namespace: string): Promise<string> {
  const origin = new URL(located).origin;
  const paths: string[] = [];
  try {
    // Through the source's private-address guard, as every request of an import (issue 24).
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

export async function importTec(services: Services, admin: Viewer, options: TecImportOptions, hooks: ImportHooks = {}): Promise<ImportReport> {
  const report = new ImportReport();
  const warn = (m: string) => {
    report.warnings.push(m);
    hooks.onWarning?.(m);
  };
  const source = createSource({ user: options.user, password: options.password, retries: options.retries, retryDelayMs: options.retryDelayMs, allowPrivate: options.allowPrivate });
  const located = await locateApi(source, options.from, options.namespace);
  // One source however its URL is spelled (issue 25): the REST root discovery names, on the origin given.
  const root = await canonicalRoot(source, located, options.namespace);
  const ns = `${root}/${options.namespace}`;
  const sourceKey = `tec:${ns}`;
  report.source = sourceKey;
  const perPage = options.perPage ?? 50;
  const db = services.store.db;
  // Maps written before (keyed by the URL as typed) move to the canonical key.
  const legacyKey = `tec:${located}/${options.namespace}`;
  if (legacyKey !== sourceKey && !options.dryRun) await writeTransaction(db, (trx) => renameSource(trx, legacyKey, sourceKey));

  // Credentials: WordPress answers 401 to wrong ones; this service (like the original's recorded
  // behaviour) treats them as anonymous, which the `Allow` header of the event list shows.
  const probe = await source.getJson(`${ns}/events?per_page=1`);
  if (source.authenticated && !(probe.headers.get('allow') ?? '').includes('POST')) {
    throw new ImportError(
      `${ns}/events answered as if no credentials were sent (its Allow header has no POST): the login or application password is wrong, the user may not edit events, or the host strips the Authorization header before it reaches WordPress. Without credentials, leave out --user and --app-password (only public records are imported).`,
    );
  }

  // What earlier runs imported from this source.
  const mapped = new Map<string, { local: number; fingerprint: string }>();
  for (const key of options.dryRun && legacyKey !== sourceKey ? [legacyKey, sourceKey] : [sourceKey])
    for (const m of await mappingsOf(db, key)) mapped.set(`${m.kind}:${m.source_id}`, { local: Number(m.local_id), fingerprint: m.fingerprint });
  const localOf = (kind: Kind, id: unknown) => mapped.get(`${kind}:${id}`)?.local;
  const remember = async (trx: Executor, kind: Kind, sourceId: string, local: number, print: string) => {
    await putMapping(trx, { source: sourceKey, kind, source_id: sourceId, local_id: local, fingerprint: print });
  };
  const noted = (kind: Kind, sourceId: string, local: number, print: string) => mapped.set(`${kind}:${sourceId}`, { local, fingerprint: print });
  /** Records this run created (a TEC Pro parent created as an event, then made a series, counts once). */
  const createdNow = new Set<string>();

  /**
   * Every record of a list, page by page: `concurrency` pages are read at once and handed to
   * `each` in order before the next ones are read, so an interrupted import has written whole
   * pages (and memory stays bounded).
   */
  async function forEachPage(path: string, key: string, query: Record<string, string>, each: (records: Json[], total: number) => Promise<void>): Promise<void> {
    const url = (page: number) => `${ns}/${path}?${new URLSearchParams({ ...query, per_page: String(perPage), page: String(page) })}`;
    const read = async (page: number): Promise<{ records: Json[]; totalPages: number; total: number }> => {
      const res = await source.getJson(url(page), [400, 404]);
      if (res.status !== 200) return { records: [], totalPages: 0, total: 0 }; // past the last page
      const body = res.body as Json;
      if (!Array.isArray(body[key])) throw new ImportError(`${url(page)} did not answer a list of ${key} (is this a The Events Calendar API?)`);
      return { records: body[key], totalPages: Number(body.total_pages ?? res.headers.get('x-wp-totalpages') ?? 1) || 1, total: Number(body.total ?? body[key].length) };
    };
    const first = await read(1);
    await each(first.records, first.total);
    for (let page = 2; page <= first.totalPages; page += options.concurrency) {
      const batch = Array.from({ length: Math.min(options.concurrency, first.totalPages - page + 1) }, (_, i) => page + i);
      for (const p of await mapLimit(batch, options.concurrency, read)) await each(p.records, first.total);
    }
  }

  /** Every record of a list (small lists: terms). */
  async function readAll(path: string, key: string, query: Record<string, string>): Promise<Json[]> {
    const out: Json[] = [];
    await forEachPage(path, key, query, async (records) => void out.push(...records));
    return out;
  }

  /**
   * Create or update one record: skipped when the fingerprint matches what was imported last and
   * the local record still exists.
   */
  async function upsert(
    kind: Kind,
    record: Json,
    exists: (local: number) => Promise<boolean>,
    create: (print: string) => Promise<number | undefined>,
    update: (local: number, print: string) => Promise<void>,
  ): Promise<number | undefined> {
    const sourceId = String(record.id);
    const print = fingerprint(record);
    const known = mapped.get(`${kind}:${sourceId}`);
    try {
      const present = known !== undefined && (await exists(known.local));
      if (present && known.fingerprint === print) {
        report.count(kind, 'skipped');
        return known.local;
      }
      if (options.dryRun) {
        report.count(kind, present ? 'updated' : 'created');
        return known?.local;
      }
      if (present) {
        await update(known.local, print);
        noted(kind, sourceId, known.local, print);
        report.count(kind, 'updated');
        return known.local;
      }
      const local = await create(print);
      if (local === undefined) return undefined;
      noted(kind, sourceId, local, print);
      report.count(kind, 'created');
      createdNow.add(`${kind}:${sourceId}`);
      if (local !== Number(record.id)) report.remap(kind, sourceId, local, 'the id is taken here');
      return local;
    } catch (err) {
      if (err instanceof ImportError && !(err as { recordLevel?: boolean }).recordLevel) throw err;
      report.fail(kind, sourceId, reason(err));
      return undefined;
    }
  }

  /** A record-level failure (the record is reported failed, the import goes on). */
  const recordFailure = (message: string) => Object.assign(new ImportError(message), { recordLevel: true });

  // ---- authors -------------------------------------------------------------------------------
  let authorOverride: number | undefined;
  if (options.author !== undefined) {
    const user = await usersStore.findUserByLogin(db, options.author);
    if (!user) throw new ImportError(`--author ${options.author}: no such user here (create it with events-calendar users add)`);
    authorOverride = Number(user.id);
  }
  const authorsDone = new Map<string, number>();
  async function authorOf(sourceAuthor: unknown): Promise<number> {
    if (authorOverride !== undefined) return authorOverride;
    const sid = String(sourceAuthor ?? '0');
    if (sid === '0' || sid === '') return admin.id;
    const done = authorsDone.get(sid) ?? localOf('user', sid);
    if (done !== undefined && (await usersStore.findUserById(db, done))) return done;
    if (options.dryRun) {
      report.count('user', 'created');
      authorsDone.set(sid, admin.id);
      return admin.id;
    }
    // WordPress names its authors at /wp/v2/users/ID (public for authors of published posts).
    let login = `author-${sid}`;
    let name = login;
    const who = await source.getJson(`${root}/wp/v2/users/${encodeURIComponent(sid)}`, [400, 401, 403, 404]).catch(() => undefined);
    if (who?.status === 200 && typeof (who.body as Json).slug === 'string') {
      login =
        String((who.body as Json).slug)
          .replace(/[^A-Za-z0-9_.@ -]/g, '-')
          .slice(0, 60) || login;
      name = String((who.body as Json).name ?? login);
    }
    const existing = await usersStore.findUserByLogin(db, login);
    let local: number;
    if (existing) {
      local = Number(existing.id);
      report.count('user', 'skipped');
      if (local !== Number(sid)) report.remap('user', sid, local, `user ${login} exists here`);
    } else {
      const user = await withImportContext({ wanted: { user: Number(sid) } }, () => services.users.add({ login, role: options.authorRole, password: '', noPassword: true, name }));
      local = Number(user.id);
      report.count('user', 'created');
      if (local !== Number(sid)) report.remap('user', sid, local, 'the id is taken here');
    }
    await writeTransaction(db, (trx) => remember(trx, 'user', sid, local, ''));
    authorsDone.set(sid, local);
    return local;
  }

  /** Publication and modification dates (and what the services do not write) as at the source. */
  async function keepMeta(trx: Executor, id: number, r: Json, extra: Record<string, unknown> = {}) {
    const patch: Record<string, unknown> = { ...extra };
    if (typeof r.date === 'string' && r.date) patch.date_local = r.date;
    if (typeof r.date_utc === 'string' && r.date_utc) patch.date_gmt = r.date_utc;
    if (typeof r.modified === 'string' && r.modified) patch.modified_local = r.modified;
    if (typeof r.modified_utc === 'string' && r.modified_utc) patch.modified_gmt = r.modified_utc;
    await postsStore.updatePost(trx, id, patch);
  }

  // ---- terms ---------------------------------------------------------------------------------
  async function importTerm(kind: 'category' | 'tag', t: Json): Promise<number | undefined> {
    const service = kind === 'category' ? services.categories : services.tags;
    const parentOf = () => (kind === 'category' && Number(t.parent) > 0 ? (localOf('category', t.parent) ?? 0) : undefined);
    return upsert(
      kind,
      t,
      async (local) => (await termsStore.findTerm(db, service.taxonomy, local)) !== undefined,
      async (print) => {
        try {
          return await withImportContext({ wanted: { term: Number(t.id) } }, () =>
            writeTransaction(db, async (trx) => {
              const id = await service.create(trx, {
                name: String(t.name),
                slug: String(t.slug ?? ''),
                description: String(t.description ?? ''),
                ...(parentOf() !== undefined ? { parent: parentOf() } : {}),
              });
              await remember(trx, kind, String(t.id), id, print);
              return id;
            }),
          );
        } catch (err) {
          // A term of that name exists here under the same parent: the source's maps to it.
          if (!(err instanceof ApiError) || !/^term_exists/.test(err.code)) throw err;
          const existing = Number((err.data as Json).term_id);
          await writeTransaction(db, (trx) => remember(trx, kind, String(t.id), existing, print));
          noted(kind, String(t.id), existing, print);
          report.count(kind, 'skipped');
          report.remap(kind, String(t.id), existing, `a ${kind} named "${t.name}" exists here`);
          return undefined;
        }
      },
      async (local, print) => {
        const term = (await termsStore.findTerm(db, service.taxonomy, local))!;
        const input: Record<string, unknown> = { name: String(t.name), description: String(t.description ?? '') };
        if (term.slug !== t.slug && !(await termsStore.isTermSlugTaken(db, service.taxonomy, String(t.slug), local))) input.slug = String(t.slug);
        const parent = parentOf();
        if (parent !== undefined && parent !== local) input.parent = parent;
        await withImportContext({ wanted: {}, inTransaction: (trx) => remember(trx, kind, String(t.id), local, print) }, () => service.update(term, input));
      },
    );
  }

  // ---- venues and organizers -----------------------------------------------------------------
  async function importLinked(kind: 'venue' | 'organizer', v: Json): Promise<number | undefined> {
    const service = kind === 'venue' ? services.venues : services.organizers;
    const input = async (): Promise<Record<string, unknown>> => {
      const out: Record<string, unknown> = { [kind]: String(v[kind] ?? ''), description: String(v.description ?? ''), status: String(v.status ?? 'publish') };
      const fields = kind === 'venue' ? ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'] : ['phone', 'website', 'email'];
      for (const f of fields) out[f] = String(v[f] ?? '');
      if (kind === 'venue') {
        out.show_map = Boolean(v.show_map);
        out.show_map_link = Boolean(v.show_map_link);
      }
      out.image = v.image && typeof v.image === 'object' && v.image.url ? String(v.image.url) : '';
      out.author = await authorOf(v.author);
      return out;
    };
    const extra = () => ({ excerpt: stripAutop(String(v.excerpt ?? '')) });
    const details = () => (kind === 'venue' ? { geo_lat: v.geo_lat ?? null, geo_lng: v.geo_lng ?? null } : {});
    return upsert(
      kind,
      v,
      async (local) => (await service.findById(db, local)) !== undefined,
      async (print) => {
        const fields = { ...(await input()), slug: String(v.slug ?? '').replace(/__trashed$/, '') };
        return withImportContext({ wanted: { post: Number(v.id), ...(v.image?.id ? { image: Number(v.image.id) } : {}) } }, () =>
          writeTransaction(db, async (trx) => {
            const id = await service.create(trx, fields, admin, { exact: true });
            await keepMeta(trx, id, v, extra());
            await linkedStore.updateLinkedDetails(trx, kind, id, details());
            await remember(trx, kind, String(v.id), id, print);
            return id;
          }),
        );
      },
      async (local, print) => {
        const fields = await input();
        await withImportContext({ wanted: v.image?.id ? { image: Number(v.image.id) } : {} }, () =>
          writeTransaction(db, async (trx) => {
            const record = (await service.findById(trx, local))!;
            await service.update(trx, record, fields, admin);
            const slug = String(v.slug ?? '').replace(/__trashed$/, '');
            const slugPatch = slug && slug !== record.slug && !(await postsStore.isSlugTaken(trx, service.postType, slug, local)) ? { slug } : {};
            await keepMeta(trx, local, v, { ...extra(), ...slugPatch });
            await linkedStore.updateLinkedDetails(trx, kind, local, details());
            await remember(trx, kind, String(v.id), local, print);
          }),
        );
      },
    );
  }

  // ---- events --------------------------------------------------------------------------------
  async function refOf(kind: 'venue' | 'organizer' | 'category' | 'tag', embedded: Json): Promise<number> {
    const local = localOf(kind, embedded.id);
    if (local !== undefined) return local;
    // Not in the lists read before (e.g. not visible there): import it from the embedded copy.
    const created = kind === 'venue' || kind === 'organizer' ? await importLinked(kind, embedded) : await importTerm(kind, embedded);
    const now = created ?? localOf(kind, embedded.id);
    if (now === undefined) throw recordFailure(`its ${kind} ${embedded.id} could not be imported`);
    return now;
  }

  function costInput(e: Json): unknown {
    const d = e.cost_details as Json | undefined;
    const values: string[] = Array.isArray(d?.values) ? d!.values.map(String) : [];
    // Labels come slugged in `values` ("Free" → "free"): then the displayed cost is the input.
    if (values.length === 0 || values.some((v) => !/^-?\d+(\.\d+)?$/.test(v))) {
      return String(e.cost ?? '')
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#0?39;/g, "'");
    }
    const symbol = String(d?.currency_symbol ?? '');
    return values.map((v) => (d?.currency_position === 'postfix' ? `${v}${symbol}` : `${symbol}${v}`));
  }

  async function eventInput(e: Json): Promise<EventInput> {
    const venue = e.venue && typeof e.venue === 'object' && !Array.isArray(e.venue) && e.venue.id ? await refOf('venue', e.venue) : 0;
    const organizers: number[] = [];
    for (const o of Array.isArray(e.organizer) ? e.organizer : []) organizers.push(await refOf('organizer', o));
    const categories: number[] = [];
    for (const c of Array.isArray(e.categories) ? e.categories : []) categories.push(await refOf('category', c));
    const tags: number[] = [];
    for (const t of Array.isArray(e.tags) ? e.tags : []) tags.push(await refOf('tag', t));
    const input: EventInput = {
      author: await authorOf(e.author),
      title: String(e.title ?? ''),
      description: String(e.description ?? ''),
      excerpt: String(e.excerpt ?? ''),
      slug: String(e.slug ?? '').replace(/__trashed$/, ''),
      status: String(e.status ?? 'publish'),
      timezone: String(e.timezone ?? ''),
      all_day: Boolean(e.all_day),
      start_date: String(e.start_date),
      end_date: String(e.end_date),
      image: e.image && typeof e.image === 'object' && e.image.url ? String(e.image.url) : '',
      cost: costInput(e),
      show_map: Boolean(e.show_map),
      show_map_link: Boolean(e.show_map_link),
      hide_from_listings: Boolean(e.hide_from_listings),
      sticky: Boolean(e.sticky),
      featured: Boolean(e.featured),
      venue,
      organizer: organizers,
      categories,
      tags,
    };
    // A website equal to the permalink is the original's fallback for "none".
    if (typeof e.website === 'string' && e.website !== e.url) input.website = e.website;
    if (typeof e.date_utc === 'string' && e.date_utc !== ZERO_DATE) input.date_utc = e.date_utc;
    return input;
  }

  async function importEvent(e: Json): Promise<void> {
    await upsert(
      'event',
      e,
      async (local) => await services.events.isEventId(local),
      async (print) => {
        const input = await eventInput(e);
        const created = await withImportContext(
          {
            wanted: { post: Number(e.id), ...(e.image?.id ? { image: Number(e.image.id) } : {}) },
            inTransaction: async (trx, record) => {
              const id = Number((record as Json).id);
              await keepMeta(trx, id, e);
              await remember(trx, 'event', String(e.id), id, print);
            },
          },
          () => services.events.create(admin, input),
        );
        return Number(created.id);
      },
      async (local, print) => {
        const input = await eventInput(e);
        const record = (await services.events.findById(local))!;
        if (input.website === undefined && record.website !== null) input.website = '';
        await withImportContext(
          {
            wanted: e.image?.id ? { image: Number(e.image.id) } : {},
            inTransaction: async (trx) => {
              await keepMeta(trx, local, e);
              await remember(trx, 'event', String(e.id), local, print);
            },
          },
          () => services.events.update(admin, record, input),
        );
      },
    );
  }

  // ---- this service's event index (issue 25) -----------------------------------------------------
  /** Every entry of the source's event index when it offers one the credentials may read; undefined otherwise. */
  async function readEventIndex(): Promise<Json[] | undefined> {
    if (!source.authenticated) return undefined;
    const offered = await source.getJson(`${root}/${ADMIN_NAMESPACE}`, [400, 401, 403, 404, 405, 410]).catch(() => undefined);
    const routes = offered?.status === 200 && offered.body && typeof offered.body === 'object' ? Object.keys((offered.body as Json).routes ?? {}) : [];
    if (!routes.includes(`/${ADMIN_NAMESPACE}/events`)) return undefined;
    const url = (page: number) => `${root}/${ADMIN_NAMESPACE}/events?per_page=500&page=${page}`;
    const first = await source.getJson(url(1), [400, 401, 403, 404]);
    if (first.status !== 200 || !Array.isArray(first.body)) {
      warn(`${url(1)} answered ${first.status}: the user may not read the event index (editors and administrators may); looking for hidden events elsewhere`);
      return undefined;
    }
    const all = [...(first.body as Json[])];
    const pages = Number(first.headers.get('x-wp-totalpages') ?? 1) || 1;
    for (let page = 2; page <= pages; page++) all.push(...((await source.getJson(url(page))).body as Json[]));
    return all;
  }

  /** Whether an occurrence differs from its series (edited alone), for sources without the index. */
  function differsFromSeries(o: Json, s: Json): boolean {
    if (o.start_date !== o.original_start_date) return true;
    const span = (e: Json) => Date.parse(String(e.utc_end_date).replace(' ', 'T') + 'Z') - Date.parse(String(e.utc_start_date).replace(' ', 'T') + 'Z');
    if (span(o) !== span(s)) return true;
    const ids = (v: unknown) => (Array.isArray(v) ? v.map((x: Json) => Number(x.id)).sort((a, b) => a - b) : v && typeof v === 'object' ? [Number((v as Json).id)] : []);
    const same = (k: string) => JSON.stringify(o[k]) === JSON.stringify(s[k]);
    const fields = ['title', 'description', 'excerpt', 'status', 'all_day', 'timezone', 'cost', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'author'];
    if (!fields.every(same)) return true;
    if ((o.image?.url ?? '') !== (s.image?.url ?? '')) return true;
    return ['venue', 'organizer', 'categories', 'tags'].some((k) => JSON.stringify(ids(o[k])) !== JSON.stringify(ids(s[k])));
  }

  /**
   * Occurrences an earlier version imported as single events (it flattened series): trashed before
   * their series is created, so that the lists show each occurrence once (their ids stay taken: the
   * occurrences get new ones, printed as mapped).
   */
  async function retireFlattened(s: Json, sourceIds: number[]): Promise<void> {
    let retired = 0;
    for (const sid of sourceIds) {
      const local = localOf('event', sid);
      if (local === undefined || (await occurrenceOf(db, local)) !== undefined) continue;
      const record = await services.events.findById(local);
      if (!record || record.type !== 'tribe_events' || record.status === 'trash') continue;
      await services.events.trash(record, undefined, admin);
      retired++;
    }
    if (retired) warn(`series ${s.id}: ${retired} of its occurrences had been imported as single events by an earlier version; those were trashed and the series imported`);
  }

  /**
   * A recurring event: the series (its id, fields and rules), its occurrences keeping their ids
   * (generated here by the same rules, so their starts match), then its exceptions: occurrences
   * edited alone updated alone, and those trashed alone trashed (from the index; without it, a
   * start the rules generate here that the source does not list).
   */
  async function importSeries(s: Json, occurrences: Json[], trashed: Array<{ id: number; start: string }>): Promise<number | undefined> {
    const isException = (o: Json) => (index ? exceptionIds.has(Number(o.id)) : differsFromSeries(o, s));
    const exceptions = occurrences.filter(isException);
    // (A TEC Pro series' first occurrence is the series' own post at the source: its id stays the series'.)
    const wantedIds = new Map<string, number>([
      ...occurrences.filter((o) => Number(o.id) !== Number(s.id)).map((o) => [String(o.original_start_date), Number(o.id)] as const),
      ...trashed.map((t) => [t.start, t.id] as const),
    ]);
    // The fingerprint covers the series, its exceptions and which occurrences exist.
    const record = { ...s, occurrences: occurrences.map((o) => (isException(o) ? o : [o.id, o.original_start_date])), trashed };
    const context = (print: string, keep: boolean) => ({
      wanted: { ...(keep ? { post: Number(s.id) } : {}), ...(s.image?.id ? { image: Number(s.image.id) } : {}) },
      occurrences: new Map(wantedIds),
      inTransaction: async (trx: Executor, written: unknown) => {
        const id = Number((written as Json).id);
        await keepMeta(trx, id, s);
        await remember(trx, 'event', String(s.id), id, print);
      },
    });
    const input = async () => ({ ...(await eventInput(s)), recurrence: (s.recurrence as unknown[]).map(String) });
    const skippedBefore = report.counts.get('event')?.skipped ?? 0;
    const local = await upsert(
      'event',
      record,
      async (id) => await services.events.isEventId(id),
      async (print) => {
        await retireFlattened(s, [...wantedIds.values()]);
        return Number((await withImportContext(context(print, true), async () => services.events.create(admin, await input()))).id);
      },
      async (id, print) => {
        const fields = await input();
        const current = (await services.events.findById(id))!;
        if (fields.website === undefined && current.website !== null) fields.website = '';
        await withImportContext(context(print, false), () => services.events.update(admin, current, { ...fields, recurrence_scope: 'all' }));
      },
    );
    if (local === undefined || options.dryRun || (report.counts.get('event')?.skipped ?? 0) > skippedBefore) return local;
    const here = await occurrencesOf(db, local);
    const byStart = new Map(here.map((o) => [o.original_start, o]));
    for (const o of exceptions) {
      const target = byStart.get(String(o.original_start_date));
      if (!target) {
        warn(`series ${s.id}: no occurrence here starts at ${o.original_start_date}; its changed occurrence ${o.id} was left out`);
        continue;
      }
      try {
        const fields = await eventInput(o);
        const current = (await services.events.findById(target.post_id))!;
        if (fields.website === undefined && current.website !== null) fields.website = '';
        await withImportContext(
          {
            wanted: o.image?.id ? { image: Number(o.image.id) } : {},
            inTransaction: async (trx) => {
              await keepMeta(trx, target.post_id, o);
              await remember(trx, 'event', String(o.id), target.post_id, fingerprint(o));
            },
          },
          () => services.events.update(admin, current, { ...fields, recurrence_scope: 'this' }),
        );
      } catch (err) {
        if (err instanceof ImportError && !(err as { recordLevel?: boolean }).recordLevel) throw err;
        report.fail('event', String(o.id), reason(err));
      }
    }
    const listed = new Set(occurrences.map((o) => String(o.original_start_date)));
    // Without the index: only up to the last start the source lists (its horizon may be nearer than ours).
    const last = [...listed].sort().pop() ?? '';
    const gone = index ? new Set(trashed.map((t) => t.start)) : new Set(here.filter((o) => !listed.has(o.original_start) && o.original_start < last).map((o) => o.original_start));
    for (const o of here) {
      if (!gone.has(o.original_start) || o.status === 'trash') continue;
      const current = await services.events.findById(o.post_id);
      if (current) await services.events.trash(current, 'this', admin);
    }
    // The occurrences' ids, for --mapping and later runs.
    const sourceIdOf = new Map([...wantedIds].map(([start, id]) => [start, id]));
    await writeTransaction(db, async (trx) => {
      for (const o of here) {
        const sid = sourceIdOf.get(o.original_start);
        if (sid === undefined) continue;
        await remember(trx, 'event', String(sid), o.post_id, '');
        if (sid !== o.post_id) report.remap('event', String(sid), o.post_id, 'the id is taken here');
      }
    });
    return local;
  }

  /**
   * A TEC Pro recurring event (issue 25): its parent and the children that name it (`post_parent`)
   * become one series here with the parent's id and fields, a rule (or RDATEs) made from the
   * occurrences' starts, the children keeping their ids; children that differ from the parent are
   * updated alone (exceptions). A parent imported before as a single event (a first run imports it
   * before its children are seen; earlier versions imported every occurrence so) becomes the series,
   * and its children imported as single events are trashed.
   */
  async function importProSeries(parent: Json, children: Json[]): Promise<void> {
    const occurrences: Json[] = [parent, ...children].map((o) => ({ ...o, original_start_date: o.start_date }));
    const first = [...occurrences].sort((a, b) => String(a.start_date).localeCompare(String(b.start_date)) || Number(a.id) - Number(b.id))[0]!;
    const recurrence = proRecurrence(
      occurrences.map((o) => String(o.start_date)),
      Boolean(parent.all_day),
    );
    const s = { ...parent, recurrence, ...pick(first, ['start_date', 'end_date', 'utc_start_date', 'utc_end_date']) };
    const local = localOf('event', parent.id);
    if (!options.dryRun && local !== undefined && (await occurrenceOf(db, local)) === undefined) {
      const here = await services.events.findById(local);
      if (here && here.type === 'tribe_events')
        await retireFlattened(
          s,
          children.map((c) => Number(c.id)),
        );
    }
    const updatedBefore = report.counts.get('event')?.updated ?? 0;
    const series = await importSeries(s, occurrences, []);
    const counts = report.counts.get('event');
    if (counts && createdNow.has(`event:${parent.id}`) && counts.updated > updatedBefore) counts.updated--;
    if (series !== undefined && !options.dryRun && localOf('series', parent.id) !== series) {
      await writeTransaction(db, (trx) => remember(trx, 'series', String(parent.id), series, ''));
      noted('series', String(parent.id), series, '');
    }
  }

  // ---- the phases ------------------------------------------------------------------------------
  const categories = await readAll('categories', 'categories', { hide_empty: 'false' });
  // Parents first.
  const byId = new Map(categories.map((c) => [Number(c.id), c]));
  const depth = (c: Json, seen = new Set<number>()): number => {
    const parent = byId.get(Number(c.parent));
    if (!parent || seen.has(Number(c.id))) return 0;
    seen.add(Number(c.id));
    return 1 + depth(parent, seen);
  };
  categories.sort((a, b) => depth(a) - depth(b) || Number(a.id) - Number(b.id));
  let done = 0;
  for (const c of categories) {
    await importTerm('category', c);
    hooks.onProgress?.({ phase: 'categories', done: ++done, total: categories.length });
  }
  const tags = await readAll('tags', 'tags', { hide_empty: 'false' });
  done = 0;
  for (const t of tags) {
    await importTerm('tag', t);
    hooks.onProgress?.({ phase: 'tags', done: ++done, total: tags.length });
  }
  for (const kind of ['venue', 'organizer'] as const) {
    done = 0;
    await forEachPage(`${kind}s`, `${kind}s`, {}, async (records, total) => {
      for (const r of records) {
        await importLinked(kind, r);
        hooks.onProgress?.({ phase: `${kind}s`, done: ++done, total });
      }
    });
  }
  // Occurrences of recurring events (issue 25) are held back and imported with their series.
  const occurrencesOfSeries = new Map<number, Json[]>();
  const seriesIds = new Set<number>();
  // TEC Pro's occurrences (their `post_parent`), by parent, and the parents imported as series before.
  const childrenOf = new Map<number, Json[]>();
  const proParents = new Map<number, Json | undefined>();
  const importListed = async (e: Json) => {
    const seriesId = Number(e.recurring_event_id);
    const parent = proParentOf(e);
    if (Number.isSafeInteger(seriesId) && seriesId > 0) {
      seriesIds.add(seriesId);
      const list = occurrencesOfSeries.get(seriesId) ?? [];
      list.push(e);
      occurrencesOfSeries.set(seriesId, list);
    } else if (parent > 0) {
      if (!proParents.has(parent)) proParents.set(parent, undefined);
      const list = childrenOf.get(parent) ?? [];
      list.push(e);
      childrenOf.set(parent, list);
    } else if (localOf('series', e.id) !== undefined) proParents.set(Number(e.id), e);
    else await importEvent(e);
  };
  const seen = new Set<number>();
  done = 0;
  await forEachPage('events', 'events', ALL_DATES, async (records, total) => {
    for (const e of records) {
      seen.add(Number(e.id));
      await importListed(e);
      hooks.onProgress?.({ phase: 'events', done: ++done, total });
    }
  });
  // Events hidden from listings never appear in the lists: this service's event index
  // (calendar/admin/v1/events, when the source offers it and the credentials may read it), else
  // WordPress' own API names their ids.
  const hidden: number[] = [];
  const index = await readEventIndex();
  /** From the index: occurrences edited or deleted alone, and the starts of those trashed, per series. */
  const exceptionIds = new Set<number>();
  const trashedStarts = new Map<number, Array<{ id: number; start: string }>>();
  if (index) {
    for (const r of index) {
      const id = Number(r.id);
      if (r.type === 'series') {
        if (r.status !== 'trash') seriesIds.add(id);
        continue;
      }
      if (r.exception) exceptionIds.add(id);
      if (r.status === 'trash') {
        if (r.exception && Number(r.recurring_event_id) > 0) {
          const list = trashedStarts.get(Number(r.recurring_event_id)) ?? [];
          list.push({ id, start: String(r.original_start_date) });
          trashedStarts.set(Number(r.recurring_event_id), list);
        }
        continue;
      }
      if (!seen.has(id)) hidden.push(id);
    }
  } else {
    const wpUrl = (page: number) => `${root}/wp/v2/tribe_events?${new URLSearchParams({ status: source.authenticated ? 'any' : 'publish', per_page: '100', page: String(page), _fields: 'id' })}`;
    const first = await source.getJson(wpUrl(1), [400, 401, 403, 404]).catch((err: Error) => ({ status: 0, headers: new Headers(), body: err.message }));
    if (first.status === 200 && Array.isArray(first.body)) {
      const pages = Number(first.headers.get('x-wp-totalpages') ?? 1) || 1;
      const all = [...(first.body as Json[])];
      for (let page = 2; page <= pages; page++) all.push(...((await source.getJson(wpUrl(page))).body as Json[]));
      for (const r of all) if (!seen.has(Number(r.id))) hidden.push(Number(r.id));
    } else {
      warn(
        `${root}/wp/v2/tribe_events did not list event ids (${first.status || String(first.body)})${source.authenticated ? ` and ${root}/${ADMIN_NAMESPACE}/events is not offered` : ''}: events hidden from listings (hide_from_listings) cannot be found and were not imported${source.authenticated ? '' : ' (an instance of this service lists them to authenticated editors: give --user and --app-password)'}`,
      );
    }
  }
  done = 0;
  for (let i = 0; i < hidden.length; i += options.concurrency) {
    const batch = await mapLimit(hidden.slice(i, i + options.concurrency), options.concurrency, async (id) => {
      const res = await source.getJson(`${ns}/events/${id}`, [400, 403, 404, 410]);
      return res.status === 200 ? (res.body as Json) : undefined;
    });
    for (const e of batch) {
      if (e) await importListed(e);
      hooks.onProgress?.({ phase: 'hidden events', done: ++done, total: hidden.length });
    }
  }
  // Series (issue 25): the rules from the series itself, its occurrences with their ids, and the
  // exceptions (occurrences changed or trashed alone).
  done = 0;
  for (const seriesId of [...seriesIds].sort((a, b) => a - b)) {
    const occurrences = (occurrencesOfSeries.get(seriesId) ?? []).sort((a, b) => Number(a.id) - Number(b.id));
    const res = await source.getJson(`${ns}/events/${seriesId}`, [400, 401, 403, 404, 410]);
    const series = res.body as Json;
    if (res.status === 200 && Array.isArray(series?.recurrence) && series.recurrence.length > 0) await importSeries(series, occurrences, trashedStarts.get(seriesId) ?? []);
    else if (occurrences.length) {
      warn(`series ${seriesId} could not be read at the source (${res.status}): its ${occurrences.length} occurrence(s) were imported as single events`);
      for (const o of occurrences) await importEvent(o);
    }
    hooks.onProgress?.({ phase: 'series', done: ++done, total: seriesIds.size });
  }
  // TEC Pro's recurring events (issue 25): each parent with the children that name it.
  done = 0;
  for (const parentId of [...proParents.keys()].sort((a, b) => a - b)) {
    const children = (childrenOf.get(parentId) ?? []).sort((a, b) => Number(a.id) - Number(b.id));
    let parent = proParents.get(parentId);
    if (!parent) {
      const res = await source.getJson(`${ns}/events/${parentId}`, [400, 401, 403, 404, 410]);
      if (res.status === 200 && res.body && typeof res.body === 'object') parent = res.body as Json;
      else {
        warn(`recurring event ${parentId} could not be read at the source (${res.status}): its ${children.length} occurrence(s) were imported as single events`);
        for (const o of children) await importEvent(o);
      }
    }
    if (parent && children.length > 0) await importProSeries(parent, children);
    else if (parent) {
      warn(`recurring event ${parentId} lists no other occurrence at the source any more; it was imported as it is, its series here left as it was`);
    }
    hooks.onProgress?.({ phase: 'recurring events', done: ++done, total: proParents.size });
  }
  return report;
}

const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

/** The stored form of an excerpt from its wire form (wpautop's `<p>…</p>` wrapping removed when it is the whole text). */
function stripAutop(value: string): string {
  const m = /^<p>([\s\S]*)<\/p>\s*$/.exec(value);
  return m && !m[1]!.includes('<p>') ? m[1]!.replace(/<br \/>\n/g, '\n') : value;
}

/** The import map of a source, for `--mapping FILE`: kind → source id → local id. */
export async function mappingOf(services: Services, sourceKey: string): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const m of await mappingsOf(services.store.db, sourceKey)) (out[m.kind] ??= {})[m.source_id] = Number(m.local_id);
  return out;
}

export { findMapping };
