/**
 * An announced event's ActivityPub object, as anonymous readers may see it now: live (200), gone
 * (410 with its Tombstone: deleted, or no longer public; its Delete may be about to leave), or
 * never announced (404: an event published before federation started, an occurrence beyond the
 * horizon). Shared by the object's own URL and the event pages' content negotiation.
 *
 * @example
 *   const objects = createEventObjects(services.federationStore, reader, urls);
 *   const { object } = await objects.live(42);
 */
import type { FastifyReply } from 'fastify';
import { apiError, type ApiError } from '../domain/errors.js';
import type { FederationStore } from '../domain/federation-store.js';
import type { ObjectStateRow } from '../store/federation.js';
import { announcedObject, lastStampOf, stampOf, type createPublicReader, type ObjectHome } from './outbox.js';
import { msIso, tombstone, withContext } from './objects.js';

export const ACTIVITY_JSON = 'application/activity+json';

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.headers(err.headers);
  return reply.code(err.status).header('content-type', 'application/json; charset=UTF-8').send(JSON.stringify(err.toJSON()));
}

export const sendActivityJson = (reply: FastifyReply, status: number, doc: unknown) =>
  reply.code(status).header('content-type', `${ACTIVITY_JSON}; charset=utf-8`).header('vary', 'Accept').send(JSON.stringify(doc));

export interface EventObjects {
  /** The object of an announced event as anonymous readers may see it now (undefined: none to answer with 200). */
  live(id: number): Promise<{ object?: Record<string, unknown>; state?: ObjectStateRow }>;
  /**
   * Answer an event's object URL, asked under the actor `actor` (its URL): 200, 410 with its
   * Tombstone, or 404 (also when the object is another actor's: one announced before a rename is
   * under the old actor only).
   */
  answer(reply: FastifyReply, id: number, actor: string): Promise<FastifyReply>;
}

export function createEventObjects(store: FederationStore, reader: ReturnType<typeof createPublicReader>, objectHome: ObjectHome): EventObjects {
  async function find(id: number) {
    const state = await store.objectState(id);
    if (!state) return undefined;
    const { urls } = await objectHome(state.home);
    const json = state.state === 'live' ? await reader.event(id) : undefined;
    return { state, urls, object: json ? announcedObject(reader, json, state, urls) : undefined };
  }
  return {
    async live(id) {
      const found = await find(id);
      return found ? { state: found.state, ...(found.object ? { object: found.object } : {}) } : {};
    },
    async answer(reply, id, actor) {
      const found = await find(id);
      if (!found || found.urls.actor !== actor) return sendError(reply, apiError('federation_not_found'));
      const { object, state, urls } = found;
      if (object) return sendActivityJson(reply, 200, withContext(object));
      const deleted = state.state === 'live' ? stampOf(state, undefined, Date.now()) : lastStampOf(state);
      if (deleted !== undefined) return sendActivityJson(reply, 410, withContext(tombstone(urls, id, msIso(deleted))));
      return sendError(reply, apiError('federation_not_found'));
    },
  };
}
