/**
 * The pages' password cookie (WordPress' `wp-postpass_<COOKIEHASH>`): set by a protected event
 * page's form, it holds an HMAC of the password typed (never the password: WordPress keeps a hash
 * of it too), keyed by the server's secret, and says which passwords the reader has given
 * (`givenByCookie`, for the public reader). Apart from post-passwords.ts, which stays free of
 * the server's secret.
 *
 * @example
 *   const key = await passwordCookieKey(services);
 *   const given = givenByCookie(key, cookieValue); // given('secret') → true when the form got 'secret'
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/db.js';
import { secretKeyText } from './sessions.js';

/** How long the pages' password cookie lasts: WordPress' ten days. */
export const PASSWORD_COOKIE_MAX_AGE = 10 * 24 * 60 * 60;

/** The pages' password cookie's name: WordPress' `wp-postpass_` and the hash of the site's address (its COOKIEHASH). */
export function passwordCookieName(siteUrl: string): string {
  return `wp-postpass_${createHash('md5').update(siteUrl).digest('hex')}`;
}

/**
 * The key of the pages' password cookie: the server's secret, narrowed to this one use. The
 * cookie holds an HMAC of the password typed, never the password (WordPress keeps a hash of it).
 */
export async function passwordCookieKey(services: { store: Store; config: { secretKey?: string } }): Promise<Buffer> {
  return createHash('sha256')
    .update(`post-password-cookie:${await secretKeyText(services)}`)
    .digest();
}

/** The cookie's value for a password typed in a page's form. */
export function passwordCookieValue(key: Buffer, password: string): string {
  return createHmac('sha256', key).update(password, 'utf8').digest('base64url');
}

/**
 * Which passwords a cookie value says were given: the one whose HMAC it is (compared in constant
 * time), none without a cookie. WordPress' post_password_required, for the public reader.
 *
 * @example givenByCookie(key, cookie)('secret') // true when the form was sent with 'secret'
 */
export function givenByCookie(key: Buffer, value: string | undefined): (password: string) => boolean {
  if (value === undefined || value === '') return () => false;
  const sent = Buffer.from(value);
  return (password) => {
    const expected = Buffer.from(passwordCookieValue(key, password));
    return expected.length === sent.length && timingSafeEqual(expected, sent);
  };
}
