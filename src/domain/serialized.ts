/**
 * Objects that carry their own JSON: a representation that is cached and answered many times is
 * serialized once (as UTF-8 bytes), and the HTTP layer writes those bytes instead of serializing
 * the object again (`jsonBody`). The bytes sit under a symbol, which JSON.stringify, Object.keys
 * and spreads ignore, so the object stays an ordinary object everywhere else. Such objects must
 * not be changed afterwards (cached representations are never changed).
 *
 * @example
 *   const json = withSerialized({ id: 1, title: 'Jazz' });
 *   stringifyJson({ events: [json], total: 1 }) // '{"events":[{"id":1,"title":"Jazz"}],"total":1}'
 */
const SERIALIZED: unique symbol = Symbol('serialized JSON');

type Serialized = { [SERIALIZED]?: Buffer };

const encoder = new TextEncoder();

/**
 * The UTF-8 bytes of a text in a buffer of their own. `Buffer.from` takes the bytes of a short
 * text from a shared slab (Node 24: 64 KiB, `Buffer.poolSize`), and a kept slice keeps its whole
 * slab alive: kept representations, each a few kB and made at different moments, pinned a slab
 * each (149 MB of slabs for about 2,400 kept answers at 1,000,000 events).
 */
export function ownUtf8(text: string): Buffer {
  const bytes = encoder.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Bytes in a buffer of their own, to keep: a text's UTF-8 (`ownUtf8`), or a copy of a buffer that
 * is a slice of a larger one (`Buffer.concat` and `Buffer.from` take short buffers from the same
 * shared slab); a buffer that is its memory's whole is returned as it is.
 */
export function ownBytes(value: string | Buffer): Buffer {
  if (typeof value === 'string') return ownUtf8(value);
  if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) return value;
  const copy = new Uint8Array(value.byteLength);
  copy.set(value);
  return Buffer.from(copy.buffer);
}

/** Attach the object's JSON (serialized now) to it; returns the object. */
export function withSerialized<T extends object>(value: T): T {
  Object.defineProperty(value, SERIALIZED, { value: ownUtf8(JSON.stringify(value)), enumerable: false });
  return value;
}

/** The size in bytes of an object's attached JSON (undefined: none attached). */
export function serializedLength(value: object): number | undefined {
  return (value as Serialized)[SERIALIZED]?.length;
}

/** Plain objects and arrays are walked this deep looking for serialized parts; below, JSON.stringify. */
const MAX_DEPTH = 3;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** Appends JSON.stringify(value)'s text to `out` (strings and serialized parts' bytes); false when nothing was found. */
function walk(value: unknown, depth: number, out: Array<string | Buffer>): boolean {
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value));
    return false;
  }
  const own = (value as Serialized)[SERIALIZED];
  if (own !== undefined) {
    out.push(own);
    return true;
  }
  if (depth >= MAX_DEPTH || (!Array.isArray(value) && !isPlainObject(value))) {
    out.push(JSON.stringify(value));
    return false;
  }
  let found = false;
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out.push(',');
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out.push('null');
      else found = walk(item, depth + 1, out) || found;
    }
    out.push(']');
    return found;
  }
  out.push('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out.push((first ? '' : ',') + JSON.stringify(key) + ':');
    found = walk(item, depth + 1, out) || found;
    first = false;
  }
  out.push('}');
  return found;
}

/** Whether a serialized part is within the walked depth (looks, builds nothing). */
function hasSerialized(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if ((value as Serialized)[SERIALIZED] !== undefined) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasSerialized(item, depth + 1)) return true;
    return false;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) if (hasSerialized((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/**
 * The bytes of JSON.stringify(value), using the serialized parts' bytes (top-level value, array
 * elements, property values) instead of serializing them again: a Buffer when there were such
 * parts, else the string itself.
 */
export function jsonBody(value: unknown): string | Buffer {
  const own = value !== null && typeof value === 'object' ? (value as Serialized)[SERIALIZED] : undefined;
  if (own !== undefined) return own;
  if (!hasSerialized(value, 0)) return JSON.stringify(value);
  const parts: Array<string | Buffer> = [];
  if (!walk(value, 0, parts)) return JSON.stringify(value);
  const chunks: Buffer[] = [];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += part;
    else {
      if (text !== '') chunks.push(Buffer.from(text, 'utf8'));
      text = '';
      chunks.push(part);
    }
  }
  if (text !== '') chunks.push(Buffer.from(text, 'utf8'));
  return Buffer.concat(chunks);
}

/** JSON.stringify(value), byte for byte, as text (see {@link jsonBody}). */
export function stringifyJson(value: unknown): string {
  const body = jsonBody(value);
  // (JSON.stringify(undefined) is undefined, and so is this.)
  return Buffer.isBuffer(body) ? body.toString('utf8') : body;
}
