/**
 * Signed preview links for events not published yet (drafts, pending review, scheduled): a URL of
 * the public event page carrying `?preview=TOKEN`, where the token is the event's id, when the link
 * expires, when it was issued, and an HMAC-SHA256 of those with a key derived from the server's
 * secret (SECRET_KEY, or the one generated and kept in the database). Anyone with the link sees the
 * page (with a "Preview" banner, never indexed) until it expires (PREVIEW_DAYS) or the event is
 * moved to the trash (links issued before the trash stay void after a restore). Without a token, or
 * with a bad, expired or void one, the page is the 404 any unknown address gets: nothing says that
 * the event exists.
 *
 * @example
 *   const { url } = await previewLink(services, record);   // https://site/event/jazz/?preview=12.1765…
 *   await previewedEvent(services, token);                 // the record, or undefined
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/db.js';
import type { EventRecord } from '../store/events.js';
import { previewsRevokedAt } from '../store/previews.js';
import type { Links } from './links.js';
import type { EventService } from './events/index.js';
import { secretKeyText } from './sessions.js';

/** How long a preview link opens the event. */
export const PREVIEW_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

type PreviewServices = { store: Store; config: { secretKey?: string }; events: Pick<EventService, 'findById'>; links: Links };

/** The signing key: the server's secret, narrowed to this one use. */
async function keyOf(services: PreviewServices): Promise<Buffer> {
  return createHash('sha256')
    .update(`event-preview-links:${await secretKeyText(services)}`)
    .digest();
}

function sign(key: Buffer, id: number, expires: number, issued: number): string {
  return createHmac('sha256', key).update(`${id}.${expires}.${issued}`).digest('base64url');
}

/** A preview link of this event (its page's address with the token) and when it expires. */
export async function previewLink(services: PreviewServices, record: EventRecord, now = Date.now()): Promise<{ url: string; expires: string; token: string }> {
  const id = Number(record.id);
  const expires = Math.floor((now + PREVIEW_DAYS * DAY_MS) / 1000);
  const token = `${id}.${expires}.${now}.${sign(await keyOf(services), id, expires, now)}`;
  return { url: `${services.links.eventPermalink(record.slug)}?preview=${token}`, expires: new Date(expires * 1000).toISOString(), token };
}

/**
 * The event a preview token opens, or undefined when the token is malformed, forged, expired,
 * issued before the event was last trashed, or the event is gone or in the trash.
 */
export async function previewedEvent(services: PreviewServices, token: unknown, now = Date.now()): Promise<EventRecord | undefined> {
  if (typeof token !== 'string' || token.length > 200) return undefined;
  const m = /^(\d{1,10})\.(\d{1,12})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return undefined;
  const [id, expires, issued] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const expected = Buffer.from(sign(await keyOf(services), id, expires, issued));
  const given = Buffer.from(m[4]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  if (expires * 1000 <= now) return undefined;
  const record = await services.events.findById(id);
  if (!record || record.status === 'trash') return undefined;
  if (issued <= (await previewsRevokedAt(services.store.db, id))) return undefined;
  return record;
}
