/**
 * WebDAV XML for the CalDAV face: reading request bodies with `fast-xml-parser` into elements named
 * by namespace and local name (prefixes resolved through the `xmlns` declarations in scope, so
 * `<A:prop xmlns:A="DAV:">` and `<prop xmlns="DAV:">` are the same element), and writing
 * multistatus answers and DAV error bodies.
 *
 * Hostile input: a body with a DOCTYPE (so any entity declaration, XXE or "billion laughs") is
 * refused before parsing, as is a body that is not well-formed XML or whose elements nest deeper
 * than MAX_DEPTH; each answers 400 (`XmlError`). More than MAX_ELEMENTS elements, or more than
 * MAX_ATTRIBUTES attributes on one element, are refused before parsing too (413). The work is
 * linear in the body's size; the size limit is the route's `bodyLimit`.
 *
 * @example
 *   const root = parseXml('<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>');
 *   root.ns === DAV && root.name === 'propfind'; // true
 *   child(root, DAV, 'prop')!.children.map(clark) // ['{DAV:}getetag']
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Readable } from 'node:stream';
import { registerKept } from '../metrics.js';

export const DAV = 'DAV:';
export const CALDAV = 'urn:ietf:params:xml:ns:caldav';
export const CALSERVER = 'http://calendarserver.org/ns/';
export const APPLE = 'http://apple.com/ns/ical/';

/** The prefixes answers use for each namespace (any other namespace gets its own declaration). */
const PREFIXES: Record<string, string> = { [DAV]: 'd', [CALDAV]: 'c', [CALSERVER]: 'cs', [APPLE]: 'ic' };

/** Elements nested deeper than this are refused (no request of the protocol needs more than ~8). */
export const MAX_DEPTH = 32;

/**
 * Elements in one body at most (counted before parsing): a multiget of {@link MAX_HREFS} hrefs and
 * its properties fits; real clients send a few dozen (Apple's largest PROPFIND has about 30).
 */
export const MAX_ELEMENTS = 10_000;

/**
 * Attributes on one element at most, namespace declarations (`xmlns`, `xmlns:p`) included: clients
 * put at most about 6 on their root element, and 2 on any other.
 */
export const MAX_ATTRIBUTES = 32;

/** An element: namespace, local name, attributes (by local name), child elements and text. */
export interface XmlElement {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** A request body that is not acceptable XML: 400, or 413 when it is over one of the limits. */
export class XmlError extends Error {
  readonly status: 400 | 413;

  constructor(message: string, status: 400 | 413 = 400) {
    super(message);
    this.status = status;
  }
}

/** `{namespace}name`, the Clark notation properties are keyed by. */
export function clark(e: { ns: string; name: string }): string {
  return `{${e.ns}}${e.name}`;
}

export function child(e: XmlElement, ns: string, name: string): XmlElement | undefined {
  return e.children.find((c) => c.ns === ns && c.name === name);
}

export function children(e: XmlElement, ns: string, name: string): XmlElement[] {
  return e.children.filter((c) => c.ns === ns && c.name === name);
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // DOCTYPEs are refused before parsing; only the five predefined entities and character references remain.
  processEntities: true,
  htmlEntities: false,
  // Refuse deep nesting while parsing (the tree is walked recursively afterwards).
  maxNestedTags: MAX_DEPTH + 1,
  // No path string per element (callbacks are not used): it costs its depth on every element.
  jPath: false,
});

type RawNode = Record<string, unknown>;

/**
 * Bodies parsed lately (clients repeat the same PROPFIND and sync bodies: a poll with the current
 * token costs no parse), by text; small bodies only, bounded, cleared when full. Elements are never
 * changed once parsed.
 */
const parsed = new Map<string, XmlElement>();
const PARSED_MAX = 1000;
const PARSED_MAX_LENGTH = 4096;
registerKept(undefined, 'caldav_parsed_bodies', { entries: () => parsed.size, maxEntries: PARSED_MAX });

/** Parse a request body (a string) into its root element, or throw `XmlError`. */
export function parseXml(text: string): XmlElement {
  const known = parsed.get(text);
  if (known) return known;
  const root = parseFresh(text);
  if (text.length <= PARSED_MAX_LENGTH) {
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(text, root);
  }
  return root;
}

/**
 * The limits, checked in one linear pass before the validator and the parser run: at most
 * MAX_ELEMENTS start tags, each with at most MAX_ATTRIBUTES attributes. The parser has no hook
 * before its work on a tag's attributes, and that work grows faster than their number (one element
 * with 8,000 attributes took about 0.1 s, 16,000 about 0.35 s), so the count cannot wait for it.
 * Comments, CDATA sections and processing instructions are skipped; in a start tag, attributes are
 * counted outside quoted values (a `>` or `=` inside one is text), both by their names and by
 * their `=` signs, so neither attributes without a value nor ones without a space between them
 * are missed. What is not well-formed is left to the validator.
 */
