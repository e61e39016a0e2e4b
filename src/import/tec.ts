/**
 * `events-calendar import tec --from URL`: a whole calendar through The Events Calendar's REST API
 * (or this service's, which speaks the same): categories and tags (parents first), venues,
 * organizers, then events in every status the credentials can read, over all dates. Ids and
 * slugs are kept when free and mapped otherwise; authors become users without a password when a
 * network administrator imports (or `--author`; `tec/apply.ts` `authorOf`); statuses, publication
 * and modification dates, time zones, costs, flags, links and images (as URL records) are kept.
 *
 * Recurring events from another instance of this service arrive as series (rules,
 * occurrence ids, exceptions), and so do The Events Calendar Pro's (occurrences naming their
 * parent in `post_parent`: `tec/pro.ts`); events hidden from listings are found through its event
 * index (`calendar/admin/v1/events`, when offered) or WordPress' `/wp/v2`; the import map keys on
 * the canonical REST root that discovery names, so every spelling of the source's URL is one source.
 *
 * This module runs the phases (each small enough to read alone); reading the source is `tec/fetch.ts`, the source's JSON
 * to our records `tec/map.ts`, the writes through the domain services (and the import map, so an
 * interrupted import resumes and a later run updates what changed) `tec/apply.ts`.
 *
 * @example
 *   const report = await importTec(services, admin, { from: 'https://site/wp-json', namespace: 'tribe/events/v1', … });
 */
import type { DomainServices } from '../domain/services.js';
import type { Viewer } from '../domain/permissions.js';
import { writeTransaction } from '../store/changes.js';
import { findMapping, mappingsOf, renameSource } from '../store/import-map.js';
import { ImportReport, type ImportHooks } from './report.js';
import { openTecSource, type TecReader } from './tec/fetch.js';
import { TecApplier } from './tec/apply.js';
import { ALL_DATES, parentsFirst, type Json } from './tec/map.js';
import { proOccurrenceBase, proParentOf } from './tec/pro.js';
import type { TecImportOptions } from './tec/options.js';
import { refreshAfterBulkWrite } from '../store/statistics.js';

export type { TecImportOptions };

export async function importTec(services: DomainServices, admin: Viewer, options: TecImportOptions, hooks: ImportHooks = {}): Promise<ImportReport> {
  const report = new ImportReport({ dryRun: options.dryRun });
  hooks.onReport?.(report);
  const warn = (m: string) => {
    report.warnings.push(m);
    hooks.onWarning?.(m);
  };
  const db = services.store.db;
  let sourceKey = '';
  let legacyKey = '';
  const reader = await openTecSource({ ...options, maxBytes: options.maxBytes ?? services.config.importMaxBytes }, warn, async (located, root) => {
    sourceKey = `tec:${root}/${options.namespace}`;
    report.source = sourceKey;
    // Maps written before (keyed by the URL as typed) move to the canonical key.
    legacyKey = `tec:${located}/${options.namespace}`;
    if (legacyKey !== sourceKey && !options.dryRun) await writeTransaction(db, (trx) => renameSource(trx, legacyKey, sourceKey));
  });
  // What earlier runs imported from this source.
  const mapKeys = options.dryRun && legacyKey !== sourceKey ? [legacyKey, sourceKey] : [sourceKey];
  const applier = await TecApplier.open(services, admin, options, reader, report, sourceKey, mapKeys, warn);
  await importTerms(reader, applier, hooks);
  await importLinkedPosts(reader, applier, hooks);
  const events = new EventPhases(reader, applier, options, hooks, warn);
  await events.listed();
  await events.hidden();
  await events.datedOccurrences();
  await events.series();
  await events.proSeries();
  // Thousands of new events: PostgreSQL's planner learns of them now, not at autovacuum's next look.
  if (!options.dryRun) await refreshAfterBulkWrite(db, report.written());
  return report;
}

/** Categories (parents first), then tags. */
async function importTerms(reader: TecReader, applier: TecApplier, hooks: ImportHooks): Promise<void> {
  const categories = parentsFirst(await reader.readAll('categories', 'categories', { hide_empty: 'false' }));
  let done = 0;
  for (const c of categories) {
    await applier.importTerm('category', c);
    hooks.onProgress?.({ phase: 'categories', done: ++done, total: categories.length });
  }
  const tags = await reader.readAll('tags', 'tags', { hide_empty: 'false' });
  done = 0;
  for (const t of tags) {
    await applier.importTerm('tag', t);
    hooks.onProgress?.({ phase: 'tags', done: ++done, total: tags.length });
  }
}

