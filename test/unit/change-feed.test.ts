/**
 * The change feed's pure parts: turning log rows into per-event transitions (`buildBatch`) and the
 * list filter's JavaScript mirror (`matchesFilter`), whose answers the kept totals rely on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildBatch } from '../../src/store/change-feed.js';
import { matchesFilter, type EventListFilter } from '../../src/store/event-list-results.js';
import type { ListingState } from '../../src/store/listing-states.js';
import type { FeedRow as ChangeRow } from '../../src/store/change-feed.js';
import { noteChange } from '../../src/store/change-notes.js';
import { writeTransaction } from '../../src/store/changes.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createSqliteFeed } from '../../src/store/sqlite-feed.js';
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORES } from '../support/harness.js';
import { logVenueUpdate } from '../support/logged-commit.js';

const state = (over: Partial<ListingState> = {}): ListingState => ({
  id: 1,
  status: 'publish',
  author_id: 1,
  parent_id: 0,
  date_gmt: '2031-01-01 00:00:00',
  start_local: '2031-02-01 10:00:00',
  end_local: '2031-02-01 12:00:00',
  hide_from_listings: 0,
  featured: 0,
  venue_id: null,
  terms: [],
  organizers: [],
  ...over,
});
const text = (title: string) => ({ title, excerpt: '', content: '' });

describe('buildBatch', () => {
  it('chains several changes of one event: each after is the next before, the last is the state read', () => {
    const s1 = state({ status: 'draft' });
    const s2 = state({ status: 'publish' });
    const now = state({ status: 'publish', featured: 1 });
    const rows: ChangeRow[] = [
      { seq: 5, type: 'event', id: 1, action: 'create', detail: null },
      { seq: 6, type: 'term', id: 9, action: 'update', detail: null },
      { seq: 6, type: 'event', id: 1, action: 'update', detail: { before: s1, text: false } },
      { seq: 7, type: 'event', id: 1, action: 'update', detail: { before: s2, text: true } },
    ];
    const batch = buildBatch(4, 7, rows, new Map([[1, now]]), new Map([[1, text('Jazz')]]), false);
    assert.equal(batch.reset, false);
    assert.equal(batch.listsReset, false);
    assert.deepEqual([...batch.terms], [9]);
    assert.deepEqual(
      batch.events.map((t) => [t.seq, t.before, t.after]),
      [
        [5, null, s1],
        [6, s1, s2],
        [7, s2, now],
      ],
    );
    // Text: known after the last change only (the one at 7 changed it); before it, unknown.
    assert.deepEqual(
      batch.events.map((t) => [t.beforeText?.title, t.afterText?.title]),
      [
        [undefined, undefined],
        [undefined, undefined],
        [undefined, 'Jazz'],
      ],
    );
  });

  it('knows the text on both sides of a change that did not touch it', () => {
    const batch = buildBatch(1, 2, [{ seq: 2, type: 'event', id: 1, action: 'update', detail: { before: state(), text: false } }], new Map([[1, state()]]), new Map([[1, text('Folk')]]), false);
    assert.equal(batch.events[0]!.beforeText?.title, 'Folk');
    assert.equal(batch.events[0]!.afterText?.title, 'Folk');
  });

  it('marks lists for reset when a before state is unknown, and resets on a bulk load or truncation', () => {
    assert.equal(buildBatch(1, 2, [{ seq: 2, type: 'event', id: 1, action: 'update', detail: null }], new Map(), new Map(), false).listsReset, true);
    assert.equal(buildBatch(1, 2, [{ seq: 2, type: 'all', id: 0, action: 'reset', detail: null }], new Map(), new Map(), false).reset, true);
    assert.equal(buildBatch(1, 2, [{ seq: 2, type: 'lists', id: 0, action: 'reset', detail: null }], new Map(), new Map(), false).listsReset, true);
    assert.equal(buildBatch(1, 99_999, [], new Map(), new Map(), true).reset, true);
  });

  it('tells whether something other than events and terms changed (what venue and organizer lists are kept until)', () => {
    const one = (type: string) => buildBatch(1, 2, [{ seq: 2, type, id: 3, action: 'update', detail: null } as ChangeRow], new Map(), new Map(), false).linkedChanged;
    for (const type of ['event', 'term', 'lists']) assert.equal(one(type), false, type);
    for (const type of ['venue', 'organizer', 'image', 'user', 'all', 'submission']) assert.equal(one(type), true, type);
  });
});

describe('matchesFilter', () => {
  const base: EventListFilter = { statuses: ['publish'], order: 'start', startFrom: '2031-01-01 00:00:00', endUntil: '2031-12-31 23:59:59' };

  it('follows status, author, window, hidden, links, flags, include and parent', () => {
    assert.equal(matchesFilter(base, state(), undefined, 'sqlite'), true);
    assert.equal(matchesFilter(base, null, undefined, 'sqlite'), false);
    assert.equal(matchesFilter(base, undefined, undefined, 'sqlite'), undefined);
    assert.equal(matchesFilter(base, state({ status: 'draft' }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter({ ...base, statuses: ['publish', 'draft'], onlyPublishedOrAuthor: 2 }, state({ status: 'draft', author_id: 2 }), undefined, 'sqlite'), true);
    assert.equal(matchesFilter({ ...base, statuses: ['publish', 'draft'], onlyPublishedOrAuthor: 2 }, state({ status: 'draft', author_id: 3 }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter(base, state({ hide_from_listings: 1 }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter(base, state({ start_local: '2030-12-31 23:59:59' }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter(base, state({ end_local: '2032-01-01 00:00:00' }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter({ ...base, categoryIds: [3, 4] }, state({ terms: [4] }), undefined, 'sqlite'), true);
    assert.equal(matchesFilter({ ...base, categoryIds: [] }, state({ terms: [4] }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter({ ...base, venueIds: [7] }, state({ venue_id: null }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter({ ...base, organizerIds: [8] }, state({ organizers: [8, 9] }), undefined, 'sqlite'), true);
    assert.equal(matchesFilter({ ...base, featured: false }, state({ featured: 1 }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter({ ...base, include: [2] }, state({ id: 1 }), undefined, 'sqlite'), false);
    assert.equal(matchesFilter({ ...base, postParent: 5 }, state({ parent_id: 5 }), undefined, 'sqlite'), true);
  });

  it('searches like the dialect: words in any field, exclusions, ASCII folding on SQLite', () => {
    const f = { ...base, searchWords: ['jazz', '-rock'] };
    assert.equal(matchesFilter(f, state(), undefined, 'sqlite'), undefined, 'text needed');
    assert.equal(matchesFilter(f, state(), text('JAZZ night'), 'sqlite'), true);
    assert.equal(matchesFilter(f, state(), { title: 'x', excerpt: '', content: '<p>Jazz</p>' }, 'postgres'), true);
    assert.equal(matchesFilter(f, state(), text('Jazz Rock'), 'sqlite'), false);
    // SQLite's LIKE folds ASCII only: É and é differ there, not in PostgreSQL's ILIKE.
    const accent = { ...base, searchWords: ['é'] };
    assert.equal(matchesFilter(accent, state(), text('CAFÉ'), 'sqlite'), false);
    assert.equal(matchesFilter(accent, state(), text('CAFé'), 'sqlite'), true);
    assert.equal(matchesFilter(accent, state(), text('CAFÉ'), 'postgres'), undefined, 'non-ASCII words are left to the database');
    // % and _ are literal.
    assert.equal(matchesFilter({ ...base, searchWords: ['50%'] }, state(), text('500 seats'), 'sqlite'), false);
  });
});

describe('transitionsBetween', () => {
  it('refuses a range from ahead of the feed, and one older than its history', async () => {
    const { openStore } = await import('../../src/store/db.js');
    const store = await openStore('sqlite::memory:');
    try {
      const feed = store.feed;
      const seq = await feed.sync();
      assert.deepEqual(feed.transitionsBetween(seq, seq), []);
      assert.equal(feed.transitionsBetween(seq + 1, seq), undefined, 'from ahead of the feed');
      assert.equal(feed.transitionsBetween(seq - 1, seq), undefined, 'older than the history');
    } finally {
      await store.close();
    }
  });
});

describe('the SQLite feed looks for other connections at most once per batch of requests and turn', () => {
  /** A connection double: what the feed's statements answer, and how often it asked each. */
  function fakeConnection() {
    const db = { dataVersion: 1, totalChanges: 0, counter: 10, inTransaction: false, asked: { dataVersion: 0, totalChanges: 0, since: 0 }, rows: [] as unknown[] };
    const stmt = (get: () => unknown, all: () => unknown[] = () => [], run = () => undefined) => ({ get, all, run, pluck: () => ({ get, all, run }) });
    return {
      db,
      connection: {
        get inTransaction() {
          return db.inTransaction;
        },
        prepare(text: string) {
          if (text.includes('pragma_data_version()')) return stmt(() => db.dataVersion);
          if (text.startsWith('pragma data_version')) return stmt(() => (db.asked.dataVersion++, db.dataVersion));
          if (text.startsWith('select total_changes()')) return stmt(() => (db.asked.totalChanges++, db.totalChanges));
          if (text.includes('"change_counter"')) return stmt(() => db.counter);
          if (text.includes('from "changes"'))
            return stmt(
              () => undefined,
              () => (db.asked.since++, db.rows),
            );
          return stmt(() => undefined);
        },
      },
    };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('sees another connection after expectChanges() or in the next turn, and its own writes at once', async () => {
    const { db, connection } = fakeConnection();
    const feed = createSqliteFeed(connection);
    const terms: number[][] = [];
    feed.subscribe((batch) => terms.push([...batch.terms]));
    assert.equal(await feed.sync(), 10);
    assert.equal(db.asked.dataVersion, 1);
    // Another connection commits (seq 11): the same request, in the same turn, keeps what it saw.
    db.dataVersion = 2;
    db.counter = 11;
    db.rows = [{ seq: 11, idx: 0, record_type: 'term', record_id: 7, action: 'update', detail: null }];
    const totalAsked = db.asked.totalChanges;
    assert.equal(await feed.sync(), 10);
    assert.equal(db.asked.dataVersion, 1, 'looked once in this request and turn');
    assert.equal(db.asked.totalChanges, totalAsked, 'nothing asked of SQLite until a commit of its own is reported');
    // A new request arrives: it must see every write acknowledged before it.
    feed.expectChanges();
    assert.equal(await feed.sync(), 11);
    assert.equal(db.asked.dataVersion, 2);
    assert.deepEqual(terms.at(-1), [7]);
    // This connection writes (seq 12; the change log reports its commits): seen at once, without
    // asking for other connections.
    db.totalChanges = 3;
    db.counter = 12;
    db.rows = [{ seq: 12, idx: 0, record_type: 'term', record_id: 8, action: 'update', detail: null }];
    feed.expectOwnCommit();
    assert.equal(await feed.sync(), 12);
    assert.equal(db.asked.dataVersion, 2);
    // Another connection again (seq 13): the next turn of the event loop looks.
    db.dataVersion = 3;
    db.counter = 13;
    db.rows = [{ seq: 13, idx: 0, record_type: 'term', record_id: 9, action: 'update', detail: null }];
    assert.equal(await feed.sync(), 12);
    await nextTurn();
    assert.equal(await feed.sync(), 13);
    assert.equal(db.asked.dataVersion, 3);
    assert.deepEqual(terms.slice(1), [[7], [8], [9]]);
  });
});

