/**
 * Venues and organizers ("linked posts"): their write fields, creation with the original's
 * duplicate avoidance, partial updates, trash, loading, and the event-write references
 * (`venue`: id or object; `organizer`: list of ids or objects). One implementation for both,
 * the differences as data (`LINKED_FIELDS`).
 *
 * @example
 *   const venues = createLinkedPostService(db, 'venue', images, siteTimezone);
 *   const id = await venues.create(trx, { venue: 'Town Hall', city: 'Springfield' }, viewer);
 */
import type { Executor, ImageRow } from '../store/schema.js';
import * as linkedStore from '../store/linked-posts.js';
import type { LinkedKind, LinkedRecord } from '../store/linked-posts.js';
import * as postsStore from '../store/posts.js';
import { parseDateInput, toWallTime } from './dates.js';
import { apiError } from './errors.js';
import type { ImageService } from './images.js';
import { isHttpUrl } from './images.js';
import { can, canReadPost, type Viewer } from './permissions.js';
import { sanitizeSlug, uniqueSlug } from './slugs.js';
import { scaleBackStatus } from './statuses.js';
import { sanitizePostHtml, stripTags } from './text.js';
import { isEmptyValue, isNumeric, isTruthy } from './values.js';

/** The write fields of each kind beyond the shared post fields. */
export const LINKED_FIELDS: Record<LinkedKind, { nameField: string; textFields: readonly string[]; urlFields: readonly string[]; flagFields: readonly string[] }> = {
  venue: {
    nameField: 'venue',
    textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'],
    urlFields: ['website'],
    flagFields: ['show_map', 'show_map_link'],
  },
  organizer: {
    nameField: 'organizer',
    textFields: ['phone', 'email'],
    urlFields: ['website'],
    flagFields: [],
  },
};

/** Current UTC and site-local wall times. */
export interface Clock {
  nowGmt(): string;
  nowLocal(): string;
}

/**
 * `stateprovince` when none is given (behavior.md §7.2): the state for US venues (or no country),
 * else the province, else ''.
 */
export function deriveStateProvince(fields: { state?: string; province?: string; country?: string }): string {
  const country = (fields.country ?? '').trim();
  if (fields.state && (country === '' || country === 'US' || country === 'United States')) return fields.state;
  return fields.province ?? '';
}

export interface LinkedPostService {
  kind: LinkedKind;
  /** Create from write fields (validated); returns the id (an existing one when it is a duplicate). */
  create(db: Executor, input: Record<string, unknown>, viewer: Viewer): Promise<number>;
  /** Apply the fields present in `input` (partial update). */
  update(db: Executor, record: LinkedRecord, input: Record<string, unknown>, viewer: Viewer): Promise<void>;
  /** Move to trash and unlink from events; returns the ids of the events that lost the link. */
  trash(db: Executor, record: LinkedRecord): Promise<number[]>;
  findById(db: Executor, id: number): Promise<LinkedRecord | undefined>;
  findBySlug(db: Executor, slug: string): Promise<LinkedRecord | undefined>;
  load(db: Executor, ids: number[]): Promise<Map<number, LinkedRecord>>;
  /** Validator of an event write's `venue`/`organizer` value (is_*_id_or_entry_or_empty). */
  validateEventRef(value: unknown, viewer: Viewer): Promise<boolean>;
  /**
   * Ids for an event write's value, creating inline entries. Venue: at most one (more → 400
   * could-not-create-venue). Organizer: a list.
   */
  idsForEventWrite(db: Executor, value: unknown, viewer: Viewer): Promise<number[]>;
  /** Whether the viewer may see this record embedded in an event (COMPAT decision 11). */
  visibleTo(record: LinkedRecord, viewer: Viewer): boolean;
}

