/**
 * Content negotiation on the event pages: an ActivityPub client asking for an event's page
 * (`Accept: application/activity+json` or `application/ld+json`) gets its object; a browser gets
 * the page, with a `Link` header naming the object (rel="alternate").
 *
 * @example registerNegotiation(app, { services, urls, objects })
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../domain/services.js';
import { withContext, type FederationUrls } from './objects.js';
import { ACTIVITY_JSON, sendActivityJson, type EventObjects } from './event-objects.js';

/** Whether the request's Accept asks for ActivityStreams JSON (rather than HTML). */
export function wantsActivityJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return /application\/activity\+json|application\/ld\+json/i.test(accept) && !/^\s*text\/html/i.test(accept);
}

export function registerNegotiation(app: FastifyInstance, deps: { services: Services; urls: FederationUrls; objects: EventObjects }): void {
  const { services } = deps;
  const liveObject = deps.objects.live;
  const eventPage = /^\/event\/([^/?#]+)\/?(?:[?#].*)?$/;
  const idOfPage = async (url: string): Promise<number | undefined> => {
    const m = eventPage.exec(url);
    if (!m) return undefined;
    let slug = m[1]!;
    try {
      slug = decodeURIComponent(slug);
    } catch {
      return undefined;
    }
    return services.events.findIdBySlug(slug).catch(() => undefined);
  };
  app.addHook('onRequest', async (req, reply) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !wantsActivityJson(req.headers.accept)) return;
    const id = await idOfPage(req.url);
    if (id === undefined) return;
    const { object } = await liveObject(id);
    if (!object) return;
    return sendActivityJson(reply, 200, withContext(object));
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'GET' || reply.statusCode !== 200 || !String(reply.getHeader('content-type') ?? '').startsWith('text/html') || !eventPage.test(req.url)) return payload;
    const id = await idOfPage(req.url);
    const object = id === undefined ? undefined : (await liveObject(id)).object;
    if (object) {
      // The object's own id: under the actor it was first announced by, after a rename too.
      const link = `<${String(object.id)}>; rel="alternate"; type="${ACTIVITY_JSON}"`;
      const existing = reply.getHeader('link');
      reply.header('link', existing ? `${String(existing)}, ${link}` : link);
      reply.header('vary', 'Accept');
    }
    return payload;
  });
}
