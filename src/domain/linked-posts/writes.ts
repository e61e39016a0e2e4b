/**
 * Venue and organizer writes: creation with the original's duplicate avoidance, partial updates,
 * trash, each also in a write transaction of its own (the direct routes).
 *
 * @example
 *   const writes = createWrites(deps, readModel);
 *   const id = await writes.create(trx, { venue: 'Town Hall', city: 'Springfield' }, viewer);
 */
import type { Executor, PostRow } from '../../store/schema.js';
import * as linkedStore from '../../store/linked-posts.js';
import type { LinkedRecord } from '../../store/linked-posts.js';
import * as postsStore from '../../store/posts.js';
import { lockForWrite } from '../../store/locks.js';
import { isMirrored } from '../../store/network-linked.js';
import { writeTransaction } from '../../store/changes.js';
import { parseDateInput } from '../dates/strtotime.js';
import { toWallTime } from '../dates/wall.js';
import { apiError, invalidParams } from '../errors.js';
import { NETWORK_USER } from '../network-user.js';
import { can, canEditPost, canReadPost, type Viewer } from '../permissions.js';
import { sanitizeSlug, uniqueSlug } from '../slugs.js';
import { applyScheduling, scaleBackStatus } from '../statuses.js';
import { markupFailure } from '../text/markup-limit.js';
import { phpTrim } from '../text/php.js';
import { sanitizePostHtml } from '../text/kses.js';
import { stripTags } from '../text/tags.js';
import { isEmptyValue, isTruthy } from '../values.js';
import type { LinkedReadModel } from './read-model.js';
import { coordinatesFrom, deriveStateProvince, ZERO_DATE } from './rules.js';
import type { LinkedPostService, LinkedServiceDeps } from './types.js';

/** The write side of the service. */
export type LinkedWrites = Pick<LinkedPostService, 'create' | 'update' | 'trash' | 'createPost' | 'updatePost' | 'trashPost'>;

const text = (value: unknown) => stripTags(String(value ?? ''));
/** A name as stored: trimmed, as WordPress' title_save_pre (PHP trim). */
const nameText = (value: unknown) => phpTrim(text(value));