export function createLinkedPostService(db: Executor, kind: LinkedKind, images: ImageService, siteTimezone: string, clock: Clock): LinkedPostService {
  const info = linkedStore.LINKED_KINDS[kind];
  const fields = LINKED_FIELDS[kind];

  const text = (value: unknown) => stripTags(String(value ?? ''));

  function publicationDates(input: Record<string, unknown>): { date_local?: string; date_gmt?: string } {
    if (!isEmptyValue(input.date)) {
      const d = parseDateInput(input.date as string, siteTimezone);
      if (d) return { date_local: toWallTime(d), date_gmt: toWallTime(d.toUTC()) };
    }
    if (!isEmptyValue(input.date_utc)) {
      const d = parseDateInput(input.date_utc as string, 'UTC');
      if (d) return { date_gmt: toWallTime(d), date_local: toWallTime(d.setZone(siteTimezone)) };
    }
    return {};
  }

  /** Detail columns from the fields present in input. */
  function detailsFrom(input: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of fields.textFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = text(input[f]);
    for (const f of fields.urlFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = isEmptyValue(input[f]) ? '' : String(input[f]).trim();
    for (const f of fields.flagFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = isTruthy(input[f]) ? 1 : 0;
    return out;
  }

  async function createNew(trx: Executor, input: Record<string, unknown>, viewer: Viewer): Promise<number> {
    const name = text(input[fields.nameField]);
    const status = scaleBackStatus(viewer, (input.status as string | undefined) ?? '');
    const nowGmt = clock.nowGmt();
    const nowLocal = clock.nowLocal();
    const dates = publicationDates(input);
    const slug = await uniqueSlug(sanitizeSlug(name) || `${kind}`, (c) => postsStore.isSlugTaken(trx, info.postType, c));
    const content = String(input.description ?? '');
    const id = await postsStore.insertPost(trx, {
      type: info.postType,
      author_id: isEmptyValue(input.author) ? viewer.id : Number(input.author),
      status,
      title: name,
      content: can(viewer, 'unfiltered_html') ? content : sanitizePostHtml(content),
      excerpt: '',
      slug,
      date_local: dates.date_local ?? nowLocal,
      date_gmt: dates.date_gmt ?? (status === 'draft' || status === 'pending' ? '0000-00-00 00:00:00' : nowGmt),
      modified_local: nowLocal,
      modified_gmt: nowGmt,
      image_id: await images.idFor(trx, input.image, viewer),
    });
    const details = detailsFrom(input);
    if (kind === 'venue') {
      if (!('show_map' in details)) details.show_map = 1;
      if (!('show_map_link' in details)) details.show_map_link = 1;
      if (!details.stateprovince) details.stateprovince = deriveStateProvince(details as Record<string, string>);
    }
    await linkedStore.insertLinkedDetails(trx, kind, id, details);
    return id;
  }

  const service: LinkedPostService = {
    kind,

    async create(trx, input, viewer) {
      const name = text(input[fields.nameField]);
      const description = String(input.description ?? '');
      // Duplicate avoidance (behavior.md §7.1): same name, case-insensitively, and same description when one is given.
      const candidates = await postsStore.findPostIdsByTitle(trx, info.postType, name);
      const duplicate = candidates.find((p) => description === '' || p.content === description);
      if (duplicate) {
        const { status: _s, date: _d, date_utc: _du, author: _a, description: _desc, [fields.nameField]: _n, ...rest } = input;
        await service.update(trx, (await service.findById(trx, Number(duplicate.id)))!, rest, viewer);
        return Number(duplicate.id);
      }
      return createNew(trx, input, viewer);
    },

    async update(trx, record, input, viewer) {
      const patch: Record<string, unknown> = {};
      if (fields.nameField in input && input[fields.nameField] != null) patch.title = text(input[fields.nameField]);
      if ('description' in input && input.description != null) {
        const content = String(input.description);
        patch.content = can(viewer, 'unfiltered_html') ? content : sanitizePostHtml(content);
      }
      if ('status' in input && input.status != null) patch.status = scaleBackStatus(viewer, input.status as string);
      if ('author' in input && !isEmptyValue(input.author)) patch.author_id = Number(input.author);
      Object.assign(patch, publicationDates(input));
      if ('image' in input && input.image != null) patch.image_id = await images.idFor(trx, input.image, viewer);
      const details = detailsFrom(input);
      if (kind === 'venue' && !('stateprovince' in details) && ('state' in details || 'province' in details || 'country' in details)) {
        const current = record as linkedStore.VenueRecord;
        details.stateprovince = deriveStateProvince({
          state: (details.state as string | undefined) ?? current.state,
          province: (details.province as string | undefined) ?? current.province,
          country: (details.country as string | undefined) ?? current.country,
        });
      }
      patch.modified_local = clock.nowLocal();
      patch.modified_gmt = clock.nowGmt();
      await postsStore.updatePost(trx, Number(record.id), patch);
      await linkedStore.updateLinkedDetails(trx, kind, Number(record.id), details);
    },

    async trash(trx, record) {
      await postsStore.updatePost(trx, Number(record.id), {
        status: 'trash',
        pre_trash_status: record.status,
        modified_local: clock.nowLocal(),
        modified_gmt: clock.nowGmt(),
      });
      return linkedStore.unlinkFromEvents(trx, kind, Number(record.id));
    },

    async findById(trx, id) {
      return (await linkedStore.findLinkedByIds(trx, kind, [id]))[0];
    },

    async findBySlug(trx, slug) {
      const id = await postsStore.findPostIdBySlug(trx, info.postType, sanitizeSlug(slug) || slug);
      return id === undefined ? undefined : service.findById(trx, id);
    },

    async load(trx, ids) {
      const rows = await linkedStore.findLinkedByIds(trx, kind, [...new Set(ids)]);
      return new Map(rows.map((r) => [Number(r.id), r]));
    },

    async validateEventRef(value, viewer) {
      if (isEmptyValue(value)) return true;
      if (Array.isArray(value) && value.every(isEmptyValue)) return true;
      let entries: unknown[];
      if (typeof value === 'string' || typeof value === 'number') entries = String(value).split(',').map((s) => s.trim());
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
        if (typeof name !== 'string' || name.trim() === '') return false;
        for (const f of fields.urlFields) if (!isEmptyValue(obj[f]) && !isHttpUrl(obj[f])) return false;
        if (!isEmptyValue(obj.image) && !(await images.validateRef(obj.image, viewer, true))) return false;
      }
      if (ids.length) {
        const known = await postsStore.existingIdsOfType(db, info.postType, ids);
        if (ids.some((id) => !known.has(id))) return false;
      }
      return true;
    },

    async idsForEventWrite(trx, value, viewer) {
      if (isEmptyValue(value)) return [];
      let entries: unknown[];
      if (typeof value === 'string' || typeof value === 'number') entries = String(value).split(',').map((s) => s.trim()).filter((s) => s !== '');
      else if (Array.isArray(value)) entries = value.filter((v) => !isEmptyValue(v));
      else entries = [value];
      if (kind === 'venue' && entries.length > 1) throw apiError('could-not-create-venue');
      const ids: number[] = [];
      for (const entry of entries) {
        if (isNumeric(entry)) ids.push(Number(entry));
        else {
          const obj = entry as Record<string, unknown>;
          ids.push(isEmptyValue(obj.id) ? await service.create(trx, obj, viewer) : Number(obj.id));
        }
      }
      return [...new Set(ids)];
    },

    visibleTo(record, viewer) {
      return record.status !== 'trash' && canReadPost(viewer, info.postType, record);
    },
  };
  return service;
}

export type { LinkedRecord, ImageRow };