/** Venues, then organizers, page by page. */
async function importLinkedPosts(reader: TecReader, applier: TecApplier, hooks: ImportHooks): Promise<void> {
  for (const kind of ['venue', 'organizer'] as const) {
    let done = 0;
    await reader.forEachPage(`${kind}s`, `${kind}s`, {}, async (records, total) => {
      for (const r of records) {
        await applier.importLinked(kind, r);
        hooks.onProgress?.({ phase: `${kind}s`, done: ++done, total });
      }
    });
  }
}

/**
 * The events: the listed ones page by page (single events written at once; occurrences of
 * recurring events held back and written with their series), then the hidden ones, then the series
 * of another instance of this service, then TEC Pro's recurring events.
 */
class EventPhases {
  /** Occurrences of this service's series, by series. */
  private readonly occurrencesOfSeries = new Map<number, Json[]>();
  private readonly seriesIds = new Set<number>();
  // TEC Pro's occurrences (their `post_parent`), by parent, and the parents imported as series before.
  private readonly childrenOf = new Map<number, Json[]>();
  private readonly proParents = new Map<number, Json | undefined>();
  private readonly seen = new Set<number>();
  /** Events linked as TEC Pro occurrences whose parent is not known yet (`datedOccurrences`). */
  private readonly dated: Json[] = [];
  /** From the index: the starts of occurrences trashed alone, per series. */
  private readonly trashedStarts = new Map<number, Array<{ id: number; start: string }>>();

  private readonly reader: TecReader;
  private readonly applier: TecApplier;
  private readonly options: TecImportOptions;
  private readonly hooks: ImportHooks;
  private readonly warn: (message: string) => void;

  constructor(reader: TecReader, applier: TecApplier, options: TecImportOptions, hooks: ImportHooks, warn: (message: string) => void) {
    this.reader = reader;
    this.applier = applier;
    this.options = options;
    this.hooks = hooks;
    this.warn = warn;
  }

  private async importListed(e: Json): Promise<void> {
    const seriesId = Number(e.recurring_event_id);
    const parent = proParentOf(e);
    if (Number.isSafeInteger(seriesId) && seriesId > 0) {
      this.seriesIds.add(seriesId);
      const list = this.occurrencesOfSeries.get(seriesId) ?? [];
      list.push(e);
      this.occurrencesOfSeries.set(seriesId, list);
    } else if (parent > 0) {
      if (!this.proParents.has(parent)) this.proParents.set(parent, undefined);
      const list = this.childrenOf.get(parent) ?? [];
      list.push(e);
      this.childrenOf.set(parent, list);
    } else if (this.applier.localOf('series', e.id) !== undefined) this.proParents.set(Number(e.id), e);
    else if (proOccurrenceBase(e) !== undefined) this.dated.push(e);
    else await this.applier.importEvent(e);
  }

  /**
   * TEC Pro's occurrences whose children do not name their parent (TEC's stock JSON): events
   * linked as an occurrence (`/event/{slug}/{date}/`) grouped by that link, the parent (imported as
   * a series before, else the lowest id) confirmed by the list's `post_parent` filter; what it does
   * not confirm is imported as single events.
   */
  async datedOccurrences(): Promise<void> {
    const groups = new Map<string, Json[]>();
    const known = [...this.proParents.values()].filter((e): e is Json => e !== undefined);
    for (const e of [...known, ...this.dated]) {
      const base = proOccurrenceBase(e);
      if (base === undefined) continue;
      groups.set(base, [...(groups.get(base) ?? []), e]);
    }
    for (const group of groups.values()) {
      const parent = group.find((e) => this.proParents.has(Number(e.id))) ?? group.reduce((a, b) => (Number(b.id) < Number(a.id) ? b : a));
      // A parent whose children named it (post_parent in their JSON), alone in its group: nothing to ask.
      if (group.length === 1 && this.childrenOf.has(Number(parent.id))) {
        this.proParents.set(Number(parent.id), parent);
        continue;
      }
      const children = (await this.reader.readAll('events', 'events', { ...ALL_DATES, post_parent: String(parent.id) })).filter((c) => Number(c.id) !== Number(parent.id));
      const claimed = new Set(children.map((c) => Number(c.id)));
      if (children.length > 0) {
        this.proParents.set(Number(parent.id), parent);
        this.childrenOf.set(Number(parent.id), [...(this.childrenOf.get(Number(parent.id)) ?? []).filter((c) => !claimed.has(Number(c.id))), ...children]);
      }
      for (const e of group) if (!this.proParents.has(Number(e.id)) && !claimed.has(Number(e.id))) await this.applier.importEvent(e);
    }
    this.dated.length = 0;
  }