describe('each calendar has a revision of its own, the log’s alone', () => {
  /** A connection double whose log holds `rows`, and whose look-up of positions answers `own` and `people`. */
  function connectionWith() {
    const db = { dataVersion: 1, counter: 10, own: 5, people: 3, lookups: 0, rows: [] as unknown[] };
    const stmt = (get: () => unknown, all: () => unknown[] = () => [], run = () => undefined) => ({ get, all, run, pluck: () => ({ get, all, run }) });
    const connection = {
      inTransaction: false,
      prepare(text: string) {
        if (text.startsWith('pragma data_version') || text.includes('pragma_data_version()')) return stmt(() => db.dataVersion);
        if (text.startsWith('select total_changes()')) return stmt(() => 0);
        if (text.includes('"change_counter"')) return stmt(() => db.counter);
        if (text.includes('max("seq")')) return stmt(() => (db.lookups++, { own: db.own, people: db.people }));
        if (text.includes('from "changes"'))
          return stmt(
            () => undefined,
            () => db.rows,
          );
        return stmt(() => undefined);
      },
    };
    return { db, connection };
  }
  const row = (seq: number, calendar: number, type = 'venue') => ({ seq, idx: 0, record_type: type, record_id: 1, action: 'update', detail: null, calendar_id: calendar });

  it('moves with the calendar’s own rows and people’s, not with another calendar’s; a blind reset moves all; positions are bounded', async () => {
    const { inCalendar, acrossCalendars } = await import('../../src/store/calendar-scope.js');
    const { db, connection } = connectionWith();
    const feed = createSqliteFeed(connection, undefined, { unexplainedMs: 0 }); // a move of the version without log rows resets at once
    const step = async (counter: number, rows: unknown[], other = true) => {
      db.counter = counter;
      db.rows = rows;
      if (other) db.dataVersion++;
      feed.expectChanges();
      await feed.sync();
    };
    await feed.sync();
    assert.equal(
      inCalendar(2, () => feed.revision()),
      '5',
      'looked up: its last change',
    );
    assert.equal(db.lookups, 1);
    assert.equal(
      acrossCalendars(() => feed.revision()),
      'a10',
      'across calendars: the whole log',
    );

    await step(11, [row(11, 3)]);
    assert.equal(
      inCalendar(2, () => feed.revision()),
      '5',
      'another calendar’s write',
    );
    assert.equal(
      inCalendar(3, () => feed.revision()),
      '11',
    );
    assert.equal(db.lookups, 1, 'a calendar written is known without a look-up');
    const stamp = feed.stamp();

    await step(12, [row(12, 3, 'event')]);
    assert.equal(feed.calendarRevisionSince(2, stamp), '5');
    assert.equal(feed.calendarRevisionSince(3, stamp), undefined);
    assert.equal(
      inCalendar(3, () => feed.linkedRevision()),
      '11',
      'an event leaves the linked revision',
    );

    await step(13, [row(13, 2, 'user')]);
    assert.equal(
      inCalendar(2, () => feed.revision()),
      '13',
      'people’s change moves every calendar',
    );
    assert.equal(
      inCalendar(3, () => feed.revision()),
      '13',
    );
    assert.deepEqual(
      inCalendar(2, () => feed.here()),
      { seq: 13, revision: '13' },
    );

    // Another connection commits without log rows: what changed is unknown.
    db.dataVersion++;
    feed.expectChanges();
    await feed.sync();
    db.people = 13;
    assert.equal(
      inCalendar(2, () => feed.revision()),
      '13~1',
    );
    assert.equal(db.lookups, 2, 'looked up again');

    // More calendars written than the feed keeps: the oldest are forgotten and looked up again.
    await step(
      14,
      Array.from({ length: 10_001 }, (_, i) => row(14, 100 + i)),
    );
    assert.equal(feed.kept?.positions(), 10_000);
    db.own = 14;
    assert.equal(
      inCalendar(2, () => feed.revision()),
      '14~1',
    );
    assert.equal(db.lookups, 3);
  });
});

