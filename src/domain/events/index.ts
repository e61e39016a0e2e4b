/**
 * Events: what a write does (dates and time zones per COMPAT decision 5, cost, linked venue and
 * organizers, terms, image, slug, status), partial updates (COMPAT decision 1), trash, the list's
 * semantics (behavior.md §10.1) and batch representation (no query per row).
 *
 * @example
 *   const event = await services.events.create(viewer, { title: 'Jazz', start_date: 'tomorrow 8pm', end_date: 'tomorrow 11pm' });
 *   const [json] = await services.events.represent([event], viewer, 'single', ctx.links);
 *
 * The service is composed of parts: the read model and kept state (`read-model.ts`), single writes
 * (`writes.ts`), recurring events' writes (`series-writes.ts`) and lists (`lists.ts`); the
 * vocabulary is in `types.ts`, the argument checks in `validators.ts`.
 */
import { createLists } from './lists.js';
import { createReadModel } from './read-model.js';
import { createSeriesRestore } from './series-restore.js';
import { createSeriesWrites } from './series-writes.js';
import type { EventService, EventServiceDeps } from './types.js';
import { createWrites } from './writes.js';
import { sourcesOf } from '../../store/network.js';
import { apiError } from '../errors.js';
import { NETWORK_USER } from '../network-user.js';

export * from './types.js';
export * from './validators.js';

export function createEventService(deps: EventServiceDeps): EventService {
  const readModel = createReadModel(deps);
  const writes = createWrites(deps, readModel);
  const series = createSeriesWrites(deps, writes);
  const lists = createLists(deps, readModel);
  const restore = createSeriesRestore(deps, writes);
  return {
    findById: readModel.findById,
    findIdBySlug: readModel.findIdBySlug,
    isOtherPostType: readModel.isOtherPostType,
    isEventId: readModel.isEventId,
    represent: readModel.represent,
    create: writes.create,
    // A copy mirrored from a followed calendar follows its source: only the mirroring changes it.
    async update(viewer, record, input) {
      if (viewer.login !== NETWORK_USER) {
        const [source] = await sourcesOf(deps.store.db, [Number(record.id)]);
        if (source?.kind === 'follow') throw apiError('network_copy_read_only');
      }
      return series.update(viewer, record, input);
    },
    trash: series.trash,
    purge: series.purge,
    restore: restore.restore,
    occurrenceOn: series.occurrenceOn,
    movedOccurrence: series.movedOccurrence,
    seriesDetails: series.seriesDetails,
    onGenerationLeft: writes.onGenerationLeft,
    list: lists.list,
    defaultWindow: lists.defaultWindow,
    syncFilter: lists.syncFilter,
  };
}
