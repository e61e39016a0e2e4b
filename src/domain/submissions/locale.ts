/**
 * The language of a submitter (their e-mails, the form): English or French, from `Accept-Language`
 * (its first language by q that we have), English otherwise.
 *
 * @example localeOf('fr-CA,fr;q=0.9,en;q=0.5') // 'fr'
 */
import type { Locale } from './mail.js';
import { pickLanguage } from '../languages.js';

export function localeOf(acceptLanguage: string | undefined): Locale {
  return pickLanguage(acceptLanguage, ['en', 'fr'] as const, 'en');
}