for (const kind of STORES) {
  describe(`a calendar's position is known after a sync in it [${kind.name}]`, () => {
    it('answers here() with the calendar’s last change, not another calendar’s', async () => {
      const { inCalendar } = await import('../../src/store/calendar-scope.js');
      const schema = kind.name === 'postgres' ? `t_here_${process.pid}` : undefined;
      const store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      try {
        await inCalendar(2, () => writeTransaction(store.db, (trx) => noteChange(trx, 'venue', 1, 'update')));
        const own = await store.feed.sync();
        await inCalendar(3, () => writeTransaction(store.db, (trx) => noteChange(trx, 'venue', 1, 'update')));
        const here = await inCalendar(2, async () => {
          await store.feed.sync();
          return store.feed.here();
        });
        assert.equal(here?.seq, own);
        assert.equal(here?.revision, String(own));
        assert.ok(store.feed.seq() > own);
      } finally {
        await store.close();
      }
    });
  });

  describe(`the change log wakes only subscribers that want waking [${kind.name}]`, () => {
    it('a commit wakes a wanted subscriber soon, and none when no subscriber wants it', async () => {
      const schema = kind.name === 'postgres' ? `t_wake_${process.pid}` : undefined;
      const store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      try {
        let wanted = false;
        let woken = 0;
        const stop = store.changes.subscribe(() => woken++, { wanted: () => wanted });
        const commit = () => writeTransaction(store.db, (trx) => noteChange(trx, 'venue', 1, 'update'));
        const settle = () => new Promise((r) => setTimeout(r, 60));
        await commit();
        await settle();
        assert.equal(woken, 0, 'not wanted: not woken');
        wanted = true;
        await commit();
        await settle();
        assert.equal(woken, 1, 'wanted: woken once');
        stop();
        wanted = true;
        await commit();
        await settle();
        assert.equal(woken, 1, 'unsubscribed');
      } finally {
        await store.close();
      }
    });
  });
}

