/**
 * Networks of calendars: proposals, follows and the network search.
 *
 * - **Proposals.** An author or editor of calendar A proposes one of A's published, public events
 *   to calendar B: a copy of it lands in B's moderation queue as a community submission does
 *   (pending, authored by the `community-submissions` user, the proposer as submitter), with its
 *   source (A's slug, the event's id and URL) in `network_sources` and in the queue's view. B's
 *   moderators approve (published in B) or reject (trashed) it through the moderation routes. The
 *   proposer learns the submission's id and status, nothing else of B.
 * - **Follows.** B follows A (optionally some of A's categories, by slug): A's published, public
 *   events are mirrored into B as events of B (so every face of B, its lists, pages, feeds and
 *   embeds, shows them without reading across calendars), each tagged `from: {A's name}` and with
 *   its website the source event's URL; `network_sources` ties each copy to its source. The
 *   `network-follows` job reads the change log across calendars and brings the follows of each
 *   changed calendar up to date: new events copied, changed ones updated, unpublished or deleted ones
 *   (or all, when the follow ends or A is suspended or deleted) trashed, yet (unless A was deleted) kept tied to their
 *   source (`follow-ended`) so that a later follow restores the same copy (those B's editors trashed
 *   too: while the follow lasts they stay out, a new follow is a new choice). An event B has as its own
 *   (an accepted proposal) is not copied again. Copies are read-only in B.
 *   A copy brings its source's venue, organizers and categories as B's records (network-linked.ts).
 * - **Search.** Published, public events of every active calendar, with their calendar
 *   (network-search.ts).
 *
 * @example
 *   await services.network.propose(viewer, 12, 'north');   // in calendar A's request
 *   await services.network.follow(admin, 'south', ['jazz']); // in calendar B's request
 *   await services.network.search({ search: 'jazz', page: 1, perPage: 10 });
 */
import { createHash } from 'node:crypto';
import { headOf } from '../store/change-log.js';
import { calendarIdNow } from '../store/calendar-scope.js';
import * as store from '../store/network.js';
import { isUniqueViolation } from '../store/changes.js';
import { findEventsByIds, type EventRecord } from '../store/events.js';
import type { DomainContext } from './context.js';
import { apiError, forbidden, invalidParams } from './errors.js';
import { isQuotaExceeded } from './quotas.js';
import type { EventInput } from './events/index.js';
import { MAX_TERMS_PER_WRITE } from './terms/index.js';
import { createLinkedMirror, createSourceReader, retireMirrors, sweepMirrors, type LinkedMirror, type LinkedSources } from './network-linked.js';
import { NETWORK_USER } from './network-user.js';
import { can, viewerOf, type Viewer } from './permissions.js';
import { systemAccount } from './system-accounts.js';
import { searchNetwork, type NetworkQuery, type NetworkSearchItem } from './network-search.js';

export type { NetworkSearchItem };

export { NETWORK_USER };

export interface FollowView {
  id: number;
  calendar: { id: number; slug: string; name: string; url: string } | null;
  categories: string[];
  created: string;
  /**
   * The source's events this calendar's `events` quota refused at the follow's last sync: the job
   * copies them as soon as the calendar has room (a raised quota, events deleted).
   */
  not_copied: number;
  /**
   * How many of the source's events this calendar shows now: the follow's copies that are published
   * (those B's editors or the network trashed are not counted).
   */
  copies: number;
}

