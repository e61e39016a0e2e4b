/**
 * The language of a submitter (their e-mails, the form): English or French, from `Accept-Language`
 * (its first language by q that we have), English otherwise.
 *
 * @example localeOf('fr-CA,fr;q=0.9,en;q=0.5') // 'fr'
 */
import type { Locale } from './mail.js';

export function localeOf(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'en';
  const wanted = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m);
      return { lang: (tag ?? '').trim().toLowerCase().split('-')[0]!, q: q ? Number(q[1]) : 1, i };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const w of wanted) if (w.lang === 'en' || w.lang === 'fr') return w.lang;
  return 'en';
}
