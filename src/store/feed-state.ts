/**
 * What a scheduled `import ics URL --every …` keeps of a feed between runs (its `ETag` and
 * `Last-Modified`), in the `settings` table (migration 012) under `ics_feed:` and a hash of the
 * URL, so that an unchanged feed costs one conditional GET answered 304, across restarts too.
 *
 * @example
 *   await writeFeedState(db, 'https://example.org/feed.ics', { etag: '"abc"' });
 *   (await readFeedState(db, 'https://example.org/feed.ics'))?.etag // '"abc"'
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from './schema.js';

export interface FeedState {
  etag?: string;
  lastModified?: string;
}

const nameOf = (url: string) => `ics_feed:${createHash('sha256').update(url).digest('hex').slice(0, 40)}`;

export async function readFeedState(db: Executor, url: string): Promise<FeedState | undefined> {
  const r = await sql<{ value: string }>`select "value" from "settings" where "name" = ${nameOf(url)}`.execute(db);
  const value = r.rows[0]?.value;
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as FeedState & { url?: string };
    return parsed.url === url ? { etag: parsed.etag, lastModified: parsed.lastModified } : undefined;
  } catch {
    return undefined;
  }
}

export async function writeFeedState(db: Executor, url: string, state: FeedState): Promise<void> {
  const value = JSON.stringify({ url, etag: state.etag, lastModified: state.lastModified });
  await sql`insert into "settings" ("name", "value") values (${nameOf(url)}, ${value}) on conflict ("name") do update set "value" = excluded."value"`.execute(db);
}
