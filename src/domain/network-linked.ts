/**
 * Networks of calendars: what a follow's copy brings of its source event besides its own fields,
 * its venue, its organizers and its categories, as records of the follower.
 *
 * - **Read in the source calendar** (`createSourceReader`): the event's venue and organizers that
 *   an anonymous reader of the source sees (published, not password-protected), as write fields
 *   (name, address, city, state, province, zip, country, phone, website, coordinates; name,
 *   e-mail, phone, website), and its categories' names and slugs.
 * - **Written in the follower** (`createLinkedMirror`): each source venue or organizer has one
 *   mirrored record per follow (`network_linked`), created at its first use, rewritten when the
 *   source's fields change, reused by every copy that names it. The follower's editors cannot
 *   change one (403 `network_linked_read_only`); trashing one leaves it off the copies, as trashing
 *   a copy leaves the event out. Categories are found in the follower by slug, then by name, and
 *   created when missing: they are the follower's own, shared with its own events.
 * - **When a follow ends** (`retireMirrors`): a mirrored record no event of the follower uses any
 *   more (its copies trashed) is trashed; one the follower's own events use stays, as its own.
 * - **When a step changed copies** (`sweepMirrors`): the same for the mirrored records no copy
 *   names any more (a source event moved to another venue), whose notes go.
 *
 * @example
 *   const linked = await calendars.within(a, () => readSource(record));   // in the followed calendar
 *   const venueId = await mirror.idOf(linked.venue!);                      // in the follower
 */
import { createHash } from 'node:crypto';
import { writeTransaction } from '../store/changes.js';
import { organizerLinksOf, type EventRecord } from '../store/events.js';
import * as linkedStore from '../store/linked-posts.js';
import type { LinkedKind, LinkedRecord, VenueRecord, OrganizerRecord } from '../store/linked-posts.js';
import * as store from '../store/network-linked.js';
import type { Executor } from '../store/schema.js';
import * as termsStore from '../store/terms.js';
import type { DomainContext } from './context.js';
import { ApiError } from './errors.js';
import { ANONYMOUS, canReadPost, type Viewer } from './permissions.js';
import { isProtected } from './post-passwords.js';
import { hasCoordinates } from './representations/venue.js';

/** A source venue or organizer: its id in the followed calendar and the fields its mirror takes. */
export interface LinkedSource {
  kind: LinkedKind;
  id: number;
  fields: Record<string, unknown>;
}

/** What a copy brings besides the event's own fields. */
export interface LinkedSources {
  venue?: LinkedSource;
  organizers: LinkedSource[];
  categories: Array<{ name: string; slug: string }>;
}

/** Write fields of a venue or organizer record, as its mirror takes them. */
function fieldsOf(kind: LinkedKind, r: LinkedRecord): Record<string, unknown> {
  if (kind === 'organizer') {
    const o = r as OrganizerRecord;
    return { organizer: o.title, email: o.email, phone: o.phone, website: o.website };
  }
  const v = r as VenueRecord;
  const located = hasCoordinates(v);
  return {
    venue: v.title,
    address: v.address,
    city: v.city,
    state: v.state,
    province: v.province,
    stateprovince: v.stateprovince,
    zip: v.zip,
    country: v.country,
    phone: v.phone,
    website: v.website,
    show_map: Boolean(v.show_map),
    show_map_link: Boolean(v.show_map_link),
    // Cleared when the source has none (null clears both).
    geo_lat: located ? Number(v.geo_lat) : null,
    geo_lng: located ? Number(v.geo_lng) : null,
  };
}

const POST_TYPES = { venue: 'tribe_venue', organizer: 'tribe_organizer' } as const;

/**
 * A reader of source events' venues, organizers and categories, for one step of a follow: run in
 * the followed calendar. Each venue or organizer is read once per step, however many events name it.
 */
export function createSourceReader(db: Executor): (record: EventRecord) => Promise<LinkedSources> {
  const seen = new Map<string, LinkedSource | null>();
  async function sources(kind: LinkedKind, ids: number[]): Promise<LinkedSource[]> {
    const missing = ids.filter((id) => !seen.has(`${kind}:${id}`));
    if (missing.length) {
      const found = new Map((await linkedStore.findLinkedByIds(db, kind, missing)).map((r) => [Number(r.id), r]));
      for (const id of missing) {
        const r = found.get(id);
        // Only what an anonymous reader of the source sees leaves it.
        const shown = r && r.status !== 'trash' && !isProtected(r) && canReadPost(ANONYMOUS, POST_TYPES[kind], r);
        seen.set(`${kind}:${id}`, shown ? { kind, id, fields: fieldsOf(kind, r) } : null);
      }
    }
    return ids.map((id) => seen.get(`${kind}:${id}`)).filter((s): s is LinkedSource => !!s);
  }
  return async (record) => {
    const id = Number(record.id);
    const venueId = record.venue_id === null || record.venue_id === undefined ? [] : [Number(record.venue_id)];
    const organizerIds = (await organizerLinksOf(db, [id])).map((l) => Number(l.organizer_id));
    const [venue] = await sources('venue', venueId);
    return {
      ...(venue ? { venue } : {}),
      organizers: await sources('organizer', organizerIds),
      categories: await store.categoriesOfEvent(db, id),
    };
  };
}

const digestOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 19);

export interface LinkedMirror {
  /** The follower's record for a source venue or organizer (made or brought up to date); none when its editors trashed it. */
  idOf(source: LinkedSource): Promise<number | undefined>;
  /** The follower's categories of these names and slugs (found, or created). */
  categoryIds(categories: LinkedSources['categories']): Promise<number[]>;
}

