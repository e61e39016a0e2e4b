/**
 * Imports as background jobs (`calendar/admin/v1/imports`): the queue and its views.
 * `enqueue` stores what to import (an `.ics` file's text, an `.ics` URL, or a The Events Calendar
 * site, with the options `events-calendar import` takes) as a queued row (migration 014) and wakes
 * the import job (jobs/imports.ts), which runs one import at a time across servers and writes its
 * progress, counts and messages to the row. Calendars take turns: the next import is the oldest
 * queued one of the calendar that ran least recently, and an import that ran IMPORT_SLICE while
 * another calendar's waits is stopped between two records and queued again behind it, to go on
 * later where it stopped (its status is `queued` meanwhile, its progress kept). A TEC application
 * password is stored encrypted (AES-256-GCM with the SECRET_KEY of the TOTP secrets) and removed
 * once the import ends.
 *
 * Durability: a running import renews its heartbeat every 10 s; one whose heartbeat is older than
 * a minute (its server stopped or died) is **queued again and resumed** by the next run of the job
 * on any server: it goes on from its last slice (or starts over), and the import map makes what it
 * had written since count as unchanged (ics) or skipped (tec), so nothing is written twice. After
 * three starts (a slice is not one) it is marked failed. A server that stops gracefully ends its
 * import between two records and queues it again at once, to go on where it stopped.
 *
 * @example
 *   const queue = importQueueOf(services);
 *   const row = await queue.enqueue(viewer, { kind: 'ics', upload: { name: 'club.ics', text } });
 *   (await queue.get(row.id)).status // 'queued', later 'running', 'done' or 'failed'
 */
import * as importsStore from '../store/imports.js';
import { eventLocationsOf } from '../store/event-locations.js';
import { fitsInteger } from '../store/ranges.js';
import type { Store } from '../store/db.js';
import type { Clock } from './linked-posts/index.js';
import { managesAccounts, type Viewer } from './permissions.js';
import type { DomainContext } from './context.js';
import { apiError, invalidParams } from './errors.js';
import { openSecret, sealSecret, secretKeyText, secretsKey } from './sessions.js';

export type ImportKind = 'ics' | 'tec';
export type ImportStatus = 'queued' | 'running' | 'done' | 'failed';

/** The options of an ics import (`import ics`). */
export interface IcsImportRequest {
  kind: 'ics';
  /** an http(s) URL, or */
  url?: string;
  /** an uploaded file */
  upload?: { name: string; text: string };
  status?: string;
  strict?: boolean;
  dryRun?: boolean;
}

/** The options of a tec import (`import tec`). */
export interface TecImportRequest {
  kind: 'tec';
  from: string;
  namespace?: string;
  user?: string;
  appPassword?: string;
  author?: string;
  authorRole?: string;
  dryRun?: boolean;
}

export type ImportRequest = IcsImportRequest | TecImportRequest;

/** Counts of what an import did, in all and per kind of record. */
export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
  by_kind: Record<string, { created: number; updated: number; unchanged: number; skipped: number; failed: number }>;
  /** ids of the events written, for the result's links (none on a dry run) */
  events?: { created: number[]; updated: number[] };
  /** free-text locations that matched no venue: an editor creates them (or not) from the result */
  venues_for_review?: Array<{ location: string; events: number[]; venue?: number }>;
}

/** One message of an import: a record that failed or was left out, or a remark. */
export interface ImportMessage {
  type: 'failed' | 'skipped' | 'warning' | 'mapped';
  message: string;
}

/** An import as the admin API answers it. */
export interface ImportView {
  id: number;
  kind: ImportKind;
  status: ImportStatus;
  /** nothing was (or will be) written: the counts say what an import would do */
  dry_run: boolean;
  source: string;
  options: Record<string, unknown>;
  user: number;
  attempts: number;
  progress: { phase: string; done: number; total: number };
  counts: ImportCounts | null;
  messages: ImportMessage[];
  error: string | null;
  created_gmt: string;
  started_gmt: string | null;
  finished_gmt: string | null;
}

/** What an import did to a record (import/report.ts counts them). */
export type Outcome = 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed';

