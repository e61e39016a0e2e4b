/**
 * Taking events out of the trash (the admin API's restore, the editor's Undo): one event, one
 * occurrence, or a whole series with its occurrences in one transaction. Each post gets back the
 * status it had before it was trashed (a draft when none was kept). Of a series' occurrences, those
 * trashed with it come back; those trashed one by one before (exceptions) stay in the trash, since
 * the series' "restore" undoes the series' trash only.
 *
 * @example
 *   await restore(series, 'all');   // the series and the occurrences trashed with it
 *   await restore(occurrence);      // that occurrence alone
 */
import type { Executor } from '../../store/schema.js';
import type { EventRecord } from '../../store/events.js';
import * as recurrenceStore from '../../store/recurrence.js';
import { writeTransaction } from '../../store/changes.js';
import { apiError } from '../errors.js';
import { reload } from './read-model.js';
import type { Writes } from './writes.js';
import { SERIES_TYPE, type EventServiceDeps, type RecurrenceScope } from './types.js';

export function createSeriesRestore(deps: EventServiceDeps, writes: Writes): { restore(record: EventRecord, scope?: RecurrenceScope): Promise<EventRecord> } {
  const { clock } = deps;
  const { generate, seriesWrite } = writes;

  /** The series and what was trashed with it; then the occurrences its rules still owe. */
  async function restoreSeries(trx: Executor, seriesId: number): Promise<EventRecord> {
    const series = await reload(trx, seriesId);
    if (series.status !== 'trash') throw apiError('rest_restore_not_trashed');
    const occurrences = await recurrenceStore.occurrencesOf(trx, seriesId);
    const back = occurrences.filter((o) => o.status === 'trash' && !o.exception).map((o) => o.post_id);
    await recurrenceStore.untrashPosts(trx, [seriesId, ...back], clock.nowLocal(), clock.nowGmt());
    await generate(trx, seriesId, { rewrite: false });
    return reload(trx, seriesId);
  }

  return {
    async restore(record, scope) {
      return seriesWrite(writeTransaction, async (trx) => {
        const id = Number(record.id);
        if (record.type === SERIES_TYPE) return restoreSeries(trx, id);
        const occurrence = Number(record.parent_id) !== 0 ? await recurrenceStore.occurrenceOf(trx, id) : undefined;
        if (occurrence && scope === 'all') {
          await restoreSeries(trx, occurrence.series_id);
          return reload(trx, id);
        }
        const current = await reload(trx, id);
        if (current.status !== 'trash') throw apiError('rest_restore_not_trashed');
        await recurrenceStore.untrashPosts(trx, [id], clock.nowLocal(), clock.nowGmt());
        return reload(trx, id);
      });
    },
  };
}
