/**
 * Requests to the CalDAV face (issue 30) for the tests: `dav` sends one (Basic credentials as
 * `login:password`, or 'admin'), `responses` reads a multistatus by href.
 */
import { XMLParser } from 'fast-xml-parser';
import type { TestServer } from './harness.js';

const xml = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['response', 'propstat', 'href', 'supported-report', 'comp'].includes(name) });

export interface DavAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed body (namespace prefixes removed) */
  doc: any;
}

export async function dav(t: TestServer, method: string, path: string, body?: string, headers: Record<string, string> = {}, as?: string | null): Promise<DavAnswer> {
  const h: Record<string, string> = { ...headers };
  if (body !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/xml; charset=utf-8';
  if (as) h.authorization = 'Basic ' + Buffer.from(as === 'admin' ? 'admin:admin-password' : as).toString('base64');
  const res = await fetch(path.startsWith('http') ? path : t.origin + path, { method, headers: h, body, redirect: 'manual' });
  return withDoc({ status: res.status, headers: res.headers, text: await res.text() });
}

/** A `sync-collection` REPORT's body: from `token` ('' for the first sync), asking each member's ETag; `extra` goes before the properties (a `limit`). */
export function syncCollection(token: string, extra = ''): string {
  return `<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level>${extra}<d:prop><d:getetag/></d:prop></d:sync-collection>`;
}

/** An answer with its body parsed (`doc`), when it is an XML document. */
export function withDoc(answer: Omit<DavAnswer, 'doc'>): DavAnswer {
  let doc: any;
  try {
    doc = answer.text.startsWith('<?xml') ? xml.parse(answer.text) : undefined;
  } catch {
    doc = undefined;
  }
  return { ...answer, doc };
}

/** The responses of a multistatus, by href: status, and the 200 and 404 properties. */
export function responses(doc: any): Map<string, { status?: string; ok: Record<string, any>; missing: string[] }> {
  const out = new Map<string, { status?: string; ok: Record<string, any>; missing: string[] }>();
  for (const r of doc?.multistatus?.response ?? []) {
    const entry = { status: r.status as string | undefined, ok: {} as Record<string, any>, missing: [] as string[] };
    for (const ps of r.propstat ?? []) {
      const props = ps.prop && typeof ps.prop === 'object' ? ps.prop : {};
      if (String(ps.status).includes(' 200 ')) Object.assign(entry.ok, props);
      else entry.missing.push(...Object.keys(props));
    }
    out.set(r.href[0], entry);
  }
  return out;
}

/** The event ids of fetched calendar objects (their UIDs, `{id}@host`), in order. */
export function uidsOf(objects: Array<{ data?: unknown }>): number[] {
  return objects
    .map((o) => /UID:(\d+)@/.exec(String(o.data))?.[1])
    .map(Number)
    .sort((a, b) => a - b);
}
