/**
 * WordPress' global `_jsonp` parameter (`WP_REST_Server::serve_request`): `?_jsonp=NAME` answers
 * `/**\/NAME(JSON)` as `application/javascript` with the same status, errors included, so a page on
 * another origin can load the API with a script tag.
 *
 * Like WordPress: the name must pass `wp_check_jsonp_callback` (letters, digits, `_` and `.` only),
 * else 400 `rest_callback_invalid`; an empty name (or `0`, falsy in PHP) is no JSONP request; with
 * JSONP turned off (`JSONP=false`, WordPress' `rest_jsonp_enabled` filter) any name is 400
 * `rest_callback_disabled`. Both errors are plain JSON, answered before the route runs.
 *
 * Which requests are API requests (and so may be JSONP) is decided from the route that matched,
 * whatever the spelling of the URL (register.ts `apiRootOf`): `//api/…?_jsonp=cb`, `/%61pi/…` and
 * `?rest_route=…` are JSONP requests as `/api/…` is; pages, feeds, `/metrics` and the health
 * routes never are.
 *
 * Our choice: JSONP requests are anonymous (their credentials are not even checked: register.ts skips
 * them, pipeline.ts answers as anonymous), since a script tag sends none a site could trust;
 * WordPress gets the same result by not trusting cookies without a nonce.
 *
 * @example
 *   jsonpCallbackOf({ _jsonp: 'cb' }, true)   // 'cb'
 *   jsonpCallbackOf({ _jsonp: 'a(b)' }, true) // throws rest_callback_invalid
 *   wrapJsonp('cb', '{"a":1}')               // '/**\/cb({"a":1})'
 */
import { apiError } from '../domain/errors.js';

/** WordPress' `wp_check_jsonp_callback`: a string of `[A-Za-z0-9_.]` only. */
export function isValidJsonpCallback(callback: unknown): callback is string {
  return typeof callback === 'string' && /^[A-Za-z0-9_.]*$/.test(callback);
}

/** The content type of JSONP answers. */
export const JSONP_CONTENT_TYPE = 'application/javascript; charset=UTF-8';

/**
 * The callback of a request's query, or undefined when it asks for no JSONP; throws the
 * WordPress error when the name is refused or JSONP is off.
 */
export function jsonpCallbackOf(query: Record<string, unknown> | undefined, enabled: boolean): string | undefined {
  const callback = query?._jsonp;
  // PHP falsiness: an absent, empty or "0" callback is no JSONP request.
  if (callback === undefined || callback === null || callback === '' || callback === '0') return undefined;
  if (!enabled) throw apiError('rest_callback_disabled');
  if (!isValidJsonpCallback(callback)) throw apiError('rest_callback_invalid');
  return callback;
}

/** The JSONP body around a JSON text (WordPress prefixes the empty comment against Flash attacks). */
export function wrapJsonp(callback: string, json: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from(`/**/${callback}(`, 'utf8'), Buffer.isBuffer(json) ? json : Buffer.from(json, 'utf8'), Buffer.from(')', 'utf8')]);
}