export interface NetworkService {
  /** Propose an event of the calendar at hand to another calendar's moderation queue. */
  propose(viewer: Viewer, eventId: number, to: string): Promise<{ id: number; status: string; to: { slug: string; name: string }; event_id: number }>;
  /** The calendar at hand's follows. */
  follows(viewer: Viewer): Promise<FollowView[]>;
  /**
   * Follow another calendar (or change the categories followed): its events are mirrored at once,
   * as many as the calendar's `events` quota takes (`not_copied`: those it refused). `made`: whether
   * the follow is new (false: an existing follow's categories were set).
   */
  follow(viewer: Viewer, source: string, categories: string[]): Promise<{ follow: FollowView; made: boolean }>;
  /** End a follow: its copies are trashed (a later follow of the calendar restores them). */
  unfollow(viewer: Viewer, source: string): Promise<void>;
  /**
   * A calendar was deleted: every follow of it ends in each follower as an unfollow ends one (its
   * copies trashed), so that no follow names a calendar that is gone.
   */
  sourceRemoved(calendarId: number): Promise<void>;
  /**
   * The job's step: the follows of the calendars the change log touched since the last step (all
   * on the first) brought up to date. Returns how many follows it synced. A follow whose calendar's
   * `events` quota refused copies is told to `onRefused` (the job logs it); the step goes on.
   */
  syncChanged(onRefused?: (refused: RefusedCopies) => void): Promise<number>;
  /**
   * Bring one follow of the calendar at hand up to date: every event the source offers, or (with
   * `changed`) those the change log says changed, besides the copies of events no longer offered.
   * Returns how many new copies the calendar's `events` quota refused (skipped; tried again on a
   * later step that looks at the source).
   */
  syncFollow(followId: number, changed?: ReadonlySet<number>): Promise<number>;
  search(query: NetworkQuery): Promise<{ items: NetworkSearchItem[]; total: number }>;
}

/** A follow's new copies the follower's `events` quota refused in one step. */
export interface RefusedCopies {
  /** The follower. */
  calendarId: number;
  followId: number;
  sourceCalendarId: number;
  /** How many of the source's events were not copied. */
  notCopied: number;
}

/** Past this many changed records in one step, every offered event of the changed calendars is looked at. */
const CHANGED_EVENTS_LIMIT = 5_000;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const gmt = (ms = Date.now()) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** How long a proposal's claim holds its place after its server stopped while making it. */
const CLAIM_MS = 60_000;

/**
 * A copy's venue, organizers and categories: the follower's records for the source's (its
 * mirrored venue and organizers, by id; its categories, by id). Always all three, so that what the
 * source no longer has leaves the copy.
 */
async function linkedInput(mirror: LinkedMirror, linked: LinkedSources): Promise<Pick<EventInput, 'venue' | 'organizer' | 'categories'>> {
  const venue = linked.venue ? await mirror.idOf(linked.venue) : undefined;
  const organizer: number[] = [];
  for (const o of linked.organizers) {
    const id = await mirror.idOf(o);
    if (id !== undefined) organizer.push(id);
  }
  // As many categories as one event write takes.
  return { venue: venue ?? '', organizer, categories: await mirror.categoryIds(linked.categories.slice(0, MAX_TERMS_PER_WRITE)) };
}

