/**
 * Networks of calendars (migration 032): where an event came from (`network_sources`: a proposal
 * or a follow of another calendar), a calendar's follows (`calendar_follows`), what a follow
 * mirrors (a source calendar's published, public events), and the network search. The rules are
 * the network service's (`domain/network.ts`); this file holds their SQL.
 *
 * Most statements here are calendar data of the calendar at hand and keep to it through the
 * calendar scope. Three read across calendars on purpose, and say so (`acrossCalendars`): the
 * follows of every calendar (the mirroring job's list), the calendars the change log touched
 * since a position, and the network search, which joins `calendars` to keep to active ones.
 *
 * @example
 *   await inCalendar(b, () => insertSource(db, { post_id: 12, kind: 'follow', … }));
 *   await searchNetwork(db, { search: 'jazz', startLocal: '2027-01-01 00:00:00', limit: 10, offset: 0 });
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import { acrossCalendars } from './calendar-scope.js';
import type { CalendarFollowsTable, Executor, NetworkSourcesTable } from './schema.js';

export type NetworkSourceRow = Selectable<NetworkSourcesTable>;
export type FollowRow = Selectable<CalendarFollowsTable> & { calendar_id?: number };

/** Note where an event of this calendar came from. */
export async function insertSource(db: Executor, row: Insertable<NetworkSourcesTable>): Promise<void> {
  await db.insertInto('network_sources').values(row).execute();
}

export async function updateSourceModified(db: Executor, postId: number, modified: string): Promise<void> {
  await db.updateTable('network_sources').set({ source_modified: modified }).where('post_id', '=', postId).execute();
}

/**
 * Where a proposal of a source event to this calendar holds its place while it is made: a row of
 * its own under the key (calendar, post id) with the source event's id negated (post ids are the
 * whole service's, so no other row has it), which a second proposal of that event at the same time
 * cannot insert again.
 */
export const proposalClaimId = (sourceEventId: number): number => -sourceEventId;