function checkLimits(text: string): void {
  let elements = 0;
  for (let i = text.indexOf('<'); i >= 0;) {
    const next = text.charCodeAt(i + 1);
    let skipTo: string | undefined;
    if (next === 33 /* ! */) skipTo = text.startsWith('<!--', i) ? '-->' : text.startsWith('<![CDATA[', i) ? ']]>' : '>';
    else if (next === 63 /* ? */) skipTo = '?>';
    else if (next === 47 /* / */) skipTo = '>';
    if (skipTo !== undefined) {
      const end = text.indexOf(skipTo, i + 2);
      if (end < 0) return;
      i = text.indexOf('<', end + skipTo.length);
      continue;
    }
    if (++elements > MAX_ELEMENTS) throw new XmlError(`more than ${MAX_ELEMENTS} elements`, 413);
    let names = 0;
    let equals = 0;
    let quote = 0;
    let afterSpace = false;
    let j = i + 1;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (quote !== 0) {
        if (c === quote) quote = 0;
        continue;
      }
      // '"', "'"
      if (c === 34 || c === 39) quote = c;
      // '>', '<'
      else if (c === 62 || c === 60) break;
      // '='
      else if (c === 61) equals++;
      const space = c === 32 || c === 9 || c === 10 || c === 13;
      // a name begins after a space ('/' is the end of an empty-element tag)
      if (afterSpace && !space && c !== 61 && c !== 34 && c !== 39 && c !== 47) names++;
      afterSpace = space;
      if (names > MAX_ATTRIBUTES || equals > MAX_ATTRIBUTES) throw new XmlError(`more than ${MAX_ATTRIBUTES} attributes (namespace declarations included) on one element`, 413);
    }
    i = text.indexOf('<', j);
  }
}

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/**
 * The namespace declarations in scope: the element's own, then its parent's scope. Elements
 * without declarations share their parent's, so nothing is copied per element (a copy per element
 * made a body of many declarations and many elements cost their product).
 */
interface Scope {
  decls: Map<string, string>;
  parent: Scope | undefined;
}

const ROOT_SCOPE: Scope = { decls: new Map([['xml', XML_NAMESPACE]]), parent: undefined };

function lookup(scope: Scope | undefined, prefix: string): string | undefined {
  for (let s = scope; s; s = s.parent) {
    const ns = s.decls.get(prefix);
    if (ns !== undefined) return ns;
  }
  return undefined;
}