  /** The events of the lists, page by page. */
  async listed(): Promise<void> {
    let done = 0;
    await this.reader.forEachPage('events', 'events', ALL_DATES, async (records, total) => {
      for (const e of records) {
        this.seen.add(Number(e.id));
        await this.importListed(e);
        this.hooks.onProgress?.({ phase: 'events', done: ++done, total });
      }
    });
  }

  /**
   * Events hidden from listings never appear in the lists: this service's event index
   * (calendar/admin/v1/events, when the source offers it and the credentials may read it), else
   * WordPress' own API names their ids.
   */
  async hidden(): Promise<void> {
    const hidden: number[] = [];
    const index = await this.reader.readEventIndex();
    if (index) {
      this.applier.index = true;
      for (const r of index) {
        const id = Number(r.id);
        if (r.type === 'series') {
          if (r.status !== 'trash') this.seriesIds.add(id);
          continue;
        }
        if (r.exception) this.applier.exceptionIds.add(id);
        if (r.status === 'trash') {
          if (r.exception && Number(r.recurring_event_id) > 0) {
            const list = this.trashedStarts.get(Number(r.recurring_event_id)) ?? [];
            list.push({ id, start: String(r.original_start_date) });
            this.trashedStarts.set(Number(r.recurring_event_id), list);
          }
          continue;
        }
        if (!this.seen.has(id)) hidden.push(id);
      }
    } else {
      for (const id of (await this.reader.wordpressEventIds()) ?? []) if (!this.seen.has(id)) hidden.push(id);
    }
    let done = 0;
    const concurrency = this.options.concurrency;
    for (let i = 0; i < hidden.length; i += concurrency) {
      for (const e of await this.reader.events(hidden.slice(i, i + concurrency))) {
        if (e) await this.importListed(e);
        this.hooks.onProgress?.({ phase: 'hidden events', done: ++done, total: hidden.length });
      }
    }
  }

  /** Series: the rules from the series itself, its occurrences with their ids, and the exceptions (occurrences changed or trashed alone). */
  async series(): Promise<void> {
    let done = 0;
    for (const seriesId of [...this.seriesIds].sort((a, b) => a - b)) {
      const occurrences = (this.occurrencesOfSeries.get(seriesId) ?? []).sort((a, b) => Number(a.id) - Number(b.id));
      const res = await this.reader.event(seriesId, [400, 401, 403, 404, 410]);
      const series = res.body as Json;
      if (res.status === 200 && Array.isArray(series?.recurrence) && series.recurrence.length > 0) await this.applier.importSeries(series, occurrences, this.trashedStarts.get(seriesId) ?? []);
      else if (occurrences.length) {
        this.warn(`series ${seriesId} could not be read at the source (${res.status}): its ${occurrences.length} occurrence(s) were imported as single events`);
        for (const o of occurrences) await this.applier.importEvent(o);
      }
      this.hooks.onProgress?.({ phase: 'series', done: ++done, total: this.seriesIds.size });
    }
  }

  /** TEC Pro's recurring events: each parent with the children that name it. */
  async proSeries(): Promise<void> {
    let done = 0;
    for (const parentId of [...this.proParents.keys()].sort((a, b) => a - b)) {
      const children = (this.childrenOf.get(parentId) ?? []).sort((a, b) => Number(a.id) - Number(b.id));
      let parent = this.proParents.get(parentId);
      if (!parent) {
        const res = await this.reader.event(parentId, [400, 401, 403, 404, 410]);
        if (res.status === 200 && res.body && typeof res.body === 'object') parent = res.body as Json;
        else {
          this.warn(`recurring event ${parentId} could not be read at the source (${res.status}): its ${children.length} occurrence(s) were imported as single events`);
          for (const o of children) await this.applier.importEvent(o);
        }
      }
      if (parent && children.length > 0) await this.applier.importProSeries(parent, children);
      else if (parent) this.warn(`recurring event ${parentId} lists no other occurrence at the source any more; its series here was left as it was`);
      this.hooks.onProgress?.({ phase: 'recurring events', done: ++done, total: this.proParents.size });
    }
  }
}

/** The import map of a source, for `--mapping FILE`: kind → source id → local id. */
export async function mappingOf(services: DomainServices, sourceKey: string): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const m of await mappingsOf(services.store.db, sourceKey)) (out[m.kind] ??= {})[m.source_id] = Number(m.local_id);
  return out;
}

export { findMapping };
