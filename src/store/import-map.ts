/**
 * The import map (migration 008): source record → local record, with a fingerprint of what was
 * imported, for upserts by source id and for resuming.
 *
 * @example
 *   await putMapping(trx, { source: 'ics', kind: 'event', source_id: 'abc@google.com', local_id: 42, fingerprint: 'f00' });
 *   (await findMapping(db, 'ics', 'event', 'abc@google.com'))?.local_id // 42
 */
import type { Executor, ImportMapTable } from './schema.js';

export type Mapping = ImportMapTable;

export async function findMapping(db: Executor, source: string, kind: string, sourceId: string): Promise<Mapping | undefined> {
  return db.selectFrom('import_map').selectAll().where('source', '=', source).where('kind', '=', kind).where('source_id', '=', sourceId).executeTakeFirst();
}

/** Every mapping of a source (and kind), by source id. */
export async function mappingsOf(db: Executor, source: string, kind?: string): Promise<Mapping[]> {
  let q = db.selectFrom('import_map').selectAll().where('source', '=', source);
  if (kind !== undefined) q = q.where('kind', '=', kind);
  return q.orderBy('kind').orderBy('source_id').execute();
}

/** Insert or replace the mapping of a source record. */
export async function putMapping(db: Executor, m: Omit<Mapping, 'updated_gmt'>): Promise<void> {
  const updated_gmt = new Date().toISOString().slice(0, 19).replace('T', ' ');
  await db
    .insertInto('import_map')
    .values({ ...m, updated_gmt })
    .onConflict((oc) => oc.columns(['calendar_id', 'source', 'kind', 'source_id']).doUpdateSet({ local_id: m.local_id, fingerprint: m.fingerprint, updated_gmt }))
    .execute();
}

/**
 * Move every mapping of a source to another key (maps written under the URL as typed are
 * moved to the canonical REST root's key); rows already under the new key win.
 */
export async function renameSource(db: Executor, from: string, to: string): Promise<number> {
  if (from === to) return 0;
  const have = new Set((await mappingsOf(db, to)).map((m) => `${m.kind}:${m.source_id}`));
  const moving = (await mappingsOf(db, from)).filter((m) => !have.has(`${m.kind}:${m.source_id}`));
  for (const m of moving) await putMapping(db, { source: to, kind: m.kind, source_id: m.source_id, local_id: m.local_id, fingerprint: m.fingerprint });
  await db.deleteFrom('import_map').where('source', '=', from).execute();
  return moving.length;
}

/**
 * The source ids these local records were imported from (source and kind given), by local id: the
 * `.ics` export writes an imported event's own UID, so a round trip updates instead of duplicating.
 *
 * @example (await sourceIdsOf(db, 'ics', 'event', [42])).get(42) // 'abc@google.com'
 */
export async function sourceIdsOf(db: Executor, source: string, kind: string, localIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (let i = 0; i < localIds.length; i += 500) {
    const chunk = localIds.slice(i, i + 500);
    if (chunk.length === 0) continue;
    const rows = await db.selectFrom('import_map').select(['local_id', 'source_id']).where('source', '=', source).where('kind', '=', kind).where('local_id', 'in', chunk).execute();
    // Two source ids for one event (an old derived UID, a later real one): the first in order wins, for a stable export.
    for (const r of rows.sort((a, b) => a.source_id.localeCompare(b.source_id))) if (!out.has(Number(r.local_id))) out.set(Number(r.local_id), r.source_id);
  }
  return out;
}
