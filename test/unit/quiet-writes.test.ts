/**
 * SQLite: the service's writes outside the change log mark themselves (store/quiet-writes.ts), so
 * that a server's feed keeps what it has when another server on the file wrote only such state,
 * and still resets on any other commit without log rows (plain SQL), its own marks not counted;
 * and a move of the data version a look sees before the commit that makes it waits for that commit.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { UNEXPLAINED_MS, createSqliteFeed } from '../../src/store/sqlite-feed.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUIET_TABLES, quietWrites } from '../../src/store/quiet-writes.js';
import type { ChangeFeed } from '../../src/store/change-feed.js';
import { logVenueUpdate } from '../support/logged-commit.js';

/**
 * Connections on a migrated SQLite file: the feed's and another server's (both marking), and a
 * plain one (the `sqlite3` shell). `bump()` moves the data version the feed's connection reports
 * without a commit, as a writer starting the write-ahead log over does before it commits.
 */
async function withServers(
  run: (x: { feed: ChangeFeed; mine: BetterSqlite3.Database; theirs: BetterSqlite3.Database; plain: BetterSqlite3.Database; resets: () => number; bump: () => void }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-quiet-'));
  const file = join(dir, 'calendar.db');
  const store = await openStore(`sqlite:${file}`);
  const mine = new BetterSqlite3(file);
  const theirs = new BetterSqlite3(file);
  const plain = new BetterSqlite3(file);
  try {
    const own = quietWrites(mine);
    own.install();
    quietWrites(theirs).install();
    let extra = 0;
    const connection = {
      get inTransaction() {
        return mine.inTransaction;
      },
      prepare(text: string) {
        const statement = mine.prepare(text);
        if (!text.startsWith('pragma data_version') && !text.includes('pragma_data_version()')) return statement;
        const plucked = statement.pluck();
        const get = () => Number(plucked.get()) + extra;
        const wrapped = { get, all: () => [get()], run: () => plucked.run(), pluck: () => wrapped };
        return wrapped;
      },
    };
    const feed = createSqliteFeed(connection, own.own);
    let resets = 0;
    feed.subscribe((batch) => {
      if (batch.reset) resets++;
    });
    await feed.sync();
    // Its start tells subscribers to begin afresh; what counts is what comes after.
    resets = 0;
    await run({ feed, mine, theirs, plain, resets: () => resets, bump: () => extra++ });
  } finally {
    for (const c of [mine, theirs, plain]) c.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A row of the login throttle's (a table of `QUIET_TABLES`), written on `connection`. */
function throttle(connection: BetterSqlite3.Database, key: string): void {
  connection.prepare(`insert into "login_failures" ("key", "failures", "pending", "pending_until_ms", "last_ms", "blocked_until_ms") values (?, 1, 0, 0, 0, 0)`).run(key);
}

/** The next look, in a later turn (the feed looks for others' commits once per turn). */
async function look(feed: ChangeFeed): Promise<void> {
  await new Promise((r) => setImmediate(r));
  feed.expectChanges();
  await feed.sync();
}

describe('SQLite: writes outside the log mark themselves', () => {
  it('another server’s marked commit leaves the feed as it is; a plain one resets it', async () => {
    await withServers(async ({ feed, theirs, plain, resets }) => {
      throttle(theirs, 'a');
      await look(feed);
      assert.equal(resets(), 0, 'a marked commit');
      assert.deepEqual(feed.unlogged?.(), { marked: 1, unknown: 0, explainedLater: 0 });
      // The same table written by a connection without the triggers: what else it did is unknown.
      // The feed waits a moment for a commit to explain it, then resets.
      throttle(plain, 'b');
      await look(feed);
      assert.equal(resets(), 0, 'not at once');
      await sleep(UNEXPLAINED_MS + 50);
      await look(feed);
      assert.equal(resets(), 1, 'a plain commit');
      assert.deepEqual(feed.unlogged?.(), { marked: 1, unknown: 1, explainedLater: 0 });
    });
  });

  it('marks a webhook endpoint made and a follow made by another server (admin writes the write worker answers): no reset', async () => {
    await withServers(async ({ feed, theirs, resets }) => {
      theirs
        .prepare(
          `insert into "webhook_endpoints" ("url", "events", "secret", "description", "enabled", "cursor_seq", "created_gmt", "calendar_id") values ('https://example.org/hook', '[]', 's', '', 1, 0, '2026-12-01 00:00:00', 1)`,
        )
        .run();
      theirs.prepare(`insert into "calendar_follows" ("source_calendar_id", "categories", "created_gmt", "calendar_id") values (1, '[]', '2026-12-01 00:00:00', 1)`).run();
      await look(feed);
      await sleep(UNEXPLAINED_MS + 50);
      await look(feed);
      assert.equal(resets(), 0);
      // Both commits were found at one look: one marked move of the file's version.
      assert.deepEqual(feed.unlogged?.(), { marked: 1, unknown: 0, explainedLater: 0 });
    });
  });

  it('counts the feed’s own marks apart: its own marked writes do not hide another’s plain commit', async () => {
    await withServers(async ({ feed, mine, plain, resets }) => {
      // This server's own state (it sees its own commits without a look), then plain SQL.
      throttle(mine, 'mine');
      throttle(plain, 'plain');
      await look(feed);
      await sleep(UNEXPLAINED_MS + 50);
      await look(feed);
      assert.equal(resets(), 1);
      assert.deepEqual(feed.unlogged?.(), { marked: 0, unknown: 1, explainedLater: 0 });
    });
  });

  it('a marked commit and a logged one of another server between two looks are one batch, no reset', async () => {
    await withServers(async ({ feed, theirs, resets }) => {
      throttle(theirs, 'a');
      logVenueUpdate(theirs);
      await look(feed);
      assert.equal(resets(), 0);
      throttle(theirs, 'b');
      await look(feed);
      assert.equal(resets(), 0, 'marked again after the logged batch');
      assert.deepEqual(feed.unlogged?.(), { marked: 1, unknown: 0, explainedLater: 0 });
    });
  });

  it('a move of the data version before its commit (the write-ahead log started over) waits for the commit; one that nothing explains resets after a moment', async () => {
    await withServers(async ({ feed, theirs, resets, bump }) => {
      bump();
      await look(feed);
      assert.equal(resets(), 0);
      logVenueUpdate(theirs);
      await look(feed);
      assert.equal(resets(), 0, 'explained by the logged commit');
      throttle(theirs, 'a');
      await look(feed);
      assert.deepEqual(feed.unlogged?.(), { marked: 1, unknown: 0, explainedLater: 1 });
      // A move nothing follows: a reset once the moment has passed, not before.
      bump();
      await look(feed);
      await sleep(UNEXPLAINED_MS / 2);
      await look(feed);
      assert.equal(resets(), 0);
      await sleep(UNEXPLAINED_MS / 2 + 50);
      await look(feed);
      assert.equal(resets(), 1);
      assert.deepEqual(feed.unlogged?.(), { marked: 1, unknown: 1, explainedLater: 1 });
    });
  });

  it('a server that opens a new file marks its writes to every table of the list once it has migrated (the tables were made after it opened)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-quiet-'));
    const store = await openStore(`sqlite:${join(dir, 'calendar.db')}`);
    try {
      const triggers = new Set(
        (store.db.parts.connection!.prepare(`select "tbl_name" || ':' || substr("name", length("name") - 5) from "sqlite_temp_master" where "type" = 'trigger'`).pluck().all() as string[]).map((s) =>
          s.replace(/:.*_/, ':'),
        ),
      );
      for (const table of QUIET_TABLES) for (const op of ['insert', 'update', 'delete']) assert.ok(triggers.has(`${table}:${op}`), `${table} ${op}`);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every table of the schema is either marked or resets the other servers: a new table is a choice', async () => {
    // Tables behind kept results, revisions or public answers (or written only with log rows,
    // rarely, or by migrations): a write to them without log rows resets the other servers' feeds.
    const resetting = [
      'calendar_former_slugs',
      'calendar_roles',
      'calendar_settings',
      'calendars',
      'change_counter',
      'changes',
      // how far each calendar's log was pruned: written with the deletions of log rows, which reset anyway
      'changes_pruned',
      'event_locations',
      'event_occurrences',
      'event_organizers',
      'event_series',
      'event_terms',
      'events',
      'federation_activities',
      'federation_followers',
      'federation_keys',
      'federation_objects',
      'federation_state',
      'images',
      'import_map',
      'kysely_migration',
      'kysely_migration_lock',
      'network_linked',
      'network_sources',
      'occurrence_moves',
      'organizers',
      'posts',
      'posts_search',
      'posts_search_config',
      'posts_search_data',
      'posts_search_docsize',
      'posts_search_idx',
      'preview_revocations',
      'settings',
      'sqlite_sequence',
      'submission_log',
      'submissions',
      'sync_state',
      'terms',
      'users',
      'venues',
    ];
    const dir = mkdtempSync(join(tmpdir(), 'calendar-quiet-'));
    const store = await openStore(`sqlite:${join(dir, 'calendar.db')}`);
    try {
      const tables = store.db.parts.connection!.prepare(`select "name" from "sqlite_master" where "type" = 'table' order by 1`).pluck().all() as string[];
      assert.deepEqual(tables, [...QUIET_TABLES, ...resetting].sort());
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