/** The mirror of one follow for one step, in the follower's calendar, written as `writer`. */
export function createLinkedMirror(ctx: DomainContext, followId: number, writer: Viewer): LinkedMirror {
  const db = ctx.store.db;
  const service = (kind: LinkedKind) => (kind === 'venue' ? ctx.venues : ctx.organizers);
  let state: Promise<{ rows: Map<string, store.MirrorRow>; records: Map<number, LinkedRecord> }> | undefined;
  // The follow's mirrors and their records, read once per step (three statements).
  const load = () =>
    (state ??= (async () => {
      const rows = await store.mirrorsOfFollow(db, followId);
      const records = new Map<number, LinkedRecord>();
      for (const kind of ['venue', 'organizer'] as const) {
        const ids = rows.filter((r) => r.kind === kind).map((r) => Number(r.post_id));
        for (const r of await linkedStore.findLinkedByIds(db, kind, ids)) records.set(Number(r.id), r);
      }
      return { rows: new Map(rows.map((r) => [`${r.kind}:${r.source_id}`, r])), records };
    })());
  const resolved = new Map<string, Promise<number | undefined>>();
  const categories = new Map<string, Promise<number>>();

  async function resolve(source: LinkedSource): Promise<number | undefined> {
    const { rows, records } = await load();
    const digest = digestOf(source.fields);
    const row = rows.get(`${source.kind}:${source.id}`);
    const record = row ? records.get(Number(row.post_id)) : undefined;
    if (row && record) {
      // Its editors trashed it: the copies go without it, as a trashed copy stays trashed.
      if (record.status === 'trash') return undefined;
      if (row.source_digest !== digest) {
        await writeTransaction(db, async (trx) => {
          await service(source.kind).update(trx, record, source.fields, writer);
          await store.setMirrorDigest(trx, followId, source.kind, source.id, digest);
        });
      }
      return Number(record.id);
    }
    // None yet (or deleted for good here): made, as it is, with no duplicate avoidance (which
    // would take over, and rewrite, a record of the follower's own of the same name).
    return writeTransaction(db, async (trx) => {
      const made = await service(source.kind).create(trx, { ...source.fields, status: 'publish' }, writer, { exact: true });
      await store.saveMirror(trx, { follow_id: followId, kind: source.kind, source_id: source.id, post_id: made, source_digest: digest, created_gmt: ctx.clock.nowGmt() });
      return made;
    });
  }

  async function category(c: { name: string; slug: string }): Promise<number> {
    const found = (await termsStore.findTermBySlug(db, 'tribe_events_cat', c.slug)) ?? (await termsStore.findTermsByName(db, 'tribe_events_cat', c.name))[0];
    if (found) return Number(found.id);
    try {
      return await writeTransaction(db, (trx) => ctx.categories.create(trx, { name: c.name, slug: c.slug }, 'categories'));
    } catch (e) {
      // Made meanwhile by someone else: that one.
      if (e instanceof ApiError && e.code === 'term_exists' && typeof e.data.term_id === 'number') return e.data.term_id;
      throw e;
    }
  }

  return {
    idOf(source) {
      const key = `${source.kind}:${source.id}`;
      let id = resolved.get(key);
      if (!id) resolved.set(key, (id = resolve(source)));
      return id;
    },
    async categoryIds(wanted) {
      const ids: number[] = [];
      for (const c of wanted) {
        let id = categories.get(c.slug);
        if (!id) categories.set(c.slug, (id = category(c)));
        ids.push(await id);
      }
      return [...new Set(ids)];
    },
  };
}

/**
 * A follow ends: each record it mirrored that no event of the follower uses any more (its copies
 * trashed) is trashed; one the follower's own events use is left as the follower's own. The
 * follow's notes of its mirrors go.
 */
export async function retireMirrors(ctx: DomainContext, followId: number): Promise<void> {
  await trashUnused(ctx, followId);
  await store.deleteMirrorsOfFollow(ctx.store.db, followId);
}

/**
 * After a follow's step changed its copies: a mirrored record none of the follower's events uses
 * any more (the copies that named it now name another, or are gone) is trashed, and its note goes,
 * so that a later copy naming its source again mirrors it anew.
 */
export async function sweepMirrors(ctx: DomainContext, followId: number): Promise<void> {
  for (const { kind, id } of await trashUnused(ctx, followId)) await store.deleteMirror(ctx.store.db, followId, kind, id);
}

/** Trash the follow's mirrored records no event of the follower that is not trashed uses; answers them. */
async function trashUnused(ctx: DomainContext, followId: number): Promise<Array<{ kind: 'venue' | 'organizer'; id: number }>> {
  const db = ctx.store.db;
  const rows = await store.mirrorsOfFollow(db, followId);
  const gone: Array<{ kind: 'venue' | 'organizer'; id: number }> = [];
  for (const kind of ['venue', 'organizer'] as const) {
    const ids = rows.filter((r) => r.kind === kind).map((r) => Number(r.post_id));
    if (ids.length === 0) continue;
    const used = await store.linkedInUse(db, kind, ids);
    const service = kind === 'venue' ? ctx.venues : ctx.organizers;
    const unused = ids.filter((id) => !used.has(id));
    for (const record of await linkedStore.findLinkedByIds(db, kind, unused)) {
      if (record.status !== 'trash') await service.trashPost(record);
    }
    gone.push(...unused.map((id) => ({ kind, id })));
  }
  return gone;
}
