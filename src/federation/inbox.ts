/**
 * What the inboxes do with an activity Fedify has verified (and queued, and handed back on the
 * `federation-inbox` job): a Follow of the calendar makes a follower (accepted at once, or waiting
 * for an editor: the domain's `followStatus`) and answers Accept; an Undo of it or a Delete of the
 * actor itself removes the follower; anything else is kept when FEDERATION_KEEP_ACTIVITIES says
 * so. An unverifiable Delete of an actor by itself (its server deleted the account and its key)
 * removes the follower only once its actor URL answers 410 or 404 to us. An accepted follower that
 * undoes its Follow of the calendar's old actor (after a rename) is remembered for a day: its Follow
 * of the new actor, which Mastodon's migration sends apart and may deliver second, is accepted as
 * it was, even when follows wait for an editor.
 *
 * An account deleted is gone for every calendar it follows, whichever inbox its Delete reached
 * (servers send it once, to each shared inbox they know): its follower rows are found across
 * calendars (one indexed look) and each is removed in its calendar, suspended calendars included
 * (removing a follower sends nothing, and a deleted account will never be delivered to again).
 *
 * @example registerInboxListeners(federation, { store, config, urls, clock, logger, deliveries, userAgent, within })
 */
import type { Federation } from '@fedify/fedify';
import { Activity, Delete, Follow, Undo, isActor } from '@fedify/vocab';
import type { Config } from '../config.js';
import type { Services } from '../domain/services.js';
import { followStatus } from '../domain/federation.js';
import type { FederationStore } from '../domain/federation-store.js';
import { actorStatus } from './actor-status.js';
import { isBlockedHost } from './delivery.js';
import type { Deliveries } from './deliveries.js';
import type { FederationUrls } from './objects.js';
import { actorIdentifierOf } from './routes.js';

/** How long the check of a follower's actor URL (an unverified Delete of itself) may take. */
const ACTOR_CHECK_TIMEOUT_MS = 10_000;

/**
 * How long an accepted follower that undid its Follow of a former identifier is remembered: its
 * Follow of the new actor within that time is accepted as it was (Mastodon's migration sends the
 * two apart, and the Undo may come first).
 */
const MOVED_FOLLOWER_MEMORY_MS = 24 * 3600_000;
/** The key-value entry of such a follower (the calendar's own rows; Fedify's keys are JSON arrays). */
const movedKey = (actorId: string) => `calendar:moved-follower:${actorId}`;

const hostOf = (u: URL | string | null | undefined) => {
  try {
    return u ? new URL(String(u)).hostname : '';
  } catch {
    return '';
  }
};

