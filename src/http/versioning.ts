/**
 * ETags of API answers derived from versions, for the pipeline:
 *
 * - an item (`/events/42`, `/venues/by-slug/x`, `/tags/5`): `"<database id>.<type><id>.<version>.<variant>"`,
 *   where `version` names the record's version (`services.versions.of`: the last change of it, its
 *   venue, organizers and terms) by its `versionTag` (equal for equal versions, never the change
 *   log's number: see domain/sync.ts) and `variant` a short hash of what else decides the body (who asks, the
 *   REST root and namespace, `_fields`, `_envelope`, `_jsonp`). `If-Match` on a write compares the
 *   database id, record and version, so a tag read under any namespace or by any caller is current
 *   as long as the record has not changed.
 * - a list: `"<database id>.L<revision>.<hash>"`: the data revision (its `versionTag`) and a
 *   hash of the route, the request's arguments (canonical: sorted), who asks, and the day of the
 *   default date window (the event list's default window moves daily).
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isAuthenticated, type Viewer } from '../domain/permissions.js';
import type { Services } from '../domain/services.js';
import type { VersionedType } from '../domain/versions.js';
import { versionTag, type SyncKey } from '../domain/sync.js';
import type { Validators } from '../web/conditional.js';
import type { EndpointContext, RouteDecl } from './route.js';
import { registerKept } from '../metrics.js';

const TYPE_LETTER: Record<VersionedType, string> = { event: 'e', venue: 'v', organizer: 'o', term: 't' };

function viewerKey(viewer: Viewer): string {
  return isAuthenticated(viewer) ? `${viewer.id}:${viewer.role}` : 'anon';
}

/** JSON with object keys sorted (canonical form of the request's arguments). */
function canonical(value: unknown): string {
  if (value === undefined) return 'null'; // most requests send no `_fields` / `_envelope`
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Hashes of recent inputs: most requests repeat a few argument sets (cleared when full). */
const hashes = new Map<string, string>();
registerKept(undefined, 'etag_hashes', { entries: () => hashes.size, maxEntries: 10_000 });

function shortHash(parts: ReadonlyArray<string | number | undefined>): string {
  const text = parts.join('\u0000');
  let hash = hashes.get(text);
  if (hash === undefined) {
    hash = createHash('sha1').update(text).digest('base64url').slice(0, 16);
    if (hashes.size >= 10_000) hashes.clear();
    hashes.set(text, hash);
  }
  return hash;
}

/** What decides an answer's body besides the data: who asks, where, and the global parameters. */
function variantParts(req: FastifyRequest, ctx: EndpointContext): Array<string | undefined> {
  const q = (req.query ?? {}) as Record<string, unknown>;
  return [`${ctx.links.restRootPath}/${ctx.links.namespace}`, viewerKey(ctx.viewer), canonical(q._fields), canonical(q._envelope), req.jsonpCallback];
}

/**
 * The settings an answer's body shows besides the data: the site's currency (a bare-number cost's
 * symbol). Changed in the app while a record stays as it was, so its version alone would repeat
 * an entity tag over a new body.
 */
function settingsParts(services: Services): string[] {
  return [services.config.currencySymbol, services.config.currencyPosition];
}

/** Whether the request carried credentials (the answer is then private). */
function isPrivate(req: FastifyRequest, ctx: EndpointContext): boolean {
  return req.headers.authorization !== undefined || isAuthenticated(ctx.viewer);
}

export function itemEtag(key: SyncKey, type: VersionedType, id: number, seq: number, variant: string): string {
  return `"${key.databaseId}.${TYPE_LETTER[type]}${id}.${versionTag(key, seq)}.${variant}"`;
}

/**
 * Whether an entity tag names this record at this version (any variant), in the calendar at hand.
 * A tag of before versions were named by their tag (the number itself) still does, as version 2 sync
 * tokens are still taken: a client that held both through the upgrade writes an unchanged record
 * without a 412. Only a write's precondition reads it (a caller who may edit the record), and it
 * tells nothing but whether it matches.
 */
export function tagNamesVersion(tag: string, key: SyncKey, type: VersionedType, id: number, seq: number): boolean {
  const m = /^"([^.]+)\.([a-z])(\d+)\.([A-Za-z0-9_-]+)\.[^"]*"$/.exec(tag);
  if (!m || m[1] !== key.databaseId || m[2] !== TYPE_LETTER[type] || Number(m[3]) !== id) return false;
  return m[4] === versionTag(key, seq) || m[4] === String(seq);
}

/** The id of the addressed record (loaded by the route's `load`). */
export function recordIdOf(ctx: EndpointContext): number | undefined {
  const r = ctx.record as { id?: unknown } | null;
  return r && r.id !== undefined ? Number(r.id) : undefined;
}

/**
 * Validators of an item GET. `before` is the change log's number read (the feed brought up to the
 * database) before the record was loaded: when the record changed since (its version is newer),
 * the loaded record may be older than that version, so no version validators are given (the
 * pipeline then tags the body). The version is read from the feed as it is (synced for `before`,
 * in this request), so it costs no further round trip.
 */
export async function itemValidators(services: Services, req: FastifyRequest, ctx: EndpointContext, type: VersionedType, before: number): Promise<Validators | undefined> {
  const id = recordIdOf(ctx);
  if (id === undefined) return undefined;
  const [key, v] = await Promise.all([services.versions.syncKey(), services.versions.of(type, id, false)]);
  if (v.seq > before) return undefined;
  return { etag: itemEtag(key, type, id, v.seq, shortHash([...variantParts(req, ctx), ...settingsParts(services)])), lastModified: v.gmt, private: isPrivate(req, ctx) };
}

/** Validators of a list GET: the data revision, the canonical arguments and who asks. */
export async function listValidators(services: Services, req: FastifyRequest, ctx: EndpointContext, decl: RouteDecl): Promise<Validators> {
  const [dbId, position] = await Promise.all([services.versions.databaseId(), services.versions.position()]);
  const window = services.events.defaultWindow();
  const hash = shortHash([decl.path, canonical(ctx.input ?? {}), window.start.slice(0, 10), window.end.slice(0, 10), ...variantParts(req, ctx), ...settingsParts(services)]);
  return { etag: `"${dbId}.L${position.tag}.${hash}"`, lastModified: position.gmt, private: isPrivate(req, ctx) };
}