function parseFresh(text: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlError('DOCTYPE and entity declarations are not accepted');
  checkLimits(text);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlError(`malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let nodes: RawNode[];
  try {
    nodes = parser.parse(text) as RawNode[];
  } catch (e) {
    const message = (e as Error).message;
    if (/nested tags/i.test(message)) throw new XmlError(`elements nested deeper than ${MAX_DEPTH}`);
    throw new XmlError(`malformed XML: ${message}`);
  }
  const roots = nodes.map((n) => convert(n, ROOT_SCOPE, 0)).filter((e): e is XmlElement => e !== undefined);
  if (roots.length !== 1) throw new XmlError('expected one root element');
  return roots[0]!;
}

function convert(node: RawNode, scope: Scope, depth: number): XmlElement | undefined {
  if (depth > MAX_DEPTH) throw new XmlError(`elements nested deeper than ${MAX_DEPTH}`);
  const tag = Object.keys(node).find((k) => k !== ':@');
  if (tag === undefined || tag === '#text' || tag.startsWith('?') || tag === '#comment' || tag === '#cdata') return undefined;
  const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;
  let inner = scope;
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (inner === scope) inner = { decls: new Map(), parent: scope };
      inner.decls.set(k === 'xmlns' ? '' : k.slice(6), String(v));
    } else attrs[k.includes(':') ? k.slice(k.indexOf(':') + 1) : k] = String(v);
  }
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const name = colon < 0 ? tag : tag.slice(colon + 1);
  const ns = lookup(inner, prefix);
  if (ns === undefined && prefix !== '') throw new XmlError(`undeclared namespace prefix "${prefix}"`);
  const el: XmlElement = { ns: ns ?? '', name, attrs, children: [], text: '' };
  for (const c of (node[tag] ?? []) as RawNode[]) {
    if ('#text' in c) el.text += String(c['#text']);
    else if ('#cdata' in c) el.text += ((c['#cdata'] ?? []) as RawNode[]).map((t) => String(t['#text'] ?? '')).join('');
    else {
      const sub = convert(c, inner, depth + 1);
      if (sub) el.children.push(sub);
    }
  }
  return el;
}

/** Text escaped for element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'));
}

/** The qualified name a property is written with, and the declaration it needs when its namespace has no fixed prefix. */
export function qname(key: string): { tag: string; decl: string } {
  const m = /^\{([^}]*)\}(.+)$/.exec(key);
  const ns = m ? m[1]! : '';
  const name = m ? m[2]! : key;
  const prefix = PREFIXES[ns];
  if (prefix) return { tag: `${prefix}:${name}`, decl: '' };
  return { tag: `x:${name}`, decl: ` xmlns:x="${escapeXml(ns)}"` };
}

/** An element with inner XML (already escaped). */
export function element(key: string, inner = ''): string {
  const { tag, decl } = qname(key);
  return inner === '' ? `<${tag}${decl}/>` : `<${tag}${decl}>${inner}</${tag}>`;
}

const ROOT_DECLS = Object.entries(PREFIXES)
  .map(([ns, p]) => ` xmlns:${p}="${ns}"`)
  .join('');

/** A document whose root element is `{DAV:}name` (or another namespace's) with the usual prefixes declared. */
export function document(rootKey: string, inner: string): string {
  const [head, tail] = documentEnds(rootKey);
  return head + inner + tail;
}

/** A document's text before and after its root element's content. */
function documentEnds(rootKey: string): [head: string, tail: string] {
  const { tag, decl } = qname(rootKey);
  return [`<?xml version="1.0" encoding="utf-8"?>\n<${tag}${ROOT_DECLS}${decl}>`, `</${tag}>\n`];
}

/** A large answer is sent in chunks of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

/** Rendering runs at most about this long (ms) before the event loop is let go (the bar is 100 ms). */
const STEP_MS = 10;

/**
 * A multistatus document from its parts (`<d:response>` elements, then maybe a `<d:sync-token>`),
 * built in steps: the parts are rendered one at a time as they are asked for, and after STEP_MS
 * of rendering the event loop runs other requests before the next part. An answer complete within
 * its first chunk is a string (sent with its Content-Length, as small answers always were); a
 * larger one is a stream of chunks rendered as the client reads them, so that a REPORT over
 * thousands of events never holds the loop, nor its whole text in memory.
 *
 * @example await multistatusBody((function* () { yield statusResponse('/dav/x', 404); })())
 */
export async function multistatusBody(parts: AsyncIterable<string> | Iterable<string>): Promise<string | Readable> {
  const [head, tail] = documentEnds('{DAV:}multistatus');
  const chunks = chunksOf(head, parts, tail);
  const first = await chunks.next();
  if (first.done) return head + tail;
  const second = await chunks.next();
  if (second.done) return first.value;
  return Readable.from(
    (async function* () {
      yield first.value;
      yield second.value;
      yield* chunks;
    })(),
    { objectMode: false },
  );
}

async function* chunksOf(head: string, parts: AsyncIterable<string> | Iterable<string>, tail: string): AsyncGenerator<string, void, undefined> {
  let out = head;
  let stepStart = performance.now();
  for await (const part of parts) {
    out += part;
    if (out.length >= CHUNK_CHARS) {
      yield out;
      out = '';
    }
    if (performance.now() - stepStart >= STEP_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      stepStart = performance.now();
    }
  }
  yield out + tail;
}

/** Property values of one resource: inner XML by Clark name, `undefined` for "not found" (404 propstat). */
export type PropValues = Array<[key: string, value: string | undefined]>;

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 403: 'Forbidden', 404: 'Not Found', 507: 'Insufficient Storage' };

export function statusLine(code: number): string {
  return `HTTP/1.1 ${code} ${STATUS_TEXT[code] ?? ''}`.trimEnd();
}

/** One `<d:response>` of a multistatus: an href and its properties grouped by status (200 and 404). */
export function propResponse(href: string, values: PropValues, options: { namesOnly?: boolean; omitNotFound?: boolean } = {}): string {
  const found = values.filter(([, v]) => v !== undefined);
  const missing = options.omitNotFound ? [] : values.filter(([, v]) => v === undefined);
  let out = `<d:response><d:href>${escapeXml(href)}</d:href>`;
  if (found.length || missing.length === 0)
    out += `<d:propstat><d:prop>${found.map(([k, v]) => element(k, options.namesOnly ? '' : v)).join('')}</d:prop><d:status>${statusLine(200)}</d:status></d:propstat>`;
  if (missing.length) out += `<d:propstat><d:prop>${missing.map(([k]) => element(k)).join('')}</d:prop><d:status>${statusLine(404)}</d:status></d:propstat>`;
  return `${out}</d:response>`;
}

/** A `<d:response>` with a status and no properties (a deleted member, a missing href). */
export function statusResponse(href: string, code: number, extra = ''): string {
  return `<d:response><d:href>${escapeXml(href)}</d:href><d:status>${statusLine(code)}</d:status>${extra}</d:response>`;
}

/** A DAV error body (`<d:error>` with one precondition element). */
export function errorDocument(conditionKey: string, inner = ''): string {
  return document('{DAV:}error', element(conditionKey, inner));
}