/** What a report holds, as JSON: an import stopped between two slices keeps it in its row (jobs/imports.ts; import/report.ts makes and reads it). */
export interface ReportState {
  source: string;
  counts: Record<string, Record<Outcome, number>>;
  failures: Array<{ kind: string; id: string; reason: string }>;
  remapped: Array<{ kind: string; sourceId: string; localId: number; why: string }>;
  warnings: string[];
  skips: Array<{ kind: string; id: string; reason: string }>;
  notModified: boolean;
  eventIds: { created: number[]; updated: number[] };
  venuesForReview: Array<[string, number[]]>;
  /** the digest of the input that was read (`inputDigest`) */
  inputDigest?: string;
}

/** The stored options: what the view shows, with the TEC password sealed. */
export interface StoredOptions {
  url?: string;
  status?: string;
  strict?: boolean;
  dry_run?: boolean;
  namespace?: string;
  user?: string;
  author?: string;
  /**
   * the role of the accounts made for the source's authors (in a calendar other than the default
   * one, their role there); '' when whoever queued the import may not make accounts (not a network
   * administrator): its authors are then mapped to accounts there are (tec/apply.ts `authorOf`)
   */
  author_role?: string;
  /** the TEC application password, encrypted (removed once the import ended) */
  sealed_password?: string;
  /** where the import stopped between two slices (jobs/imports.ts; removed once it ended) */
  resume?: { at: number; report: ReportState };
}

const CREDENTIALS_CONTEXT = 'import:tec-password';

/** `author_role` asked by someone who may not make accounts: 403, as the users API answers them. */
const authorRoleRefused = () =>
  apiError('rest_forbidden', {
    status: 403,
    data: {
      params: {
        author_role:
          'Only a network administrator makes accounts, and author_role is the role of the accounts an import makes for the authors. Leave it out: each author is then the account of that login when it has a role in this calendar, else you (or give author).',
      },
    },
  });

export function importView(row: importsStore.ImportListing): ImportView {
  const options = JSON.parse(row.options) as StoredOptions;
  const { sealed_password, resume: _resume, ...shown } = options;
  const counts = JSON.parse(row.counts) as Partial<ImportCounts>;
  return {
    id: Number(row.id),
    kind: row.kind as ImportKind,
    status: row.status as ImportStatus,
    dry_run: options.dry_run === true,
    source: row.source,
    options: { ...shown, ...(sealed_password !== undefined ? { app_password: '********' } : {}) },
    user: Number(row.user_id),
    attempts: Number(row.attempts),
    progress: { phase: row.phase, done: Number(row.done), total: Number(row.total) },
    counts: counts.created !== undefined ? (counts as ImportCounts) : null,
    messages: JSON.parse(row.messages) as ImportMessage[],
    error: row.error,
    created_gmt: row.created_gmt,
    started_gmt: row.started_gmt,
    finished_gmt: row.finished_gmt,
  };
}

export interface ImportQueue {
  enqueue(viewer: Viewer, request: ImportRequest): Promise<ImportView>;
  get(id: number): Promise<ImportView | undefined>;
  list(page: number, perPage: number): Promise<{ items: ImportView[]; total: number }>;
  /** Called after each enqueue (the job's nudge); returns the unsubscribe. */
  onQueued(listener: () => void): () => void;
  /** The TEC application password of stored options, in clear. */
  passwordOf(options: StoredOptions): Promise<string | undefined>;
}

const byStore = new WeakMap<object, ImportQueue>();

/** The import queue of these services (one per store: the routes and the job share it). */
export function importQueueOf(services: { store: Store; clock: Clock; config: { secretKey?: string } }): ImportQueue {
  let queue = byStore.get(services.store);
  if (!queue) byStore.set(services.store, (queue = createImportQueue(services)));
  return queue;
}

