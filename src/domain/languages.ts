/**
 * Which of the languages we offer a reader gets: the one they chose (a `locale` argument, a
 * setting) when we offer it, else the first of their `Accept-Language` header's languages, by
 * quality then order, that we offer (`fr-CA` is `fr`; `q=0` is "not this one"), else the fallback.
 * One negotiator for every face that speaks more than one language (the admin pages, the public
 * submission form and its e-mails, the embeds).
 *
 * @example
 *   pickLanguage('de, fr-CA;q=0.8, en;q=0.5', ['en', 'fr'], 'en') // 'fr'
 *   pickLanguage(undefined, ['en', 'fr'], 'en', 'fr')            // 'fr' (chosen)
 */
export function pickLanguage<L extends string>(acceptLanguage: unknown, offered: readonly L[], fallback: L, chosen?: unknown): L {
  const offer = (tag: string): L | undefined => {
    const lang = tag.trim().toLowerCase().split(/[-_]/)[0];
    return offered.find((o) => o === lang);
  };
  if (typeof chosen === 'string' && chosen !== '') {
    const picked = offer(chosen);
    if (picked) return picked;
  }
  if (typeof acceptLanguage !== 'string' || acceptLanguage === '') return fallback;
  const wanted = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m);
      return { tag: tag ?? '', q: q ? Number(q[1]) : 1, i };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const w of wanted) {
    const picked = offer(w.tag);
    if (picked) return picked;
  }
  return fallback;
}