/** The publication dates an input gives (`date` in the site's zone, else `date_utc`), both forms. */
function publicationDates(siteTimezone: string, input: Record<string, unknown>): { date_local?: string; date_gmt?: string } {
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
function detailsFrom({ kind, fields }: Pick<LinkedServiceDeps, 'kind' | 'fields'>, input: Record<string, unknown>, current?: LinkedRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields.textFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = text(input[f]);
  for (const f of fields.urlFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = isEmptyValue(input[f]) ? '' : String(input[f]).trim();
  for (const f of fields.flagFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = isTruthy(input[f]) ? 1 : 0;
  if (kind === 'venue') Object.assign(out, coordinatesFrom(input, current as linkedStore.VenueRecord | undefined));
  return out;
}

export function createWrites(deps: LinkedServiceDeps, readModel: LinkedReadModel): LinkedWrites {
  const { db, kind, images, siteTimezone, clock, info, fields } = deps;

  async function createNew(trx: Executor, input: Record<string, unknown>, viewer: Viewer, slugBase?: string): Promise<number> {
    const name = nameText(input[fields.nameField]);
    const nowGmt = clock.nowGmt();
    const nowLocal = clock.nowLocal();
    const dates = publicationDates(siteTimezone, input);
    // `future` without a date publishes now, as in WordPress (applyScheduling against now).
    const status = applyScheduling(scaleBackStatus(viewer, (input.status as string | undefined) ?? ''), dates.date_gmt ?? nowGmt, nowGmt);
    const slug = await uniqueSlug(sanitizeSlug(slugBase ?? '') || sanitizeSlug(name) || `${kind}`, (c) => postsStore.isSlugTaken(trx, info.postType, c));
    const content = String(input.description ?? '');
    const tooDense = markupFailure('description', content); // bounded rendering
    if (tooDense) throw invalidParams({ description: tooDense });
    const id = await postsStore.insertPost(trx, {
      type: info.postType,
      author_id: isEmptyValue(input.author) ? viewer.id : Number(input.author),
      status,
      title: name,
      content: can(viewer, 'unfiltered_html') ? content : sanitizePostHtml(content),
      excerpt: '',
      slug,
      date_local: dates.date_local ?? nowLocal,
      date_gmt: dates.date_gmt ?? (status === 'draft' || status === 'pending' ? ZERO_DATE : nowGmt),
      modified_local: nowLocal,
      modified_gmt: nowGmt,
      image_id: await images.idFor(trx, input.image, viewer),
      // WordPress' post_password, stored as given (the route checked it: post-passwords.ts).
      password: typeof input.password === 'string' ? input.password : '',
    });
    const details = detailsFrom(deps, input);
    if (kind === 'venue') {
      if (!('show_map' in details)) details.show_map = 1;
      if (!('show_map_link' in details)) details.show_map_link = 1;
      if (!details.stateprovince) details.stateprovince = deriveStateProvince(details as Record<string, string>);
    }
    await linkedStore.insertLinkedDetails(trx, kind, id, details);
    return id;
  }

  const writes: LinkedWrites = {
    async create(trx, input, viewer, options) {
      if (options?.exact) return createNew(trx, input, viewer, typeof input.slug === 'string' ? input.slug : undefined);
      const name = nameText(input[fields.nameField]);
      const description = String(input.description ?? '');
      // Duplicate avoidance (behavior.md §7.1): same name, case-insensitively, and same description
      // when one is given. Unlike the original, only a record the viewer may read counts as a
      // duplicate, and its fields are overwritten only when the viewer may edit it (otherwise a
      // contributor could rewrite anyone's venue by posting its name).
      // Look-up and insert must not race with another create (store/locks.ts).
      await lockForWrite(trx, info.postType);
      const candidates = await postsStore.findPostIdsByTitle(trx, info.postType, name);
      // Both compared case-insensitively, as the original's database collation does.
      const folded = description.toLowerCase();
      const duplicate = candidates.find((p: PostRow) => (description === '' || p.content.toLowerCase() === folded) && canReadPost(viewer, info.postType, p));
      if (duplicate) {
        // A venue or organizer mirrored from a followed calendar is linked to, never rewritten.
        if (canEditPost(viewer, info.postType, duplicate) && !(await isMirrored(trx, Number(duplicate.id)))) {
          const { status: _s, date: _d, date_utc: _du, author: _a, description: _desc, [fields.nameField]: _n, ...rest } = input;
          await writes.update(trx, (await readModel.findById(Number(duplicate.id), trx))!, rest, viewer);
        }
        return Number(duplicate.id);
      }
      return createNew(trx, input, viewer);
    },

    async update(trx, record, input, viewer) {
      // A record mirrored from a followed calendar follows its source: only the mirroring changes it.
      if (viewer.login !== NETWORK_USER && (await isMirrored(trx, Number(record.id)))) throw apiError('network_linked_read_only');
      const patch: Record<string, unknown> = {};
      if (fields.nameField in input && input[fields.nameField] != null) patch.title = nameText(input[fields.nameField]);
      if ('description' in input && input.description != null) {
        const content = String(input.description);
        const tooDense = markupFailure('description', content);
        if (tooDense) throw invalidParams({ description: tooDense });
        patch.content = can(viewer, 'unfiltered_html') ? content : sanitizePostHtml(content);
      }
      if ('author' in input && !isEmptyValue(input.author)) patch.author_id = Number(input.author);
      if (typeof input.password === 'string') patch.password = input.password;
      const nowGmt = clock.nowGmt();
      const nowLocal = clock.nowLocal();
      const dates = publicationDates(siteTimezone, input);
      Object.assign(patch, dates);
      let status = record.status;
      if (typeof input.status === 'string' && input.status !== '') status = scaleBackStatus(viewer, input.status);
      const dateGmt = dates.date_gmt ?? record.date_gmt;
      if (status !== record.status || dates.date_gmt) status = applyScheduling(status, dateGmt === ZERO_DATE ? nowGmt : dateGmt, nowGmt);
      if (status !== record.status) {
        patch.status = status;
        if (record.status === 'trash') patch.pre_trash_status = '';
        // First publication of a draft: it gets its publication date now (WordPress).
        if ((status === 'publish' || status === 'future' || status === 'private') && record.date_gmt === ZERO_DATE && !dates.date_gmt) {
          patch.date_gmt = nowGmt;
          patch.date_local = nowLocal;
        }
      }
      if ('image' in input && input.image != null) patch.image_id = await images.idFor(trx, input.image, viewer);
      const details = detailsFrom(deps, input, record);
      // stateprovince: derived when sent empty, or when not sent and what it derives from changes (§7.2).
      const spSent = 'stateprovince' in details;
      if (kind === 'venue' && ((spSent && details.stateprovince === '') || (!spSent && ('state' in details || 'province' in details || 'country' in details)))) {
        const current = record as linkedStore.VenueRecord;
        details.stateprovince = deriveStateProvince({
          state: (details.state as string | undefined) ?? current.state,
          province: (details.province as string | undefined) ?? current.province,
          country: (details.country as string | undefined) ?? current.country,
        });
      }
      patch.modified_local = nowLocal;
      patch.modified_gmt = nowGmt;
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

    createPost(input, viewer) {
      return writeTransaction(db, (trx) => writes.create(trx, input, viewer));
    },

    updatePost(record, input, viewer) {
      return writeTransaction(db, (trx) => writes.update(trx, record, input, viewer));
    },

    async trashPost(record) {
      await writeTransaction(db, (trx) => writes.trash(trx, record));
    },
  };
  return writes;
}