/**
 * A SQLite file with a migrated store on it, a connection for a feed under test whose (plucked)
 * statement matching `at` runs what `after` was given right after it answers, and another
 * connection: another process's writes landing at that moment.
 */
async function withFeedFile(
  at: (text: string) => boolean,
  run: (x: { store: Store; other: BetterSqlite3.Database; connection: Parameters<typeof createSqliteFeed>[0]; after: (then: () => void) => void; pending: () => boolean }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-feed-'));
  const file = join(dir, 'calendar.db');
  const store = await openStore(`sqlite:${file}`);
  const reader = new BetterSqlite3(file);
  const other = new BetterSqlite3(file);
  let hook: (() => void) | undefined;
  const connection = {
    get inTransaction() {
      return reader.inTransaction;
    },
    prepare(text: string) {
      const statement = reader.prepare(text);
      if (!at(text)) return statement;
      const plucked = statement.pluck();
      const get = () => {
        const value = plucked.get();
        const then = hook;
        hook = undefined;
        then?.();
        return value;
      };
      const wrapped = { get, all: () => [get()], run: () => plucked.run(), pluck: () => wrapped };
      return wrapped;
    },
  };
  try {
    await run({ store, other, connection, after: (then) => (hook = then), pending: () => hook !== undefined });
  } finally {
    reader.close();
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the SQLite feed reads a batch as one snapshot', () => {
  it('a commit of another process landing while it reads does not show in the batch’s states (it would be applied twice)', async () => {
    // Right after the feed reads the log's counter, another connection changes the event the batch names.
    await withFeedFile(
      (text) => text.includes('"change_counter"'),
      async ({ store, other, connection, after, pending }) => {
        const feed = createSqliteFeed(connection);
        const seen: Array<{ id: number; before: string | null | undefined; after: string | null | undefined }> = [];
        feed.subscribe((batch) => {
          for (const t of batch.events)
            seen.push({ id: t.id, before: t.before === undefined ? undefined : (t.before?.status ?? null), after: t.after === undefined ? undefined : (t.after?.status ?? null) });
        });
        await feed.sync();
        const when = '2031-01-01 10:00:00';
        const id = await writeTransaction(store.db, async (trx) => {
          const post = await trx
            .insertInto('posts')
            .values({ type: 'tribe_events', status: 'publish', title: 'Snapshot', date_local: when, date_gmt: when, modified_local: when, modified_gmt: when } as never)
            .returning('id')
            .executeTakeFirstOrThrow();
          const postId = Number(post.id);
          await trx
            .insertInto('events')
            .values({ post_id: postId, start_local: when, end_local: when, start_utc: when, end_utc: when, timezone: 'UTC' } as never)
            .execute();
          await noteChange(trx, 'event', postId, 'create');
          return postId;
        });
        after(() => other.prepare(`update "posts" set "status" = 'trash' where "id" = ?`).run(id));
        feed.expectChanges();
        await feed.sync();
        assert.equal(pending(), false, 'the other connection committed during the read');
        // The batch up to the counter it read ends at the event's state then: published. The trash
        // (a later commit) is the next batch's to tell.
        assert.deepEqual(
          seen.filter((t) => t.id === id),
          [{ id, before: null, after: 'publish' }],
        );
        assert.equal(other.prepare('select "status" from "posts" where "id" = ?').pluck().get(id), 'trash');
      },
    );
  });
});

describe('the SQLite feed knows which version it read', () => {
  it('a logged commit of another process landing between its look and its read is no reset at the next look', async () => {
    // Right after the feed's look at `PRAGMA data_version`, before it reads the log.
    await withFeedFile(
      (text) => text.startsWith('pragma data_version'),
      async ({ other, connection, after, pending }) => {
        // Another process's write, logged as the store logs writes: the counter moves, one row.
        const logged = () => logVenueUpdate(other);
        const feed = createSqliteFeed(connection);
        const batches: Array<{ reset: boolean; venues: number[] }> = [];
        feed.subscribe((batch) => batches.push({ reset: batch.reset, venues: [...batch.venues] }));
        await feed.sync();
        batches.length = 0;
        logged();
        after(logged);
        feed.expectChanges();
        const seq = await feed.sync();
        assert.equal(pending(), false, 'the second commit landed between the look and the read');
        assert.deepEqual(batches, [{ reset: false, venues: [1] }], 'both commits read in one batch');
        // Nothing committed since: the next look finds nothing to do, and no reset.
        await new Promise((r) => setImmediate(r));
        feed.expectChanges();
        assert.equal(await feed.sync(), seq);
        assert.deepEqual(batches, [{ reset: false, venues: [1] }], 'no reset');
      },
    );
  });
});

describe('looking a calendar up reads people’s newest row through the record index', () => {
  it('even with statistics from when the log was small (the planner walked the whole log back for it)', async () => {
    const { POSITIONS_SQL } = await import('../../src/store/calendar-positions.js');
    const { partsOf } = await import('../../src/store/handle.js');
    const store = await openStore('sqlite::memory:');
    try {
      const db = partsOf(store.db)!.connection!;
      // The statistics a database kept from an ANALYZE run when its log had 434 rows (as the
      // benchmark's 1,000,000-event file had, its log grown to 460,000 rows since).
      db.exec('analyze');
      db.exec(`delete from sqlite_stat1 where tbl = 'changes'`);
      db.exec(
        `insert into sqlite_stat1 (tbl, idx, stat) values ('changes', 'changes_calendar', '434 434 1 1'), ('changes', 'changes_record', '434 217 1 1'), ('changes', 'sqlite_autoindex_changes_1', '434 1 1')`,
      );
      db.exec('analyze sqlite_schema'); // reload them
      const plan = (db.prepare(`explain query plan ${POSITIONS_SQL}`).all(2, 10, 10) as Array<{ detail: string }>).map((r) => r.detail);
      const people = plan.slice(plan.findIndex((d) => d.startsWith('SCALAR SUBQUERY 2')) + 1)[0];
      assert.match(people ?? '', /USING (COVERING )?INDEX changes_record \(record_type=\?\)/, plan.join(' | '));
      assert.match(plan.join(' | '), /USING INDEX changes_calendar \(calendar_id=\? AND seq<\?\)/);
    } finally {
      await store.close();
    }
  });
});
