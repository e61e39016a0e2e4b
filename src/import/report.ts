/**
 * What an import did, per kind of record: created, updated, skipped (unchanged since the last
 * import), failed (with the reason), and ids that could not be kept (mapped to another id).
 * `import ics` tells unchanged records (`unchanged`) from records left out of the file (`skipped`,
 * each with its reason): `new ImportReport({ unchanged: true })`.
 *
 * @example
 *   const report = new ImportReport();
 *   report.count('event', 'created');
 *   report.lines() // ['events: 1 created, 0 updated, 0 skipped, 0 failed']
 *   new ImportReport({ dryRun: true }) // the same lines say 'would be created'
 */
import type { Outcome, ReportState } from '../domain/imports.js';

export type { Outcome, ReportState };

/** A phase's progress, for a progress bar. */
export interface Progress {
  phase: string;
  done: number;
  total: number;
}

export interface ImportHooks {
  /** The report the import fills, once made (the import job keeps it when it stops the import between two slices). */
  onReport?(report: ImportReport): void;
  onProgress?(p: Progress): void;
  /** A remark for the operator (a fallback taken, something not imported). */
  onWarning?(message: string): void;
}

const PLURAL: Record<string, string> = { category: 'categories', tag: 'tags', venue: 'venues', organizer: 'organizers', event: 'events', user: 'users', image: 'images' };

export class ImportReport {
  /** the import map's name for the source (`tec:URL`, `ics`) */
  source = '';
  readonly counts = new Map<string, Record<Outcome, number>>();
  readonly failures: Array<{ kind: string; id: string; reason: string }> = [];
  /** source id → local id, where they differ */
  readonly remapped: Array<{ kind: string; sourceId: string; localId: number; why: string }> = [];
  readonly warnings: string[] = [];
  /** records left out (with `unchanged`: skipped ones, each named with the reason) */
  readonly skips: Array<{ kind: string; id: string; reason: string }> = [];
  /** a conditional GET was answered 304: nothing was read, nothing changed */
  notModified = false;
  /** run once the records are written (a scheduled ics import keeps the feed's validators) */
  afterImport?: () => Promise<void>;
  /** count unchanged records apart from skipped ones (import ics) */
  readonly separateUnchanged: boolean;
  /** nothing is written: every line says what an import *would* do, so no one reads a dry run as done */
  readonly dryRun: boolean;
  /** ids of the events written (created or updated), so the result can link to them; none on a dry run */
  readonly eventIds: { created: number[]; updated: number[] } = { created: [], updated: [] };
  /** free-text locations matched to no venue: kept off the venue list until an editor creates them */
  readonly venuesForReview = new Map<string, number[]>();
  /** a digest of the text read (import ics): a run resumed later tells by it whether it reads the same records in the same order */
  inputDigest?: string;

  constructor(options: { unchanged?: boolean; dryRun?: boolean } = {}) {
    this.separateUnchanged = options.unchanged ?? false;
    this.dryRun = options.dryRun ?? false;
  }

  /** An event written (its id kept for the result's links). */
  wroteEvent(id: number, outcome: 'created' | 'updated'): void {
    this.eventIds[outcome].push(id);
  }

  /** A location that matched no venue, and the event (if written) that carries it. */
  venueForReview(location: string, eventId?: number): void {
    let list = this.venuesForReview.get(location);
    if (!list) this.venuesForReview.set(location, (list = []));
    if (eventId !== undefined) list.push(eventId);
  }

  /** What the report holds, as JSON; at most `maxIds` event ids per outcome (the result shows no more). */
  state(maxIds = Infinity): ReportState {
    return {
      source: this.source,
      counts: Object.fromEntries([...this.counts].map(([k, c]) => [k, { ...c }])),
      failures: [...this.failures],
      remapped: [...this.remapped],
      warnings: [...this.warnings],
      skips: [...this.skips],
      notModified: this.notModified,
      eventIds: { created: this.eventIds.created.slice(0, maxIds), updated: this.eventIds.updated.slice(0, maxIds) },
      venuesForReview: [...this.venuesForReview].map(([location, ids]): [string, number[]] => [location, ids.slice(0, maxIds)]),
      ...(this.inputDigest !== undefined ? { inputDigest: this.inputDigest } : {}),
    };
  }

