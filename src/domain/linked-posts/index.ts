/**
 * Venues and organizers ("linked posts"): their write fields, creation with the original's
 * duplicate avoidance, partial updates, trash, loading, the list (search, event, has_events,
 * only_with_upcoming, status visibility), their representation, and the event-write references
 * (`venue`: id or object; `organizer`: list of ids or objects). One implementation for both,
 * the differences as data (`LINKED_FIELDS`).
 *
 * @example
 *   const venues = createLinkedPostService(store, 'venue', images, siteTimezone);
 *   const id = await venues.create(trx, { venue: 'Town Hall', city: 'Springfield' }, viewer);
 *
 * The service is composed of parts: the read model and kept records (`read-model.ts`), writes
 * (`writes.ts`), the list (`lists.ts`) and event writes' references (`event-refs.ts`); the
 * vocabulary is in `types.ts`, the rules that need no store in `rules.ts`.
 */
import type { DialectName } from '../../store/db.js';
import type { Executor } from '../../store/schema.js';
import * as linkedStore from '../../store/linked-posts.js';
import type { LinkedKind } from '../../store/linked-posts.js';
import { DEFAULT_GEOLOC } from '../geo.js';
import type { ImageService } from '../images.js';
import { createEventRefs } from './event-refs.js';
import { createList } from './lists.js';
import { createReadModel } from './read-model.js';
import { LINKED_FIELDS } from './rules.js';
import type { Clock, LinkedPostService } from './types.js';
import { createWrites } from './writes.js';

export * from './types.js';
export { deriveStateProvince, isCoordinate, isOrganizerEmail, LINKED_FIELDS, searchFragments } from './rules.js';

export function createLinkedPostService(
  { db, dialect }: { db: Executor; dialect: DialectName },
  kind: LinkedKind,
  images: ImageService,
  siteTimezone: string,
  clock: Clock,
  geoDefaults: { radius: number; unit: 'mi' | 'km' } = DEFAULT_GEOLOC,
): LinkedPostService {
  // `db` is the store's handle: validators and reads that run outside a write transaction use it.
  const deps = { db, dialect, kind, images, siteTimezone, clock, geoDefaults, info: linkedStore.LINKED_KINDS[kind], fields: LINKED_FIELDS[kind] };
  const readModel = createReadModel(deps);
  const writes = createWrites(deps, readModel);
  const lists = createList(deps);
  const refs = createEventRefs(deps, readModel, writes);
  return {
    kind,
    postType: deps.info.postType,
    existingIds: readModel.existingIds,
    create: writes.create,
    update: writes.update,
    trash: writes.trash,
    createPost: writes.createPost,
    updatePost: writes.updatePost,
    trashPost: writes.trashPost,
    findById: readModel.findById,
    findBySlug: readModel.findBySlug,
    list: lists.list,
    represent: readModel.represent,
    readableBy: readModel.readableBy,
    load: readModel.load,
    validateEventRef: refs.validateEventRef,
    inlineEntries: refs.inlineEntries,
    idsForEventWrite: refs.idsForEventWrite,
    visibleTo: readModel.visibleTo,
  };
}