function createImportQueue(services: { store: Store; clock: Clock; config: { secretKey?: string } }): ImportQueue {
  const db = services.store.db;
  const listeners = new Set<() => void>();
  let key: Promise<Buffer> | undefined;
  const keyOf = () => (key ??= secretKeyText(services).then(secretsKey));
  return {
    async enqueue(viewer, request) {
      let source: string;
      let upload: string | null = null;
      const options: StoredOptions = {};
      if (request.kind === 'ics') {
        source = request.url ?? request.upload?.name ?? 'upload.ics';
        if (request.upload) upload = request.upload.text;
        else options.url = request.url;
        options.status = request.status ?? 'publish';
        options.strict = request.strict ?? false;
      } else {
        source = request.from;
        options.namespace = request.namespace ?? 'tribe/events/v1';
        if (request.user !== undefined) options.user = request.user;
        if (request.appPassword !== undefined) options.sealed_password = sealSecret(await keyOf(), request.appPassword, CREDENTIALS_CONTEXT);
        if (request.author !== undefined) options.author = request.author;
        if (managesAccounts(viewer)) options.author_role = request.authorRole ?? 'subscriber';
        else {
          // Accounts are one login across every calendar: only a network administrator makes them,
          // so an import by anyone else makes none (its authors map to accounts there are).
          if (request.authorRole !== undefined) throw authorRoleRefused();
          options.author_role = '';
        }
      }
      options.dry_run = request.dryRun ?? false;
      const id = await importsStore.insertImport(db, { kind: request.kind, source, options: JSON.stringify(options), upload, user_id: viewer.id, created_gmt: services.clock.nowGmt() });
      for (const l of listeners) l();
      return importView((await importsStore.findImport(db, id))!);
    },

    async get(id) {
      if (!fitsInteger(id)) return undefined;
      const row = await importsStore.findImport(db, id);
      return row ? importView(row) : undefined;
    },

    async list(page, perPage) {
      const { rows, total } = await importsStore.listImports(db, perPage, (page - 1) * perPage);
      // The history shows counts; the written ids (up to thousands per import) are for one import's page.
      const items = rows.map(importView).map((v) => (v.counts?.events ? { ...v, counts: { ...v.counts, events: undefined } } : v));
      return { items, total };
    },

    onQueued(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async passwordOf(options) {
      return options.sealed_password === undefined ? undefined : openSecret(await keyOf(), options.sealed_password, CREDENTIALS_CONTEXT).value;
    },
  };
}

/**
 * Create venues from an import's review list (`venues_for_review`): the one named `location`, or
 * every one not created yet; each event of the import that carries that location and still has no
 * venue gets it. The review entry keeps the new venue's id, so the result shows it done.
 *
 * @example
 *   await createReviewedVenues(services, admin, 12, 'Town Hall') // [{ location: 'Town Hall', venue: 31, events: [40, 41] }]
 */
export async function createReviewedVenues(
  services: DomainContext,
  viewer: Viewer,
  id: number,
  location: string | undefined,
): Promise<Array<{ location: string; events: number[]; venue?: number }> | undefined> {
  const queue = importQueueOf(services);
  const found = await queue.get(id);
  if (!found?.counts) return undefined;
  const review = found.counts.venues_for_review ?? [];
  const chosen = review.filter((r) => r.venue === undefined && (location === undefined || r.location === location));
  if (location !== undefined && chosen.length === 0 && !review.some((r) => r.location === location)) throw invalidParams({ location: 'This location is not in the import’s review list.' });
  for (const entry of chosen) {
    const venue = Number(await services.venues.createPost({ venue: entry.location, status: 'publish' }, viewer));
    for (const eventId of entry.events) {
      const record = await services.events.findById(eventId);
      if (record && record.status !== 'trash' && record.venue_id === null) await services.events.update(viewer, record, { venue });
    }
    entry.venue = venue;
  }
  await importsStore.setImportCounts(services.store.db, id, JSON.stringify({ ...found.counts, venues_for_review: review }));
  return review;
}

/**
 * The free-text location an import kept for an event without a venue (or for its series), for the
 * calendar pages; undefined when there is none.
 *
 * @example await keptLocationOf(services, 42) // 'Room 12B'
 */
export async function keptLocationOf(services: { store: Store }, eventId: number, seriesId?: number): Promise<string | undefined> {
  const ids = seriesId !== undefined && seriesId !== eventId ? [eventId, seriesId] : [eventId];
  const kept = await eventLocationsOf(services.store.db, ids);
  return kept.get(eventId) ?? (seriesId !== undefined ? kept.get(seriesId) : undefined);
}
