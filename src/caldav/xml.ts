/**
 * WebDAV XML for the CalDAV face: reading request bodies with `fast-xml-parser` into elements named
 * by namespace and local name (prefixes resolved through the `xmlns` declarations in scope, so
 * `<A:prop xmlns:A="DAV:">` and `<prop xmlns="DAV:">` are the same element), and writing
 * multistatus answers and DAV error bodies.
 *
 * Hostile input: a body with a DOCTYPE (so any entity declaration, XXE or "billion laughs") is
 * refused before parsing, as is a body that is not well-formed XML or whose elements nest deeper
 * than MAX_DEPTH; each answers 400 (`XmlError`). The size limit is the route's `bodyLimit`.
 *
 * @example
 *   const root = parseXml('<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>');
 *   root.ns === DAV && root.name === 'propfind'; // true
 *   child(root, DAV, 'prop')!.children.map(clark) // ['{DAV:}getetag']
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { registerKept } from '../metrics.js';

export const DAV = 'DAV:';
export const CALDAV = 'urn:ietf:params:xml:ns:caldav';
export const CALSERVER = 'http://calendarserver.org/ns/';
export const APPLE = 'http://apple.com/ns/ical/';

/** The prefixes answers use for each namespace (any other namespace gets its own declaration). */
const PREFIXES: Record<string, string> = { [DAV]: 'd', [CALDAV]: 'c', [CALSERVER]: 'cs', [APPLE]: 'ic' };

/** Elements nested deeper than this are refused (no request of the protocol needs more than ~8). */
export const MAX_DEPTH = 32;

/** An element: namespace, local name, attributes (by local name), child elements and text. */
export interface XmlElement {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** A request body that is not acceptable XML (answered 400). */
export class XmlError extends Error {}

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

function parseFresh(text: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlError('DOCTYPE and entity declarations are not accepted');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlError(`malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let nodes: RawNode[];
  try {
    nodes = parser.parse(text) as RawNode[];
  } catch (e) {
    throw new XmlError(`malformed XML: ${(e as Error).message}`);
  }
  const roots = nodes.map((n) => convert(n, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]), 0)).filter((e): e is XmlElement => e !== undefined);
  if (roots.length !== 1) throw new XmlError('expected one root element');
  return roots[0]!;
}

function convert(node: RawNode, scope: Map<string, string>, depth: number): XmlElement | undefined {
  if (depth > MAX_DEPTH) throw new XmlError(`elements nested deeper than ${MAX_DEPTH}`);
  const tag = Object.keys(node).find((k) => k !== ':@');
  if (tag === undefined || tag === '#text' || tag.startsWith('?') || tag === '#comment' || tag === '#cdata') return undefined;
  const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;
  const inner = new Map(scope);
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns') inner.set('', v);
    else if (k.startsWith('xmlns:')) inner.set(k.slice(6), v);
  }
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const name = colon < 0 ? tag : tag.slice(colon + 1);
  const ns = inner.get(prefix);
  if (ns === undefined && prefix !== '') throw new XmlError(`undeclared namespace prefix "${prefix}"`);
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
    attrs[k.includes(':') ? k.slice(k.indexOf(':') + 1) : k] = String(v);
  }
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
  const { tag, decl } = qname(rootKey);
  return `<?xml version="1.0" encoding="utf-8"?>\n<${tag}${ROOT_DECLS}${decl}>${inner}</${tag}>\n`;
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
