/**
 * Plain text of stored HTML (titles, names, descriptions) for text outputs: the iCalendar writer
 * (domain/ical.ts, used by the feeds and CalDAV) and the pages (which re-export it from html.ts).
 *
 * @example plainText('<p>Caf&eacute; &amp; <b>bar</b></p>') // 'Caf&eacute; & bar'
 */

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  hellip: '\u2026',
  ndash: '\u2013',
  mdash: '\u2014',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
};

/** Character references decoded (`&amp;` → `&`, `&#8217;` → `’`); unknown named ones stay. */
export function decodeEntities(text: string): string {
  // Most titles and names have none: the regular expression is not run on them (a list of a
  // thousand events decodes several thousand strings).
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Plain text of stored HTML (titles, names, descriptions): tags dropped, block ends as line
 * breaks, entities decoded, runs of blank lines collapsed.
 */
export function plainText(markup: string): string {
  const text = markup
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6]|blockquote|tr)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '');
  return decodeEntities(text)
    .replace(/[ \t\u00a0]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
