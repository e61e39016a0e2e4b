/**
 * How the legacy REST API treats password-protected events, venues and organizers (the
 * original's `can_access_password_content` and its archive and item filters; docs/api.md,
 * "Password-protected records"): a reader gets the protected content when the record has no
 * password, when it sends `context=edit` and may edit the record, or when its `password`
 * parameter is the record's. Otherwise a single event answers 403 `event-password-protected`, and
 * lists and single venues and organizers answer the record without its content.
 *
 * @example
 *   if (!canAccessPasswordContent(ctx, record, 'tribe_events')) throw apiError('event-password-protected');
 *   const shown = page.events.map((json) => eventShownToRequest(ctx, json));
 */
import { canEditPost, type OwnedRecord } from '../domain/permissions.js';
import { isProtected, passwordMatches, type PasswordHolder } from '../domain/post-passwords.js';
import { representedPassword, withEmbeddedWithheld, withholdProtected } from '../domain/representations/protected.js';
import type { PostType } from '../store/schema.js';
import type { EndpointContext } from './route.js';

type Request = Pick<EndpointContext, 'viewer' | 'args' | 'input'>;

/** The request's `password` (declared on the single event routes, read as sent elsewhere, as the original does). */
function givenPassword(ctx: Request): unknown {
  return ctx.args.password ?? ctx.input?.password;
}

/** The original's can_access_password_content for a record of `type` and this request. */
export function canAccessPasswordContent(ctx: Request, record: PasswordHolder & OwnedRecord, type: PostType): boolean {
  if (!isProtected(record)) return true;
  // Editors always get the protected content in the edit context (WordPress' posts controller).
  if (ctx.input?.context === 'edit' && canEditPost(ctx.viewer, type, record)) return true;
  return passwordMatches(record, givenPassword(ctx));
}

/**
 * A representation as this request may see it: as it is, or without its protected content
 * (a copy; the kept one is never changed).
 */
export function shownToRequest(ctx: Request, json: Record<string, unknown>, type: PostType): Record<string, unknown> {
  const password = representedPassword(json);
  if (password === '') return json;
  const record = { password, author_id: Number(json.author), status: String(json.status) };
  return canAccessPasswordContent(ctx, record, type) ? json : withholdProtected(json);
}

/**
 * An event's representation as this request may see it: its protected venue and organizers
 * always without their content, and the event itself as `shownToRequest` says (lists).
 */
export function eventShownToRequest(ctx: Request, json: Record<string, unknown>): Record<string, unknown> {
  return shownToRequest(ctx, withEmbeddedWithheld(json), 'tribe_events');
}

/** An event's representation in a single or write answer: whole, but for its protected venue and organizers. */
export function eventAnswer(json: Record<string, unknown>): Record<string, unknown> {
  return withEmbeddedWithheld(json);
}
