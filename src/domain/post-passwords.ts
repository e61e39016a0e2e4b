/**
 * Password-protected events, venues and organizers (WordPress' `post_password`): a post with a
 * password shows its title and dates to everyone, and its content only to a reader who gives the
 * password (or who may edit it, where the original lets editors through). This module holds the
 * checks every face asks; which fields are withheld, and where, is decided by the faces' readers
 * (the public reader, the REST representations).
 *
 * @example
 *   isProtected({ password: 'secret' })             // true
 *   passwordMatches({ password: 'secret' }, 'secret') // true
 *   passwordFailure('x'.repeat(256))                 // a ParamFailure message: too long
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** WordPress' column is varchar(255): longer passwords are refused, shorter ones stored as given. */
export const MAX_POST_PASSWORD_LENGTH = 255;

/** What the checks read of a record: events, venues and organizers all carry `password`. */
export interface PasswordHolder {
  password?: string | null;
}

/** Whether the record's content is withheld until its password is given (WordPress' non-empty post_password). */
export function isProtected(record: PasswordHolder): boolean {
  return typeof record.password === 'string' && record.password !== '';
}

/**
 * Whether `given` is the record's password, compared in constant time (PHP's hash_equals): a
 * record without a password matches nothing, and neither does a missing or non-string `given`.
 * Both sides are hashed first so that the comparison takes as long whatever their lengths.
 */
export function passwordMatches(record: PasswordHolder, given: unknown): boolean {
  if (!isProtected(record) || typeof given !== 'string' || given === '') return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(record.password!), digest(given));
}

/**
 * Whether a reader who gave `given` (undefined: nothing) may see the record's content: always
 * for a record without a password, else when `given` matches.
 */
export function canSeeProtected(record: PasswordHolder, given: unknown): boolean {
  return !isProtected(record) || passwordMatches(record, given);
}

/**
 * Why a written `password` value is refused, or undefined when it is accepted: a string of at most
 * MAX_POST_PASSWORD_LENGTH characters ('' removes the password). It is stored as given, spaces
 * included, as WordPress stores it.
 */
export function passwordFailure(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'The password must be a string.';
  if ([...value].length > MAX_POST_PASSWORD_LENGTH) return `The password must be at most ${MAX_POST_PASSWORD_LENGTH} characters long.`;
  if (value.includes('\u0000')) return 'The password must not contain a NUL character.';
  return undefined;
}
