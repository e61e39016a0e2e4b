/**
 * Venues and organizers as read: records by id (kept until the change log names them), by slug,
 * and their wire objects (kept per data revision for list pages), and who may see them.
 *
 * @example
 *   const read = createReadModel(deps);
 *   const [json] = await read.represent([await read.findById(db, 4)], links, 'single');
 */
import type { Executor } from '../../store/schema.js';
import * as linkedStore from '../../store/linked-posts.js';
import type { LinkedRecord, OrganizerRecord, VenueRecord } from '../../store/linked-posts.js';
import { revisionOf } from '../../store/revision.js';
import { keptCountersOf } from '../../metrics.js';
import { createKeptRecords, createRevisionCache, type RevisionCache } from '../kept.js';
import type { Links } from '../links.js';
import { canReadPost } from '../permissions.js';
import { toOrganizerJson } from '../representations/organizer.js';
import { toVenueJson } from '../representations/venue.js';
import { sanitizeSlug } from '../slugs.js';
import { withSerialized } from '../serialized.js';
import { TRASHED_SUFFIX } from './rules.js';
import type { LinkedPostService, LinkedServiceDeps } from './types.js';

/** The read side of the service. */
export type LinkedReadModel = Pick<LinkedPostService, 'existingIds' | 'findById' | 'findBySlug' | 'load' | 'represent' | 'readableBy' | 'visibleTo'>;

export function createReadModel(deps: LinkedServiceDeps): LinkedReadModel {
  const { db, kind, images, info } = deps;
  /** Representations of list records, per links (one per app) and data revision. */
  const representationsByLinks = new WeakMap<Links, RevisionCache<Record<string, unknown>>>();
  const representationsFor = (links: Links) => {
    let cache = representationsByLinks.get(links);
    if (!cache) representationsByLinks.set(links, (cache = createRevisionCache<Record<string, unknown>>(2000, { owner: db, kind: `${kind}_representations` })));
    return cache;
  };
  /**
   * Records by id, kept until the change log names them: an event write's validation
   * and answer, and the venues and organizers events embed, read no row. Only reads on the
   * store's handle use them (a transaction sees its own writes).
   */
  const keptRecords = createKeptRecords<LinkedRecord>(db, kind, (trx, ids) => linkedStore.findLinkedByIds(trx, kind, ids), keptCountersOf(db).linkedRecords);
  const recordsOf = (trx: Executor, ids: number[], options?: { current?: boolean }) => keptRecords.get(trx, ids, options);

  const readModel: LinkedReadModel = {
    existingIds: async (ids) => new Set((await recordsOf(db, ids)).keys()),

    async findById(id, trx = db) {
      return (await linkedStore.findLinkedByIds(trx, kind, [id]))[0];
    },

    async findBySlug(slug, trx = db) {
      const trashed = slug.endsWith(TRASHED_SUFFIX) && slug.length > TRASHED_SUFFIX.length;
      const base = trashed ? slug.slice(0, -TRASHED_SUFFIX.length) : slug;
      const id = await linkedStore.findLinkedIdBySlug(trx, kind, sanitizeSlug(base) || base, trashed);
      return id === undefined ? undefined : readModel.findById(id, trx);
    },

    async represent(records, links, context) {
      // Records of a list page carry the data revision they were read at: their representations
      // (the same for every caller) are kept for it.
      const revision = records.length ? revisionOf(records[0]!) : undefined;
      const kept = revision !== undefined && records.every((r) => revisionOf(r) === revision) ? representationsFor(links).at(revision) : undefined;
      const key = (r: LinkedRecord) => `${context}:${r.id}`;
      const out = records.map((r) => kept?.get(key(r)));
      const missing = records.filter((_, i) => out[i] === undefined);
      if (missing.length === 0) return out as Record<string, unknown>[];
      const imageIds = missing
        .map((r) => r.image_id)
        .filter((id): id is number => id !== null)
        .map(Number);
      const byId = await images.load(db, imageIds);
      const built = new Map<LinkedRecord, Record<string, unknown>>();
      for (const r of missing) {
        const image = r.image_id === null ? null : (byId.get(Number(r.image_id)) ?? null);
        const json = kind === 'venue' ? toVenueJson(r as VenueRecord, image, links, context) : toOrganizerJson(r as OrganizerRecord, image, links, context);
        built.set(r, json);
        if (kept) kept.set(key(r), withSerialized(json));
      }
      return records.map((r, i) => out[i] ?? built.get(r)!);
    },

    readableBy(record, viewer) {
      return canReadPost(viewer, info.postType, record);
    },

    load: (ids, { on = db, ...options } = {}) => recordsOf(on, ids, options),

    visibleTo(record, viewer) {
      return record.status !== 'trash' && canReadPost(viewer, info.postType, record);
    },
  };
  return readModel;
}
