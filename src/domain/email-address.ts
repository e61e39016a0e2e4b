/**
 * The e-mail address check shared by the users' addresses and the settings that list addresses.
 *
 * @example
 *   isEmail('ann@example.org'); // true
 */

/** A reasonable e-mail address check: one @, a dot in the domain, no spaces, at most 100 characters. */
export function isEmail(email: string): boolean {
  return email.length <= 100 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(email);
}
