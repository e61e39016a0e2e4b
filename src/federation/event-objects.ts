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
import { announcedObject, lastStampOf, stampOf, type createPublicReader } from './outbox.js';
import { msIso, tombstone, withContext, type FederationUrls } from './objects.js';

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
  /** Answer an event's object URL: 200, 410 with its Tombstone, or 404. */
  answer(reply: FastifyReply, id: number): Promise<FastifyReply>;
}

export function createEventObjects(store: FederationStore, reader: ReturnType<typeof createPublicReader>, urls: FederationUrls): EventObjects {
  async function live(id: number): Promise<{ object?: Record<string, unknown>; state?: ObjectStateRow }> {
    const state = await store.objectState(id);
    if (!state) return {};
    const json = state.state === 'live' ? await reader.event(id) : undefined;
    return { state, ...(json ? { object: announcedObject(reader, json, state) } : {}) };
  }
  return {
    live,
    async answer(reply, id) {
      const { object, state } = await live(id);
      if (object) return sendActivityJson(reply, 200, withContext(object));
      const deleted = state?.state === 'live' ? stampOf(state, undefined, Date.now()) : lastStampOf(state);
      if (deleted !== undefined) return sendActivityJson(reply, 410, withContext(tombstone(urls, id, msIso(deleted))));
      return sendError(reply, apiError('federation_not_found'));
    },
  };
}
