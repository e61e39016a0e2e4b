/**
 * An event write's `venue`/`organizer` value: its validation (ids the viewer may read, or new
 * entries that pass the direct create route's checks), its new entries, and the ids it names,
 * creating the new entries.
 *
 * @example
 *   await refs.validateEventRef([4, { organizer: 'Ada' }], viewer) // true
 *   await refs.idsForEventWrite(trx, [4, { organizer: 'Ada' }], viewer) // [4, 17]
 */
import { apiError, forbidden } from '../errors.js';
import { isHttpUrl } from '../images.js';
import { canCreatePost, isAuthenticated } from '../permissions.js';
import { phpTrim } from '../text/php.js';
import { isEmptyValue, isNumeric } from '../values.js';
import type { LinkedReadModel } from './read-model.js';
import { isCoordinate, isNewEntry, refEntries } from './rules.js';
import type { LinkedPostService, LinkedServiceDeps } from './types.js';
import type { LinkedWrites } from './writes.js';

export function createEventRefs(deps: LinkedServiceDeps, readModel: LinkedReadModel, writes: LinkedWrites): Pick<LinkedPostService, 'validateEventRef' | 'inlineEntries' | 'idsForEventWrite'> {
  const { kind, images, info, fields } = deps;
  return {
    async validateEventRef(value, viewer, checkEntry) {
      if (isEmptyValue(value)) return true;
      if (Array.isArray(value) && value.every(isEmptyValue)) return true;
      let entries: unknown[];
      if (typeof value === 'string' || typeof value === 'number')
        entries = String(value)
          .split(',')
          .map((s) => s.trim());
      else if (Array.isArray(value)) entries = value;
      else if (typeof value === 'object') {
        // A bare object is one venue; organizers must come as a list (examples/10d).
        if (kind === 'organizer') return false;
        entries = [value];
      } else return false;
      const ids: number[] = [];
      for (const entry of entries) {
        if (isNumeric(entry)) {
          ids.push(Number(entry));
          continue;
        }
        if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return false;
        const obj = entry as Record<string, unknown>;
        if (!isEmptyValue(obj.id)) {
          if (!isNumeric(obj.id)) return false;
          ids.push(Number(obj.id));
          continue;
        }
        const name = obj[fields.nameField];
        if (typeof name !== 'string' || phpTrim(name) === '') return false;
        for (const f of fields.urlFields) if (!isEmptyValue(obj[f]) && !isHttpUrl(obj[f])) return false;
        // Any text, as the original's organizer CREATE_args (`is_string_or_empty`): feeds write ORGANIZER only for a valid address.
        if (kind === 'organizer' && !isEmptyValue(obj.email) && typeof obj.email !== 'string') return false;
        if (kind === 'venue' && (!isCoordinate(obj.geo_lat, 90) || !isCoordinate(obj.geo_lng, 180))) return false;
        if (!isEmptyValue(obj.image) && !(await images.validateRef(obj.image, viewer, true))) return false;
        if (checkEntry) {
          const checked = await checkEntry(obj);
          if (checked !== true) return checked;
        }
      }
      if (ids.length) {
        // A record the viewer may not read is refused as an unknown one.
        const known = await readModel.load(ids);
        if (ids.some((id) => !known.has(id) || !readModel.readableBy(known.get(id)!, viewer))) return false;
      }
      return true;
    },

    inlineEntries(value) {
      return refEntries(value).filter(isNewEntry);
    },

    async idsForEventWrite(trx, value, viewer) {
      const entries = refEntries(value);
      if (kind === 'venue' && entries.length > 1) throw apiError('could-not-create-venue');
      // The routes refused these already (the permission of POST /venues, /organizers); here too
      // for any other caller.
      if (entries.some((e) => isNewEntry(e) && !canCreatePost(viewer, info.postType, e.author))) throw forbidden(isAuthenticated(viewer));
      const ids: number[] = [];
      for (const entry of entries) {
        if (isNumeric(entry)) ids.push(Number(entry));
        else ids.push(isNewEntry(entry) ? await writes.create(trx, entry, viewer) : Number((entry as Record<string, unknown>).id));
      }
      return [...new Set(ids)];
    },
  };
}