/** Remove a proposal's claim left since before `beforeGmt` (a server that stopped while making it); whether one went. */
export async function dropStaleClaim(db: Executor, sourceEventId: number, beforeGmt: string): Promise<boolean> {
  const r = await db.deleteFrom('network_sources').where('post_id', '=', proposalClaimId(sourceEventId)).where('created_gmt', '<', beforeGmt).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function deleteSource(db: Executor, postId: number): Promise<void> {
  await db.deleteFrom('network_sources').where('post_id', '=', postId).execute();
}

/**
 * A follow's copy the network trashed because the follow no longer brings its source: it stays tied
 * to its source, marked so, for a later follow of it to restore (same id, slug and UID).
 */
export async function endSource(db: Executor, postId: number): Promise<void> {
  await db.updateTable('network_sources').set({ kind: 'follow-ended', follow_id: 0, source_modified: '' }).where('post_id', '=', postId).execute();
}

/** Tie an ended follow's copy to a follow again (its digest cleared: the follow rewrites it). */
export async function retieSource(db: Executor, postId: number, followId: number, sourceUrl: string): Promise<void> {
  await db.updateTable('network_sources').set({ kind: 'follow', follow_id: followId, source_url: sourceUrl, source_modified: '' }).where('post_id', '=', postId).execute();
}

/** This calendar's copies of a calendar's events that no follow holds: accepted or waiting proposals, ended follows' copies. */
export async function unfollowedCopiesFrom(db: Executor, sourceCalendarId: number): Promise<NetworkSourceRow[]> {
  return db.selectFrom('network_sources').selectAll().where('source_calendar_id', '=', sourceCalendarId).where('kind', '!=', 'follow').orderBy('post_id').execute();
}

/** The sources of these events of this calendar (those that came from another). */
export async function sourcesOf(db: Executor, postIds: readonly number[]): Promise<NetworkSourceRow[]> {
  if (postIds.length === 0) return [];
  return db
    .selectFrom('network_sources')
    .selectAll()
    .where('post_id', 'in', [...postIds])
    .execute();
}

/** The copies a follow made in this calendar. */
export async function sourcesOfFollow(db: Executor, followId: number): Promise<NetworkSourceRow[]> {
  return db.selectFrom('network_sources').selectAll().where('kind', '=', 'follow').where('follow_id', '=', followId).orderBy('post_id').execute();
}

/** How many published copies each follow of this calendar holds now, by the follow's id (follows with none are absent). */
export async function publishedCopiesByFollow(db: Executor): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('network_sources')
    .innerJoin('posts', 'posts.id', 'network_sources.post_id')
    .select(['network_sources.follow_id', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('network_sources.kind', '=', 'follow')
    .where('posts.status', '=', 'publish')
    .groupBy('network_sources.follow_id')
    .execute();
  return new Map(rows.map((r) => [Number(r.follow_id), Number(r.n)]));
}

/**
 * The source events of this calendar's proposals from a calendar, among these events of this
 * calendar (every one when `postIds` is undefined): those a follow of it reads again when its
 * moderators judged one.
 */
export async function proposedFrom(db: Executor, sourceCalendarId: number, postIds: ReadonlySet<number> | undefined): Promise<number[]> {
  if (postIds?.size === 0) return [];
  let q = db.selectFrom('network_sources').select('source_event_id').where('kind', '=', 'proposal').where('source_calendar_id', '=', sourceCalendarId);
  if (postIds) q = q.where('post_id', 'in', [...postIds]);
  return (await q.execute()).map((r) => Number(r.source_event_id));
}

/** This calendar's copies of an event of another calendar: its proposals and a follow's copy (any status). */
export async function copiesOf(db: Executor, sourceCalendarId: number, sourceEventId: number): Promise<NetworkSourceRow[]> {
  return db.selectFrom('network_sources').selectAll().where('source_calendar_id', '=', sourceCalendarId).where('source_event_id', '=', sourceEventId).orderBy('post_id').execute();
}

/** Which of these category slugs this calendar has no category of. */
export async function unknownCategories(db: Executor, slugs: readonly string[]): Promise<string[]> {
  if (slugs.length === 0) return [];
  const rows = await db
    .selectFrom('terms')
    .select('slug')
    .where('taxonomy', '=', 'tribe_events_cat')
    .where('slug', 'in', [...slugs])
    .execute();
  const known = new Set(rows.map((r) => r.slug));
  return slugs.filter((s) => !known.has(s));
}

export async function listFollows(db: Executor): Promise<FollowRow[]> {
  return db.selectFrom('calendar_follows').selectAll().orderBy('id').execute();
}

export async function findFollow(db: Executor, sourceCalendarId: number): Promise<FollowRow | undefined> {
  return db.selectFrom('calendar_follows').selectAll().where('source_calendar_id', '=', sourceCalendarId).executeTakeFirst();
}

/** Follow a calendar, or change the categories of a follow: the follow's row. */
export async function upsertFollow(db: Executor, sourceCalendarId: number, categories: string[], nowGmt: string): Promise<FollowRow> {
  const found = await findFollow(db, sourceCalendarId);
  if (found) {
    await db
      .updateTable('calendar_follows')
      .set({ categories: JSON.stringify(categories) })
      .where('id', '=', found.id)
      .execute();
  } else {
    await db
      .insertInto('calendar_follows')
      .values({ source_calendar_id: sourceCalendarId, categories: JSON.stringify(categories), created_gmt: nowGmt })
      .execute();
  }
  return (await findFollow(db, sourceCalendarId))!;
}

export async function deleteFollow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('calendar_follows').where('id', '=', id).execute();
}

/** Every follow of every calendar, with the follower's id: the mirroring job's list (across calendars on purpose). */
export async function everyFollow(db: Executor): Promise<Array<{ id: number; calendar_id: number; source_calendar_id: number; not_copied: number }>> {
  return acrossCalendars(async () => {
    const rows = await db.selectFrom('calendar_follows').select(['id', 'calendar_id', 'source_calendar_id', 'not_copied']).orderBy('calendar_id').orderBy('id').execute();
    return rows.map((r) => ({ id: Number(r.id), calendar_id: Number(r.calendar_id), source_calendar_id: Number(r.source_calendar_id), not_copied: Number(r.not_copied) }));
  });
}

/** How many of its source's events the follower's quota refused at this follow's last sync. */
export async function setNotCopied(db: Executor, id: number, notCopied: number): Promise<void> {
  await db.updateTable('calendar_follows').set({ not_copied: notCopied }).where('id', '=', id).execute();
}

/** The calendars whose data the change log notes between two positions (across calendars on purpose). */
export async function calendarsChanged(db: Executor, from: number, to: number): Promise<number[]> {
  if (to <= from) return [];
  return acrossCalendars(async () => {
    const rows = await db.selectFrom('changes').select('calendar_id').distinct().where('seq', '>', from).where('seq', '<=', to).execute();
    return rows.map((r) => Number(r.calendar_id));
  });
}

/**
 * What the change log says changed in each calendar between `from` and `to`: the events by id, or
 * `all` when anything else changed there (a venue, an organizer, a term, an image, its settings),
 * which any copy may show, or when the window holds more than `limit` rows. Submissions, roles and
 * credentials change no copy.
 */
export async function changedByCalendar(db: Executor, from: number, to: number, limit: number): Promise<Map<number, Set<number> | 'all'>> {
  const out = new Map<number, Set<number> | 'all'>();
  if (to <= from) return out;
  const rows = await acrossCalendars(() =>
    db
      .selectFrom('changes')
      .select(['calendar_id', 'record_type', 'record_id'])
      .distinct()
      .where('seq', '>', from)
      .where('seq', '<=', to)
      .limit(limit + 1)
      .execute(),
  );
  if (rows.length > limit) {
    for (const id of await calendarsChanged(db, from, to)) out.set(id, 'all');
    return out;
  }
  for (const r of rows) {
    const calendar = Number(r.calendar_id);
    const known = out.get(calendar);
    if (known === 'all') continue;
    if (r.record_type === 'event') {
      if (known) known.add(Number(r.record_id));
      else out.set(calendar, new Set([Number(r.record_id)]));
      // Roles and credentials: nothing a copy shows.
    } else if (r.record_type !== 'submission' && r.record_type !== 'role' && r.record_type !== 'credentials') out.set(calendar, 'all');
  }
  return out;
}

/**
 * The events of this calendar a follow mirrors: published, not password-protected (those hidden
 * from listings too: their copies keep the flag, domain/network.ts), and
 * (when `categories` names any) in one of those categories (by slug); with their modified time.
 */
export async function mirroredEvents(db: Executor, categories: readonly string[]): Promise<Array<{ id: number; modified_gmt: string }>> {
  let q = db
    .selectFrom('posts')
    .innerJoin('events', 'events.post_id', 'posts.id')
    .select(['posts.id', 'posts.modified_gmt'])
    .where('posts.type', '=', 'tribe_events')
    .where('posts.status', '=', 'publish')
    .where('posts.password', '=', '')
    // Copies this calendar mirrors from another are not offered on (two calendars that follow each other).
    .where('posts.id', 'not in', (eb) => eb.selectFrom('network_sources').select('network_sources.post_id').where('network_sources.kind', '=', 'follow'));
  if (categories.length > 0) {
    q = q.where('posts.id', 'in', (eb) =>
      eb
        .selectFrom('event_terms')
        .innerJoin('terms', 'terms.id', 'event_terms.term_id')
        .select('event_terms.event_id')
        .where('terms.taxonomy', '=', 'tribe_events_cat')
        .where('terms.slug', 'in', [...categories]),
    );
  }
  const rows = await q.orderBy('posts.id').execute();
  return rows.map((r) => ({ id: Number(r.id), modified_gmt: r.modified_gmt }));
}

export interface NetworkSearchRow {
  id: number;
  title: string;
  slug: string;
  start_local: string;
  end_local: string;
  all_day: number;
  timezone: string;
  calendar_id: number;
  calendar_slug: string;
  calendar_name: string;
  calendar_host: string | null;
}

/**
 * The network search: published, public (no password) events of every active calendar whose title
 * or description holds `search` (case aside) and that end at or after `startLocal`, soonest first,
 * with their calendar; one statement across calendars, joining `calendars` to leave suspended
 * ones out. A copy of another calendar's event is not answered beside its original.
 */
export async function searchNetwork(
  db: Executor,
  filter: { search: string; startLocal?: string; endLocal?: string; limit: number; offset: number },
): Promise<{ rows: NetworkSearchRow[]; total: number }> {
  return acrossCalendars(async () => {
    let q = db
      .selectFrom('posts')
      .innerJoin('events', (j) => j.onRef('events.post_id', '=', 'posts.id').onRef('events.calendar_id', '=', 'posts.calendar_id'))
      .innerJoin('calendars', 'calendars.id', 'posts.calendar_id')
      .where('calendars.status', '=', 'active')
      .where('posts.type', '=', 'tribe_events')
      .where('posts.status', '=', 'publish')
      .where('posts.password', '=', '')
      .where('events.hide_from_listings', '=', 0)
      // Each event once: a copy (a follow's, an accepted proposal's) is left out while its original
      // is published and public in an active calendar, where the search answers the original.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('network_sources as ns')
              .innerJoin('posts as original', (j) => j.onRef('original.id', '=', 'ns.source_event_id').onRef('original.calendar_id', '=', 'ns.source_calendar_id'))
              .innerJoin('calendars as home', 'home.id', 'original.calendar_id')
              .select('ns.post_id')
              .whereRef('ns.post_id', '=', 'posts.id')
              .whereRef('ns.calendar_id', '=', 'posts.calendar_id')
              .where('original.status', '=', 'publish')
              .where('original.password', '=', '')
              .where('home.status', '=', 'active'),
          ),
        ),
      );
    const text = filter.search.trim().toLowerCase();
    if (text !== '') {
      const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or([eb(sql`lower(posts.title)`, 'like', sql`${like} escape '\\'`), eb(sql`lower(posts.content)`, 'like', sql`${like} escape '\\'`)]));
    }
    if (filter.startLocal) q = q.where('events.end_local', '>=', filter.startLocal);
    if (filter.endLocal) q = q.where('events.start_local', '<=', filter.endLocal);
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await q
      .select([
        'posts.id',
        'posts.title',
        'posts.slug',
        'events.start_local',
        'events.end_local',
        'events.all_day',
        'events.timezone',
        'posts.calendar_id',
        'calendars.slug as calendar_slug',
        'calendars.name as calendar_name',
        'calendars.host as calendar_host',
      ])
      .orderBy('events.start_local')
      .orderBy('posts.calendar_id')
      .orderBy('posts.id')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return {
      rows: rows.map((r) => ({ ...r, id: Number(r.id), calendar_id: Number(r.calendar_id), all_day: Number(r.all_day) })),
      total,
    };
  });
}

