/**
 * Reading the calendar's HTML pages in HTTP tests.
 *
 * @example assert.ok(hrefs(res.text).includes(`${t.origin}/events/list/page/2/`));
 */

/** Every `<a … href="…">` of a page, entities decoded. */
export function hrefs(page: string): string[] {
  return [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

/** How many times `needle` occurs in `text`. */
export const count = (text: string, needle: string) => text.split(needle).length - 1;