  /** Take up what an earlier run of the same import held (`state()`), to go on from there. */
  restore(state: ReportState): void {
    this.source = state.source;
    for (const [kind, c] of Object.entries(state.counts)) this.counts.set(kind, { ...c });
    this.failures.push(...state.failures);
    this.remapped.push(...state.remapped);
    this.warnings.push(...state.warnings);
    this.skips.push(...state.skips);
    this.notModified = state.notModified;
    this.eventIds.created.push(...state.eventIds.created);
    this.eventIds.updated.push(...state.eventIds.updated);
    for (const [location, ids] of state.venuesForReview) this.venuesForReview.set(location, [...ids]);
    if (state.inputDigest !== undefined) this.inputDigest = state.inputDigest;
  }

  /**
   * Take up an earlier run of the same import that this run walked again from the start (import
   * tec starts over; the import map makes what the earlier run wrote count as skipped now): what it
   * created and updated is counted as such, not as skipped, and its event ids, mapped ids, warnings
   * and venues for review are kept. Failures and skips are this run's (it tried every record again).
   */
  takeUpRewalked(earlier: ReportState): void {
    for (const [kind, e] of Object.entries(earlier.counts)) {
      let c = this.counts.get(kind);
      if (!c) this.counts.set(kind, (c = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 }));
      c.skipped = Math.max(0, c.skipped - e.created - e.updated);
      c.created += e.created;
      c.updated += e.updated;
    }
    for (const outcome of ['created', 'updated'] as const) {
      const mine = new Set(this.eventIds[outcome]);
      this.eventIds[outcome].unshift(...earlier.eventIds[outcome].filter((id) => !mine.has(id)));
    }
    const mapped = new Set(this.remapped.map((r) => `${r.kind}:${r.sourceId}`));
    this.remapped.unshift(...earlier.remapped.filter((r) => !mapped.has(`${r.kind}:${r.sourceId}`)));
    const said = new Set(this.warnings);
    this.warnings.unshift(...earlier.warnings.filter((w) => !said.has(w)));
    for (const [location, ids] of earlier.venuesForReview) this.venuesForReview.set(location, [...new Set([...ids, ...(this.venuesForReview.get(location) ?? [])])]);
  }

  count(kind: string, outcome: Outcome): void {
    let c = this.counts.get(kind);
    if (!c) this.counts.set(kind, (c = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 }));
    c[outcome]++;
  }

  /** Records written: created and updated, of every kind. */
  written(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c.created + c.updated;
    return n;
  }

  fail(kind: string, id: string, reason: string): void {
    this.count(kind, 'failed');
    this.failures.push({ kind, id, reason });
  }

  /** A record left out, with the reason (listed in the summary). */
  skip(kind: string, id: string, reason: string): void {
    this.count(kind, 'skipped');
    this.skips.push({ kind, id, reason });
  }

  remap(kind: string, sourceId: string, localId: number, why: string): void {
    this.remapped.push({ kind, sourceId, localId, why });
  }

  get failed(): number {
    return this.failures.length;
  }

  /** The summary, one line per kind, then the mapped ids and the failures. */
  lines(): string[] {
    const out: string[] = [];
    const w = this.dryRun ? 'would be ' : '';
    for (const [kind, c] of this.counts) {
      const unchanged = this.separateUnchanged ? `${c.unchanged} ${w}unchanged, ` : '';
      out.push(`${PLURAL[kind] ?? kind}: ${c.created} ${w}created, ${c.updated} ${w}updated, ${unchanged}${c.skipped} ${w}skipped, ${c.failed} failed`);
    }
    if (this.notModified) out.push('not modified since the last run (HTTP 304): nothing to import');
    else if (out.length === 0) out.push('nothing to import');
    for (const r of this.remapped) out.push(`mapped ${r.kind} ${r.sourceId} → ${r.localId} (${r.why})`);
    for (const s of this.skips) out.push(`${w}skipped ${s.id}: ${s.reason}`);
    for (const [location, ids] of this.venuesForReview) out.push(`new venue for review: "${location}" (${ids.length || 'no'} event(s) ${this.dryRun ? 'would carry' : 'carry'} it as text)`);
    for (const f of this.failures) out.push(`failed ${f.kind} ${f.id}: ${f.reason}`);
    return out;
  }
}
