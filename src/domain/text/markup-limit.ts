/**
 * The bound on how much markup a description or excerpt may hold (what its rendering costs).
 */

/**
 * The most tags (`<`), character references (`&`) and line breaks a description or excerpt may hold
 * together. Rendering costs about a microsecond for each (wpautop's thirty passes, the JSON-LD's
 * entity handling), so with the 2 MB body limit this keeps one rendering near or under 100 ms of CPU
 * (the text's length alone costs about 50 ms per 2 MB); ordinary descriptions hold a few hundred. A write over it is refused (400 `rest_invalid_param`), see {@link markupFailure}.
 */
export const MAX_MARKUP_ITEMS = 20_000;

/** How many tags (`<`), character references (`&`) and line breaks `text` holds, counting no further than `limit + 1`. */
export function markupItems(text: string, limit = MAX_MARKUP_ITEMS): number {
  let count = 0;
  for (let i = 0; i < text.length && count <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 60 || c === 38 || c === 10) count++;
  }
  return count;
}

/**
 * The failure message for argument `name` when `text` holds more than {@link MAX_MARKUP_ITEMS}
 * tags, character references and line breaks, or `undefined` when it is within the limit.
 *
 * @example markupFailure('description', '<b>'.repeat(30000)) // 'description must contain at most 20000 tags, character references and line breaks.'
 */
export function markupFailure(name: string, text: string): string | undefined {
  return markupItems(text) > MAX_MARKUP_ITEMS ? `${name} must contain at most ${MAX_MARKUP_ITEMS} tags, character references and line breaks.` : undefined;
}