/**
 * This calendar's follows as an export carries them: the followed calendar by slug (ids differ
 * between installations) and the category slugs followed. A follow of a calendar that is gone is
 * left out (the job ends it).
 */
export async function followsBySlug(db: Executor): Promise<Array<{ calendar: string; categories: string[] }>> {
  const rows = await db
    .selectFrom('calendar_follows')
    .innerJoin('calendars', 'calendars.id', 'calendar_follows.source_calendar_id')
    .select(['calendars.slug', 'calendar_follows.categories'])
    .orderBy('calendar_follows.id')
    .execute();
  return rows.map((r) => ({ calendar: r.slug, categories: JSON.parse(r.categories) as string[] }));
}

/**
 * What this calendar's follows made in it: their copies (and those an ended or withdrawn follow
 * left in the trash, the network's own, which a later follow restores), and the venues and
 * organizers they mirrored (`network_linked`). An export leaves them out: re-creating the follow
 * makes them again. An ended follow's copy taken out of the trash is the calendar's own, and stays.
 */
export async function followMadePosts(db: Executor): Promise<{ copies: number[]; mirrored: number[] }> {
  const copies = await db
    .selectFrom('network_sources')
    .innerJoin('posts', 'posts.id', 'network_sources.post_id')
    .select('network_sources.post_id')
    .where((eb) => eb.or([eb('network_sources.kind', '=', 'follow'), eb.and([eb('network_sources.kind', '=', 'follow-ended'), eb('posts.status', '=', 'trash')])]))
    .execute();
  const mirrored = await db.selectFrom('network_linked').select('post_id').execute();
  return { copies: copies.map((r) => Number(r.post_id)), mirrored: mirrored.map((r) => Number(r.post_id)) };
}
