/**
 * What an inbox body must be before Fedify reads it: JSON nested at most {@link MAX_DEPTH} levels.
 * An activity nests a handful (activity, object, its location, its address); JSON-LD processing
 * walks each level recursively, and a body of a few kilobytes of brackets nested tens of thousands
 * deep overflowed its stack (a 500 before this check). Counted on the bytes as they came, outside
 * strings, without parsing.
 *
 * @example inboxBodyError(Buffer.from('[[[[1]]]]')) // undefined; 100 levels: a 400 federation_bad_request
 */
import { apiError, type ApiError } from '../domain/errors.js';

/** The deepest nesting of arrays and objects accepted. */
export const MAX_DEPTH = 64;

/** How deep the arrays and objects of a JSON text nest (its bytes; strings skipped). */
export function nestingDepth(body: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** The refusal of an inbox body nested too deep, or undefined. */
export function inboxBodyError(body: Uint8Array | undefined): ApiError | undefined {
  if (body === undefined || nestingDepth(body) <= MAX_DEPTH) return undefined;
  return apiError('federation_bad_request', { args: [`arrays and objects nested deeper than ${MAX_DEPTH} levels`] });
}