export function registerInboxListeners(
  federation: Federation<void>,
  deps: {
    store: FederationStore;
    config: Config;
    urls: FederationUrls;
    clock: Services['clock'];
    logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
    deliveries: Deliveries;
    userAgent: string;
    /** Run `fn` in a calendar (a follower row is removed in its own). */
    within<T>(calendarId: number, fn: () => Promise<T>): Promise<T>;
  },
): void {
  const { store, config, urls, clock, logger, deliveries } = deps;
  const blocked = config.federationBlockedDomains;

  /** Remove a deleted account's follower rows in every calendar it follows; answers how many. */
  async function removeEverywhere(actorId: string, calendars?: number[]): Promise<number> {
    let removed = 0;
    for (const id of calendars ?? (await store.followerCalendars(actorId))) {
      try {
        if (await deps.within(id, () => store.deleteFollower(actorId))) removed++;
      } catch (err) {
        // A calendar deleted since the look: its followers went with it.
        if ((err as { code?: string }).code !== 'calendar_not_found') throw err;
      }
    }
    return removed;
  }

  async function keep(activity: Activity, actorId: string): Promise<void> {
    if (isBlockedHost(hostOf(actorId), blocked)) return;
    const body = await activity.toJsonLd().catch(() => ({}));
    await store.insertReceived({ activity_id: activity.id?.href ?? null, type: activity.constructor.name, actor_id: actorId, body: JSON.stringify(body), received_gmt: clock.nowGmt() });
  }

  federation
    .setInboxListeners('/federation/actors/{identifier}/inbox', '/federation/inbox')
    .on(Follow, async (ctx, follow) => {
      if (follow.objectId?.href !== urls.actor || !follow.actorId || !follow.id) return;
      if (isBlockedHost(follow.actorId.hostname, blocked)) return;
      const actor = await follow.getActor(ctx);
      if (!actor || !isActor(actor) || !actor.inboxId || actor.id?.href !== follow.actorId.href) return;
      const username = typeof actor.preferredUsername === 'string' ? actor.preferredUsername : String(actor.preferredUsername ?? '');
      const existing = await store.findFollower(follow.actorId.href);
      // A follower moving with a renamed calendar whose Undo of its old Follow came first.
      const moved = !existing && (await store.kvGet(movedKey(follow.actorId.href), Date.now())) !== undefined;
      const status = followStatus(moved ? { status: 'accepted' } : existing, config.federationApproveFollows);
      const row = await store.upsertFollower({
        actor_id: follow.actorId.href,
        host: follow.actorId.host,
        inbox: actor.inboxId.href,
        shared_inbox: actor.endpoints?.sharedInbox?.href ?? null,
        follow_id: follow.id.href,
        handle: username ? `@${username}@${follow.actorId.host}` : '',
        status,
        created_gmt: existing?.created_gmt ?? clock.nowGmt(),
      });
      if (moved) await store.kvDelete(movedKey(row.actor_id));
      logger.info({ follower: row.actor_id, status, ...(moved ? { moved: true } : {}) }, 'federation: follow received');
      if (status === 'accepted') await deliveries.reply('Accept', row);
    })
    .on(Undo, async (_ctx, undo) => {
      const actorId = undo.actorId?.href;
      if (!actorId) return;
      const follower = await store.findFollower(actorId);
      if (!follower) return;
      const object = await undo.getObject({ crossOrigin: 'trust', suppressError: true }).catch(() => null);
      // The Follow it undoes is the one kept (by its id), or one of the actor now. An earlier Follow
      // of a former identifier is not: a follower moving with the calendar (Mastodon's migration)
      // follows the new actor, then undoes its Follow of the old one, and stays a follower.
      const undoesFollow =
        undo.objectId?.href === follower.follow_id ||
        (object instanceof Follow && object.actorId?.href === actorId && (object.id?.href === follower.follow_id || object.objectId?.href === urls.actor));
      if (undoesFollow) {
        await store.deleteFollower(actorId);
        // Its Follow of a former identifier of the calendar (the old actor, before a rename): it may
        // be moving, its Follow of the new actor still on its way.
        const followed = object instanceof Follow ? object.objectId?.href : undefined;
        const former = followed === undefined || followed === urls.actor ? undefined : actorIdentifierOf(followed, urls.origin);
        const moving = follower.status === 'accepted' && former !== undefined && (await store.formerIdentifiers()).includes(former);
        if (moving) await store.kvSet(movedKey(actorId), '1', Date.now() + MOVED_FOLLOWER_MEMORY_MS);
        logger.info({ follower: actorId, ...(moving ? { from: former } : {}) }, 'federation: unfollowed');
      }
    })
    .on(Delete, async (_ctx, del) => {
      const actorId = del.actorId?.href;
      if (actorId && del.objectId?.href === actorId) {
        const removed = await removeEverywhere(actorId);
        if (removed) logger.info({ follower: actorId, calendars: removed }, 'federation: account deleted, its follows removed');
        return;
      }
      if (config.federationKeepActivities && actorId) await keep(del, actorId);
    })
    .on(Activity, async (_ctx, activity) => {
      const actorId = activity.actorId?.href;
      if (config.federationKeepActivities && actorId) await keep(activity, actorId);
    })
    .onError((_ctx, error) => {
      logger.warn({ err: error.message }, 'federation: an incoming activity failed (Fedify retries it)');
    })
    .onUnverifiedActivity(async (_ctx, activity, reason) => {
      // An account deleted on its server: its key went with it, so its Delete of itself cannot be
      // verified. Nothing in the request proves it (its key URL is whatever the sender chose), so
      // the follower goes only when the actor URL stored for it answers 410 or 404 to us now.
      // Its follower rows are keyed by that actor URL in every calendar: one check of it serves them all.
      if (!(activity instanceof Delete) || reason.type !== 'keyFetchError' || !activity.actorId || activity.objectId?.href !== activity.actorId.href) return undefined;
      const actorId = activity.actorId.href;
      const calendars = await store.followerCalendars(actorId);
      if (calendars.length === 0) return undefined;
      const status = await actorStatus(actorId, await deliveries.rsaKey(), { allowPrivate: config.federationAllowPrivate, timeoutMs: ACTOR_CHECK_TIMEOUT_MS, userAgent: deps.userAgent });
      if (status !== 410 && status !== 404) return undefined;
      const removed = await removeEverywhere(actorId, calendars);
      logger.info({ follower: actorId, status, calendars: removed }, 'federation: follower removed, its actor is gone');
      return new Response(null, { status: 202 });
    });
}