export function createNetworkService(ctx: DomainContext): NetworkService {
  const { calendars, events } = ctx;
  const db = ctx.store.db;
  let networkUserId: number | undefined;
  let cursor: number | undefined;
  /** Each followed calendar's status at the last step. */
  let sourceStatus = new Map<number, string>();

  /** What the mirroring writes as: an administrator of the calendar at hand, under the network's own account. */
  async function writer(): Promise<Viewer> {
    // Never a person's account under that login (one that can sign in): refused then (domain/system-accounts.ts).
    networkUserId ??= await systemAccount(db, ctx.users, NETWORK_USER, { role: 'subscriber', name: 'Calendar network' });
    return viewerOf({ id: networkUserId, login: NETWORK_USER, role: 'administrator' });
  }

  const reader = viewerOf({ id: 2 ** 31 - 1, login: NETWORK_USER, role: 'administrator' });

  /** The fields of an event of the calendar at hand as a copy takes them, with its public URL. */
  async function copyInput(eventId: number): Promise<{ input: EventInput; url: string; modified: string; record: EventRecord } | undefined> {
    // Read from the store, not the kept records: the job runs outside any request of the source.
    const [record] = await findEventsByIds(db, [eventId]);
    if (!record || record.status !== 'publish' || (record.password ?? '') !== '') return undefined;
    const [json] = await events.represent([record], reader, 'single', ctx.links);
    if (!json) return undefined;
    const url = String(json.url ?? '');
    const cost = typeof json.cost === 'string' && json.cost !== '' ? json.cost : undefined;
    return {
      url,
      modified: record.modified_gmt,
      record,
      input: {
        title: record.title,
        description: String(json.description ?? ''),
        start_date: String(json.start_date),
        end_date: String(json.end_date),
        timezone: String(json.timezone),
        all_day: Boolean(json.all_day),
        ...(cost !== undefined ? { cost } : {}),
        website: url,
        // Hidden from the source's lists (reachable by its URL only): the copy is hidden the same way.
        hide_from_listings: json.hide_from_listings === true,
      },
    };
  }

  async function calendarOf(slug: string) {
    const view = await calendars.get(slug);
    if (view.id === calendarIdNow()) throw apiError('network_same_calendar');
    // The caller's calendar answers, not the suspended one: a conflict with that calendar's state, not
    // an outage here (503 would tell a client to retry this service later).
    if (view.status !== 'active') throw apiError('network_calendar_suspended');
    return view;
  }

  const isAdmin = (viewer: Viewer) => viewer.role === 'administrator';

  /** Whether the calendar at hand's `events` quota takes one more event (a look, without the lock). */
  async function hasRoom(): Promise<boolean> {
    try {
      await ctx.quotas.check(db, 'events', 1);
      return true;
    } catch (e) {
      if (isQuotaExceeded(e)) return false;
      throw e;
    }
  }

  async function followView(row: store.FollowRow, copies: ReadonlyMap<number, number>): Promise<FollowView> {
    let calendar: FollowView['calendar'] = null;
    try {
      const c = await calendars.get(Number(row.source_calendar_id));
      calendar = { id: c.id, slug: c.slug, name: c.name, url: c.url };
    } catch {
      // The source calendar was deleted: the next step of the job ends the follow's copies.
    }
    return {
      id: Number(row.id),
      calendar,
      categories: JSON.parse(row.categories) as string[],
      created: row.created_gmt.replace(' ', 'T') + 'Z',
      not_copied: Number(row.not_copied),
      copies: copies.get(Number(row.id)) ?? 0,
    };
  }

  /**
   * Trash a follow's copy the follow no longer brings, and say why (`why`):
   * - `withdrawn`: the follow goes on, the source no longer offers the event (a draft, a category
   *   left, the source suspended). The copy stays tied to its source, marked as an ended follow's, so
   *   that offered again it is restored rather than made anew (a new id, slug and UID, with the
   *   trashed one still counted in the events quota). A copy B's editors trashed themselves stays
   *   this follow's: offered again, it stays out, as it would have.
   * - `ended`: the follow ends. Every copy, those B's editors trashed too, is marked as an ended
   *   follow's: a later follow restores it (a new follow is a new choice) instead of copying the
   *   event again beside it.
   * - `gone`: the source calendar is gone: untied (nothing can bring its events back, and its ids
   *   may be given again).
   */
  async function retireCopy(copy: store.NetworkSourceRow, why: 'withdrawn' | 'ended' | 'gone'): Promise<void> {
    const [record] = await findEventsByIds(db, [Number(copy.post_id)]);
    const wasTrashed = !record || record.status === 'trash';
    if (record && !wasTrashed) await events.trash(record);
    if (!record || why === 'gone') return store.deleteSource(db, Number(copy.post_id));
    if (why === 'withdrawn' && wasTrashed) return;
    await store.endSource(db, Number(copy.post_id));
  }

  /**
   * End a follow of the calendar at hand: its copies trashed, the records it mirrored retired, the
   * follow gone. `sourceGone`: the source calendar was deleted.
   */
  async function endFollow(followId: number, sourceGone = false): Promise<void> {
    for (const copy of await store.sourcesOfFollow(db, followId)) await retireCopy(copy, sourceGone ? 'gone' : 'ended');
    await retireMirrors(ctx, followId);
    await store.deleteFollow(db, followId);
  }

  /** A digest of what a copy is made from: a proposal's (what its moderators judge) and a follow's. */
  const digestOf = (input: EventInput) => createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 19);

  /**
   * Refuse a proposal (in the target calendar) that would give it the event twice, or ask again
   * what its moderators declined: waiting already (`network_already_proposed`), accepted or
   * copied by a follow (`network_already_there`; a copy trashed there no longer counts), or
   * declined (trashed) as it is now. A declined event may be proposed again once it changed.
   * `modified`: the event's modified time, which a proposal made before proposals kept a digest
   * kept instead (so a proposal declined then is refused too until the event changed).
   */
  async function refuseRepeat(sourceCalendarId: number, eventId: number, version: string, modified: string): Promise<void> {
    for (const earlier of await store.copiesOf(db, sourceCalendarId, eventId)) {
      // The claim of the proposal being made (`claimProposal`), this one's.
      if (Number(earlier.post_id) < 0) continue;
      const made = await events.findById(Number(earlier.post_id));
      // Deleted for good there: nothing of it is left to repeat.
      if (!made) continue;
      if (made.status === 'trash') {
        if (earlier.kind === 'proposal' && (earlier.source_modified === version || earlier.source_modified === modified)) throw apiError('network_proposal_declined');
        continue;
      }
      if (earlier.kind === 'proposal' && made.status === 'pending') throw apiError('network_already_proposed');
      throw apiError('network_already_there');
    }
  }

  /**
   * Hold a proposal's place in the target calendar (the calendar at hand) while it is made: the
   * look for an earlier copy and the making are not one step, so two proposals of one event at
   * once (on one server or two) both found none and both landed. The claim's key lets one in; the
   * other answers 409 `network_already_proposed`, as it would a moment later. Released by the
   * caller once the proposal is made or refused; one left by a stopped server is taken over after
   * CLAIM_MS.
   */
  async function claimProposal(sourceCalendarId: number, eventId: number, url: string, version: string): Promise<void> {
    const claim = {
      post_id: store.proposalClaimId(eventId),
      kind: 'proposal',
      follow_id: 0,
      source_calendar_id: sourceCalendarId,
      source_event_id: eventId,
      source_url: url,
      source_modified: version,
    } as const;
    for (let attempt = 1; ; attempt++) {
      try {
        await store.insertSource(db, { ...claim, created_gmt: gmt() });
        return;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (attempt > 1 || !(await store.dropStaleClaim(db, eventId, gmt(Date.now() - CLAIM_MS)))) throw apiError('network_already_proposed');
      }
    }
  }

  const service: NetworkService = {
    async propose(viewer, eventId, to) {
      // Signed in without the role: 403, as WordPress answers an authenticated caller.
      if (viewer.id <= 0 || !can(viewer, 'publish_tribe_events')) throw forbidden(viewer.id > 0);
      const record = await events.findById(eventId);
      if (!record || record.status === 'trash') throw apiError('rest-event-not-found', { args: [eventId] });
      if (Number(record.author_id) !== viewer.id && !can(viewer, 'edit_others_tribe_events')) throw forbidden(true);
      const copy = await copyInput(eventId);
      if (!copy) throw apiError('network_not_public');
      const target = await calendarOf(to);
      const from = await calendars.get(calendarIdNow());
      const user = (await ctx.users.list()).find((u) => Number(u.id) === viewer.id);
      return calendars.within(target.id, async () => {
        if (ctx.config.submissions === 'off') throw apiError('network_proposals_closed');
        const version = digestOf(copy.input);
        await claimProposal(from.id, eventId, copy.url, version);
        try {
          await refuseRepeat(from.id, eventId, version, copy.modified);
          const source = { calendar: from.slug, url: copy.url, event_id: eventId };
          const made = await ctx.submissions.receiveProposal(copy.input, { userId: viewer.id, name: user?.display_name || viewer.login, email: user?.email ?? '', source });
          await store.insertSource(db, {
            post_id: made.eventId,
            kind: 'proposal',
            follow_id: 0,
            source_calendar_id: from.id,
            source_event_id: eventId,
            source_url: copy.url,
            // What was proposed, to tell the same event proposed again after a decline from a changed one.
            source_modified: version,
            created_gmt: gmt(),
          });
          return { id: made.id, status: 'pending', to: { slug: target.slug, name: target.name }, event_id: eventId };
        } finally {
          await store.deleteSource(db, store.proposalClaimId(eventId));
        }
      });
    },

    async follows(viewer) {
      if (!isAdmin(viewer)) throw apiError('rest_forbidden');
      const out: FollowView[] = [];
      const copies = await store.publishedCopiesByFollow(db);
      for (const row of await store.listFollows(db)) out.push(await followView(row, copies));
      return out;
    },

    async follow(viewer, source, categories) {
      if (!isAdmin(viewer)) throw apiError('rest_forbidden');
      for (const slug of categories) if (!/^[a-z0-9%_-]{1,200}$/.test(slug)) throw invalidParams({ categories: 'Category slugs of the followed calendar.' });
      const target = await calendarOf(source);
      const wanted = [...new Set(categories)];
      // A slug the source has no category of would follow nothing, silently: refused.
      const unknown = await calendars.within(target.id, () => store.unknownCategories(db, wanted));
      if (unknown.length > 0) throw invalidParams({ categories: `${target.name} has no category ${unknown.map((s) => `“${s}”`).join(', ')}.` });
      const made = (await store.findFollow(db, target.id)) === undefined;
      const row = await store.upsertFollow(db, target.id, wanted, gmt());
      // The follow is kept even when the calendar's events quota refuses some copies (as the job
      // keeps it): the answer says how many were not copied; a later step copies them once there is room.
      const notCopied = await service.syncFollow(Number(row.id));
      return { follow: { ...(await followView(row, await store.publishedCopiesByFollow(db))), not_copied: notCopied }, made };
    },

    async unfollow(viewer, source) {
      if (!isAdmin(viewer)) throw apiError('rest_forbidden');
      const target = await calendars.get(source);
      const row = await store.findFollow(db, target.id);
      if (!row) throw apiError('network_follow_not_found');
      await endFollow(Number(row.id));
    },

    async sourceRemoved(calendarId) {
      for (const f of await store.everyFollow(db)) {
        if (f.source_calendar_id === calendarId) await calendars.within(f.calendar_id, () => endFollow(f.id, true));
      }
    },

    async syncFollow(followId, changed) {
      const follow = (await store.listFollows(db)).find((f) => Number(f.id) === followId);
      if (!follow) return 0;
      let notCopied = 0;
      // Whether the calendar's events quota refused a new copy in this sync (the later ones are refused unasked).
      let full = false;
      const sourceId = Number(follow.source_calendar_id);
      const categories = JSON.parse(follow.categories) as string[];
      // What the source offers now: nothing when it is suspended or gone.
      let sourceName = '';
      const offered = new Map<number, string>();
      try {
        const source = await calendars.get(sourceId);
        sourceName = source.name;
        if (source.status === 'active') {
          await calendars.within(sourceId, async () => {
            for (const e of await store.mirroredEvents(db, categories)) offered.set(e.id, e.modified_gmt);
          });
        }
      } catch (e) {
        if (!(e instanceof Error && 'code' in e && (e as { code: string }).code === 'calendar_not_found')) throw e;
        // The source was deleted (by a way that did not end its follows at once): the follow ends
        // here, as an unfollow, rather than stay naming a calendar that is gone.
        await endFollow(followId, true);
        return 0;
      }
      const me = await writer();
      const copies = new Map((await store.sourcesOfFollow(db, followId)).map((c) => [Number(c.source_event_id), c]));
      // Whether a copy changed: the mirrored venues and organizers are then swept (below).
      let touched = false;
      // Copies of events no longer offered: those whose source event is gone for good are untied from
      // the follow (nothing can bring them back, so B's editors may keep one as their own, and the
      // follow stops looking at it at every step); the others stay the follow's, trashed.
      const withdrawn = [...copies].filter(([sourceEventId]) => !offered.has(sourceEventId));
      const stillThere =
        withdrawn.length === 0
          ? new Set<number>()
          : new Set(
              (
                await calendars.within(sourceId, () =>
                  findEventsByIds(
                    db,
                    withdrawn.map(([id]) => id),
                  ),
                )
              ).map((r) => Number(r.id)),
            );
      for (const [sourceEventId, copy] of withdrawn) {
        // Offered again later (published again, the source resumed, its category followed again): restored.
        await retireCopy(copy, stillThere.has(sourceEventId) ? 'withdrawn' : 'ended');
        touched = true;
      }
      // This calendar's other copies of the source's events: accepted or waiting proposals, and
      // copies of an ended follow (or of events the source withdrew) in the trash.
      const others = new Map<number, store.NetworkSourceRow[]>();
      for (const c of await store.unfollowedCopiesFrom(db, sourceId)) others.set(Number(c.source_event_id), [...(others.get(Number(c.source_event_id)) ?? []), c]);
      // The copies as they are here (one read), and what brings their venues, organizers and categories.
      const copyIds = [...copies.values(), ...[...others.values()].flat()].map((c) => Number(c.post_id));
      const copyRecords = new Map((await findEventsByIds(db, copyIds)).map((r) => [Number(r.id), r]));
      const readLinked = createSourceReader(db);
      const mirror = createLinkedMirror(ctx, followId, me);
      for (const sourceEventId of offered.keys()) {
        let copy = copies.get(sourceEventId);
        let record = copy ? copyRecords.get(Number(copy.post_id)) : undefined;
        // A copy B's editors trashed (or deleted) stays so (their way to leave one event out).
        if (copy && (!record || record.status === 'trash')) continue;
        // A copy of an event the log says did not change is as it was made.
        if (copy && changed && !changed.has(sourceEventId)) continue;
        // Not brought by this follow yet. B has the event already as its own (a proposal it accepted
        // or has yet to judge, an ended follow's copy it took out of the trash): the follow leaves
        // it so rather than copy it twice, and neither overwrites nor makes read-only what B's
        // moderators chose to keep (nor trashes it when the follow ends).
        const earlier = copy ? [] : (others.get(sourceEventId) ?? []);
        // (A proposal of it being made holds its place: `claimProposal`.)
        if (earlier.some((c) => Number(c.post_id) < 0 || (copyRecords.get(Number(c.post_id))?.status ?? 'trash') !== 'trash')) continue;
        // An ended follow's copy in the trash: restored below and written as this follow's.
        const ended = earlier.find((c) => c.kind === 'follow-ended' && copyRecords.has(Number(c.post_id)));
        if (ended) {
          copy = ended;
          record = copyRecords.get(Number(ended.post_id));
        }
        // A new copy the calendar's events quota has no room for is refused before its venue and
        // organizers are mirrored: made, then trashed by the sweep, they would pile up in the trash
        // at every step that tries the event again. (The create below still holds the quota.) Once
        // full, the calendar stays so for the rest of this sync: no count is asked again.
        if (!(copy && record) && (full || !(await hasRoom()))) {
          full = true;
          notCopied++;
          continue;
        }
        const fields = await calendars.within(sourceId, async () => {
          const made = await copyInput(sourceEventId);
          return made && { ...made, linked: await readLinked(made.record) };
        });
        if (!fields) continue;
        // The source shows in every face: a tag, the website, and a line of the description (feeds carry it).
        const from = `from: ${sourceName}`;
        const description = `${fields.input.description ?? ''}<p>${escapeHtml(from)} <a href="${escapeHtml(fields.url)}">${escapeHtml(fields.url)}</a></p>`;
        const input: EventInput = { ...fields.input, description, tags: [from], status: 'publish', ...(await linkedInput(mirror, fields.linked)) };
        // What the copy was made from, as a digest: a change within the same second as the last copy counts too.
        const version = createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 19);
        if (copy && copy.source_modified === version) continue;
        touched = true;
        if (copy && record) {
          if (copy.kind === 'follow-ended') {
            // Tied to this follow before its update, so that a failed update is tried again, not left as B's own.
            record = await events.restore(record);
            await store.retieSource(db, Number(copy.post_id), followId, fields.url);
          }
          await events.update(me, record, input);
          await store.updateSourceModified(db, Number(copy.post_id), version);
        } else {
          let made;
          try {
            made = await events.create(me, input);
          } catch (e) {
            // A full calendar skips this copy alone: its other copies, and the other follows, go on.
            if (!isQuotaExceeded(e)) throw e;
            full = true;
            notCopied++;
            // A venue or organizer mirrored for it alone is swept as any unused one is.
            touched = true;
            continue;
          }
          await store.insertSource(db, {
            post_id: Number(made.id),
            kind: 'follow',
            follow_id: followId,
            source_calendar_id: sourceId,
            source_event_id: sourceEventId,
            source_url: fields.url,
            source_modified: version,
            created_gmt: gmt(),
          });
        }
      }
      if (touched) await sweepMirrors(ctx, followId);
      if (notCopied !== Number(follow.not_copied)) await store.setNotCopied(db, followId, notCopied);
      return notCopied;
    },

    async syncChanged(onRefused) {
      const head = await headOf(db);
      const from = cursor ?? -1;
      const all = await store.everyFollow(db);
      if (all.length === 0) {
        cursor = head;
        return 0;
      }
      // The first step after a start looks at every follow; then those of calendars whose data
      // changed, or that were suspended, resumed or deleted (which the change log does not note).
      // Of a calendar whose events alone changed, only those events are copied again.
      const changed = from < 0 ? undefined : await store.changedByCalendar(db, from, head, CHANGED_EVENTS_LIMIT);
      const statuses = new Map<number, string>();
      for (const id of new Set(all.map((f) => f.source_calendar_id))) {
        const status = await calendars.get(id).then(
          (c) => c.status,
          () => 'deleted',
        );
        statuses.set(id, status);
        if (changed && sourceStatus.get(id) !== status) changed.set(id, 'all');
      }
      let n = 0;
      for (const f of all) {
        let events = changed?.get(f.source_calendar_id);
        // A proposal of the source's events judged in the follower (declined, or accepted and then
        // trashed) no longer holds the follow off that event: it is read again, though the source
        // did not change.
        const here = changed?.get(f.calendar_id);
        if (here !== undefined && events !== 'all') {
          const judged = await calendars.within(f.calendar_id, () => store.proposedFrom(db, f.source_calendar_id, here === 'all' ? undefined : here));
          if (judged.length > 0) events = new Set([...(events ?? []), ...judged]);
        }
        // A follow whose copies the follower's quota refused: tried again once the follower has room
        // (a raised quota, events deleted), whether or not the source changed. With no event of the
        // source named, the sync copies what is missing and leaves the copies it has as they are.
        if (changed && events === undefined && f.not_copied > 0 && (await calendars.within(f.calendar_id, () => hasRoom()))) events = new Set();
        if (changed && events === undefined) continue;
        const notCopied = await calendars.within(f.calendar_id, () => service.syncFollow(f.id, events === 'all' ? undefined : events));
        if (notCopied > 0) onRefused?.({ calendarId: f.calendar_id, followId: f.id, sourceCalendarId: f.source_calendar_id, notCopied });
        n++;
      }
      cursor = head;
      sourceStatus = statuses;
      return n;
    },

    search: (query) => searchNetwork(ctx, query),
  };
  return service;
}
