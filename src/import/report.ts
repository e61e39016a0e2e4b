/**
 * What an import did, per kind of record: created, updated, skipped (unchanged since the last
 * import), failed (with the reason), and ids that could not be kept (mapped to another id).
 *
 * @example
 *   const report = new ImportReport();
 *   report.count('event', 'created');
 *   report.lines() // ['events: 1 created, 0 updated, 0 skipped, 0 failed']
 */

export type Outcome = 'created' | 'updated' | 'skipped' | 'failed';

/** A phase's progress, for a progress bar. */
export interface Progress {
  phase: string;
  done: number;
  total: number;
}

export interface ImportHooks {
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

  count(kind: string, outcome: Outcome): void {
    let c = this.counts.get(kind);
    if (!c) this.counts.set(kind, (c = { created: 0, updated: 0, skipped: 0, failed: 0 }));
    c[outcome]++;
  }

  fail(kind: string, id: string, reason: string): void {
    this.count(kind, 'failed');
    this.failures.push({ kind, id, reason });
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
    for (const [kind, c] of this.counts) out.push(`${PLURAL[kind] ?? kind}: ${c.created} created, ${c.updated} updated, ${c.skipped} skipped, ${c.failed} failed`);
    if (out.length === 0) out.push('nothing to import');
    for (const r of this.remapped) out.push(`mapped ${r.kind} ${r.sourceId} → ${r.localId} (${r.why})`);
    for (const f of this.failures) out.push(`failed ${f.kind} ${f.id}: ${f.reason}`);
    return out;
  }
}
