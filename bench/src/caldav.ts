/**
 * Issue 30: the CalDAV face in `npm run bench`. An unchanged sync-collection REPORT (a client that
 * already holds the current token asks what changed: nothing) should cost about what a 304 of the
 * event list costs (`list-304`): both answer from the change log's position without reading any
 * event. `caldavSyncToken` fetches the current token of the site calendar when the scenarios are
 * discovered; `CALDAV_SCENARIOS` are added to the load scenarios (select with
 * `BENCH_SCENARIOS=caldav` or `caldav-sync-unchanged`, next to `list-304`).
 *
 * @example BENCH_SCENARIOS=list-304,caldav BENCH_SIZES=100,20000 npm run bench
 */
import { createRequire } from 'node:module';
import type { Scenario } from './scenario.js';

// autocannon builds requests only for the methods in its list (RFC 7231's and PATCH): add REPORT.
const autocannonMethods = createRequire(import.meta.url)('autocannon/lib/httpMethods.js') as string[];
if (!autocannonMethods.includes('REPORT')) autocannonMethods.push('REPORT');

/** The site calendar of the CalDAV face (src/caldav). */
export const CALDAV_CALENDAR = '/dav/public/calendars/events/';

/** The sync-collection REPORT of a client holding `token` (DAVx5's body: getetag only, Depth 0). */
export function syncBody(token: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><sync-collection xmlns="DAV:"><sync-token>${token}</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`;
}

/** The current sync token of the site calendar (null when the service has no CalDAV face). */
export async function caldavSyncToken(origin: string): Promise<string | null> {
  const res = await fetch(origin + CALDAV_CALENDAR, {
    method: 'PROPFIND',
    headers: { depth: '0', 'content-type': 'application/xml' },
    body: '<d:propfind xmlns:d="DAV:"><d:prop><d:sync-token/></d:prop></d:propfind>',
  });
  const text = await res.text();
  if (res.status !== 207) return null;
  return /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(text)?.[1] ?? null;
}

/**
 * The CalDAV scenario as a syncing client sends it: each connection asks what changed since the
 * token of its last answer (under the creates, the token the scenario starts with stops being
 * current at the first one; a client re-sending it would be told every change since the start, up
 * to SYNC_MAX_CHANGES, at every request). Used by bench/src/memory.ts, whose creates move the
 * token (MEMORY_CALDAV=stale sends the first token there instead).
 */
export function followingSync(method: string, first: string) {
  return {
    method: method as 'GET',
    setupRequest: (req: object, context: { token?: string }) => ({ ...req, body: syncBody(context.token ?? first) }),
    onResponse: (_status: number, body: string, context: { token?: string }) => {
      const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(body)?.[1];
      if (token) context.token = token.replace(/&amp;/g, '&');
    },
  };
}

export const CALDAV_SCENARIOS: Scenario[] = [
  {
    key: 'caldav-sync-unchanged',
    label: 'CalDAV sync-collection REPORT, token current (207, no changes)',
    kind: 'read',
    method: 'REPORT',
    path: (c) => `${c.origin}${CALDAV_CALENDAR}`,
    headers: () => ({ depth: '0', 'content-type': 'application/xml; charset=utf-8' }),
    body: (c) => {
      const body = syncBody(c.caldavSyncToken ?? '');
      return () => body;
    },
  },
];
