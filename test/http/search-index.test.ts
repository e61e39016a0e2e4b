/**
 * The event list's `search` read through an index (migration 019, store/search-index.ts): the same
 * events, order and totals as a plain scan of title, excerpt and content (LIKE on SQLite, ILIKE on
 * PostgreSQL) for short, long, quoted, escaped, non-ASCII and HTML terms; the index follows every
 * write (create, update, trash, delete, import) and is filled for the posts there before it; the
 * statement reads it (EXPLAIN), and on SQLite what is still a scan (a word of one or two characters)
 * runs on the background reader, off the event loop.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CompiledQuery, sql } from 'kysely';
import { ADMIN, startServer, STORES, type StoreKind, type TestServer } from '../support/harness.js';
import { createEvent } from '../support/fixtures.js';
import { backgroundReaderOf } from '../../src/store/handle.js';
import { eventPageStatements } from '../../src/store/event-pages.js';
import { migrate, openStore, type Store } from '../../src/store/db.js';
import { searchWords } from '../../src/domain/events/types.js';

const A = '/api/calendar/admin/v1';
const auth = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');

/** Events whose texts the terms below probe: a word only in the excerpt, only in the content, markup, escapes, non-ASCII. */
const EVENTS: Array<{ title: string; excerpt?: string; description?: string }> = [
  { title: 'Jazz Night', excerpt: 'Smooth saxophone', description: '<p>Live <strong>jazz</strong> at the club</p>' },
  { title: 'JAZZ BRUNCH', description: 'Brunch with a trio' },
  { title: 'Rock Concert', excerpt: 'excerptonlyword here', description: 'Loud guitars' },
  { title: 'Quiet Evening', description: 'contentonlyword and a 100% acoustic set' },
  { title: 'Sale 50%_off', description: 'Everything a_b and a-b' },
  { title: 'Path C:\\temp\\x', description: 'back\\slash inside' },
  { title: 'O\'Brien\'s "quoted" show', description: 'He said "hello world"' },
  { title: 'Café Müller', excerpt: 'CAFÉ society', description: 'Straße und Strasse, ÜBER über' },
  { title: 'Ωmega Ελληνικά', description: 'ελληνικά λέξεις' },
  { title: 'Ab', description: 'xy' },
  { title: 'Open Air Festival', description: 'open air, open-air, openair' },
];

/** Searches (as sent) whose answers must equal a scan's. */
const TERMS = [
  'a',
  'zz',
  'ab',
  'jazz',
  'JaZz',
  'Jazz Night',
  '"jazz night"',
  '"z nig"',
  'jazz -brunch',
  '-jazz',
  'excerptonlyword',
  'contentonlyword',
  '100%',
  '%',
  '_',
  'a_b',
  '50%_off',
  '\\temp',
  'back\\slash',
  "O'Brien",
  '"quoted"',
  '"hello world"',
  'café',
  'CAFÉ',
  'müller',
  'MÜLLER',
  'straße',
  'über',
  'ελληνικά',
  'ΕΛΛΗΝΙΚΆ',
  'Ωmega',
  '<strong>',
  'rong>jaz',
  '</p>',
  'open air',
  '"open air"',
  'nothingmatchesthis',
  'noTHING',
];

/** The plain scan the list did before its index: every word (or phrase) a LIKE/ILIKE on the three columns, exclusions negated. */
async function scan(t: TestServer, search: string): Promise<number[]> {
  const { db, dialect } = t.built.store;
  const op = dialect === 'postgres' ? sql`ILIKE` : sql`LIKE`;
  const conditions = searchWords(search).map((raw) => {
    const exclude = raw.startsWith('-') && raw.length > 1;
    const word = exclude ? raw.slice(1) : raw;
    const pattern = `%${word.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    const any = sql`(${sql.join(
      ['title', 'excerpt', 'content'].map((c) => sql`${sql.ref(`posts.${c}`)} ${op} ${pattern} ESCAPE '\\'`),
      sql` or `,
    )})`;
    return exclude ? sql`not ${any}` : any;
  });
  const rows = await sql<{ id: number }>`select posts.id as id from posts inner join events on events.post_id = posts.id
    where posts.type = 'tribe_events' and posts.status = 'publish' and events.hide_from_listings = 0
    and ${sql.join(conditions, sql` and `)} order by events.start_local, events.post_id`.execute(db);
  return rows.rows.map((r) => Number(r.id));
}

/** The list's answer for a search: every id over its pages, and X-WP-Total. */
async function listed(t: TestServer, search: string): Promise<{ ids: number[]; total: number }> {
  const ids: number[] = [];
  let total = -1;
  for (let page = 1; page < 20; page++) {
    const res = await t.api.get('/events', { query: { search, start_date: '2027-01-01', end_date: '2027-12-31', per_page: '4', page: String(page) } });
    if (res.status === 404 && page > 1) break;
    assert.equal(res.status, 200, `${search}: ${res.text}`);
    total = Number(res.headers.get('x-wp-total'));
    ids.push(...res.body.events.map((e: { id: number }) => e.id));
    if (ids.length >= total) break;
  }
  return { ids, total };
}

async function sameAsScan(t: TestServer, terms: readonly string[], when: string): Promise<void> {
  for (const term of terms) {
    const expected = await scan(t, term);
    const got = await listed(t, term);
    assert.deepEqual(got.ids, expected, `${when}: search ${JSON.stringify(term)}`);
    assert.equal(got.total, expected.length, `${when}: X-WP-Total of ${JSON.stringify(term)}`);
  }
}

/** A store of each kind; SQLite in a file, so that it has its background reader. */
function kindsWithFiles(dir: string): StoreKind[] {
  return STORES.map((k) => (k.name === 'sqlite' ? { ...k, url: `sqlite:${join(dir, 'search.db')}` } : k));
}

const dir = mkdtempSync(join(tmpdir(), 'calendar-search-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const kind of kindsWithFiles(dir)) {
  describe(`search through its index [${kind.name}]`, () => {
    const t = {} as TestServer;
    const ids: number[] = [];
    before(async () => {
      Object.assign(t, await startServer(kind));
      let day = 1;
      for (const e of EVENTS) {
        const date = `2027-03-${String(day++).padStart(2, '0')}`;
        ids.push(await createEvent(t, { ...e, start_date: `${date} 10:00`, end_date: `${date} 11:00` }));
      }
    });
    after(async () => t.close?.());

    it('finds exactly the events, order and totals a plain scan finds', async () => {
      await sameAsScan(t, TERMS, 'created');
      // Sanity: the terms do probe something.
      assert.equal((await scan(t, 'excerptonlyword')).length, 1);
      assert.equal((await scan(t, 'contentonlyword')).length, 1);
      assert.equal((await scan(t, '<strong>')).length, 1);
    });

    it('answers a list page or embed whose search holds a NUL (those faces pass it on; neither an FTS5 query nor PostgreSQL can hold it)', async () => {
      for (const search of ['jaz%00z', 'jazz%00', '%00%00%00']) {
        for (const path of [`/events/list/?tribe-bar-search=${search}`, `/embed/?search=${search}`]) {
          const res = await fetch(`${t.origin}${path}`);
          assert.equal(res.status, 200, path);
        }
      }
    });

    it('follows updates, trash, deletes and imports', async () => {
      const rock = ids[2]!;
      let res = await t.api.post(`/events/${rock}`, { as: 'admin', json: { title: 'Renamed Zydeco', excerpt: 'fresh excerpt words', description: 'replaced text' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await listed(t, 'zydeco')).ids, [rock]);
      assert.deepEqual((await listed(t, 'excerptonlyword')).ids, [], 'the old excerpt is gone from the index');
      assert.deepEqual((await listed(t, 'guitars')).ids, [], 'the old content is gone from the index');

      res = await t.api.delete(`/events/${ids[0]}`, { as: 'admin' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await listed(t, 'saxophone')).ids, [], 'trashed: not listed');
      const trashed = await t.api.get('/events', { as: 'admin', query: { search: 'saxophone', status: 'trash', start_date: '2027-01-01', end_date: '2027-12-31' } });
      assert.deepEqual(
        trashed.body.events.map((e: { id: number }) => e.id),
        [ids[0]],
        'still found in the trash',
      );

      // Deleted for good, then a new event (SQLite may give it the freed id): the old text is not found.
      const last = ids[ids.length - 1]!;
      res = await t.api.delete(`/events/${last}`, { as: 'admin', query: { force: 'true' } });
      assert.equal(res.status, 200, res.text);
      const fresh = await createEvent(t, { title: 'Newcomer', start_date: '2027-04-01 10:00', end_date: '2027-04-01 11:00' });
      assert.deepEqual((await listed(t, 'openair')).ids, []);
      assert.deepEqual((await listed(t, 'newcomer')).ids, [fresh]);

      const ics = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        'UID:search-1@test',
        'SUMMARY:Imported Polka',
        'DESCRIPTION:accordion evening',
        'DTSTART:20270501T100000Z',
        'DTEND:20270501T110000Z',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
      const queued = await fetch(`${t.origin}${A}/imports`, { method: 'POST', headers: { authorization: auth, 'content-type': 'text/calendar' }, body: ics });
      assert.equal(queued.status, 202);
      const { id } = (await queued.json()) as { id: number };
      for (let i = 0; i < 200; i++) {
        const state = await t.api.get(`${A}/imports/${id}`, { as: 'admin' });
        if (state.body.status === 'done') break;
        assert.notEqual(state.body.status, 'failed', state.text);
        await sleep(50);
      }
      assert.equal((await listed(t, 'accordion')).ids.length, 1, 'the imported event is found');

      await sameAsScan(t, [...TERMS, 'zydeco', 'fresh', 'accordion', 'polka', 'newcomer'], 'after the writes');
    });

    it('fills the index for the posts written before it (an existing database)', async () => {
      const { db, dialect } = t.built.store;
      // The database as before migration 019, with an event written meanwhile.
      if (dialect === 'sqlite') {
        for (const trigger of ['posts_search_insert', 'posts_search_update', 'posts_search_delete']) await sql`drop trigger ${sql.id(trigger)}`.execute(db);
        await sql`drop table posts_search`.execute(db);
      } else {
        for (const index of ['posts_title_trgm', 'posts_excerpt_trgm', 'posts_content_trgm']) await sql`drop index ${sql.id(index)}`.execute(db);
      }
      await db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', '019_search_index' as never)
        .execute();
      const before = await createEvent(t, { title: 'Written before the index: marimba', start_date: '2027-06-01 10:00', end_date: '2027-06-01 11:00' });
      assert.deepEqual(await migrate(t.built.store), ['019_search_index']);
      assert.deepEqual((await listed(t, 'marimba')).ids, [before]);
      await sameAsScan(t, [...TERMS, 'marimba', 'zydeco'], 'after the migration on existing posts');
    });

    it('reads the index (EXPLAIN)', async () => {
      const { db, dialect } = t.built.store;
      const filter = { statuses: ['publish'], order: 'start' as const, searchWords: ['jazz'] };
      const [statement] = eventPageStatements(db, dialect, filter, { limit: 10, offset: 0 }, 'index');
      if (dialect === 'sqlite') {
        const plan = (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement!.sql}`, [...statement!.parameters]))).rows.map((r) => r.detail).join('\n');
        assert.match(plan, /posts_search VIRTUAL TABLE INDEX/, plan);
        return;
      }
      // PostgreSQL: the list's condition (ILIKE on each column, as the statement writes it), served
      // by the trigram indexes (a tiny table is cheapest read whole: ask which index it would read).
      assert.match(statement!.sql, /"posts"\."title" ILIKE \$\d+ ESCAPE '\\' or "posts"\."excerpt" ILIKE \$\d+ ESCAPE '\\' or "posts"\."content" ILIKE/, statement!.sql);
      const plan = await db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const text = `explain select id from posts where ("title" ILIKE $1 ESCAPE '\\' or "excerpt" ILIKE $1 ESCAPE '\\' or "content" ILIKE $1 ESCAPE '\\')`;
        const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(text, ['%jazz%']));
        return r.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      for (const index of ['posts_title_trgm', 'posts_excerpt_trgm', 'posts_content_trgm']) assert.match(plan, new RegExp(`Bitmap Index Scan on ${index}\\b`), plan);
    });

    if (kind.name === 'sqlite') {
      it('reads the same rows whichever way the page reads the index (from its matches, checking each event, or by LIKE)', async () => {
        const { db, dialect } = t.built.store;
        for (const term of TERMS) {
          const filter = { statuses: ['publish'], order: 'start' as const, searchWords: searchWords(term) };
          const rows = async (mode: 'scan' | 'probe' | 'index') => {
            const [statement] = eventPageStatements(db, dialect, filter, { limit: 100, offset: 0 }, mode);
            return (await db.executeQuery<{ id: number }>(CompiledQuery.raw(statement!.sql, [...statement!.parameters]))).rows.map((r) => Number(r.id));
          };
          const scanned = await rows('scan');
          assert.deepEqual(await rows('index'), scanned, `index: ${term}`);
          assert.deepEqual(await rows('probe'), scanned, `probe: ${term}`);
        }
      });

      it('runs a search that still scans (a short word, the venue list) and the index lookups on the background reader', async () => {
        const reader = backgroundReaderOf(t.built.store.db);
        assert.ok(reader, 'a SQLite file has a background reader');
        const asked: string[] = [];
        const all = reader.all.bind(reader);
        reader.all = ((text: string, params: readonly unknown[]) => {
          asked.push(text);
          return all(text, params);
        }) as typeof reader.all;
        try {
          const short = await listed(t, 'qz');
          assert.deepEqual(short.ids, await scan(t, 'qz'));
          assert.ok(
            asked.some((q) => /\blike\b/i.test(q) && /\blimit\b/i.test(q)),
            `the short word's page was read off the loop: ${asked.join('\n')}`,
          );
          asked.length = 0;
          const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Hall Zeta', city: 'Zetaville' } });
          assert.equal(venue.status, 201, venue.text);
          asked.length = 0;
          const venues = await t.api.get('/venues', { query: { search: 'zetav' } });
          assert.deepEqual(
            venues.body.venues.map((v: { id: number }) => v.id),
            [venue.body.id],
          );
          assert.ok(
            asked.some((q) => /"venues"/.test(q) && /\blike\b/i.test(q)),
            `the venue search was read off the loop: ${asked.join('\n')}`,
          );
          asked.length = 0;
          await listed(t, 'brunch');
          assert.ok(
            asked.some((q) => q.includes('posts_search') && /\blimit\b/i.test(q)),
            `the page was read through the index, off the loop: ${asked.join('\n')}`,
          );
        } finally {
          reader.all = all;
        }
      });
    }
  });
}

const postgres = STORES.find((k) => k.name === 'postgres');
if (postgres) {
  it('migrates without the trigram indexes where pg_trgm cannot be created, searches as before, and says so at start-up [postgres]', async () => {
    // A database without the extension, and a user who may not create one (no CREATE on the database).
    const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
    const database = `t_notrgm_${suffix}`;
    const role = `r_notrgm_${suffix}`;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    let store: Store | undefined;
    try {
      await admin.query(`create database ${database}`);
      await admin.query(`create role ${role} login`);
      const url = new URL(postgres.url);
      url.pathname = `/${database}`;
      const owner = new pg.Client({ connectionString: url.toString() });
      await owner.connect();
      try {
        await owner.query(`grant create on schema public to ${role}`);
        await owner.query(`revoke create on database ${database} from public`);
      } finally {
        await owner.end();
      }
      url.username = role;
      store = await openStore(url.toString());
      const warnings: Array<{ obj: object; msg: string }> = [];
      store.setLogger({ warn: (obj, msg) => warnings.push({ obj, msg }) });
      const indexes = await sql<{ n: number }>`select count(*)::int as "n" from pg_indexes where indexname like 'posts_%_trgm'`.execute(store.db);
      assert.equal(indexes.rows[0]!.n, 0);
      const [statement] = eventPageStatements(store.db, 'postgres', { statuses: ['publish'], order: 'start', searchWords: ['jazz'] }, { limit: 10, offset: 0 });
      assert.deepEqual((await store.db.executeQuery(CompiledQuery.raw(statement!.sql, [...statement!.parameters]))).rows, [], 'a search still runs (a scan)');
      for (let i = 0; i < 100 && warnings.length === 0; i++) await sleep(10);
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      assert.match(warnings[0]!.msg, /search runs without its trigram index/);
      assert.match(JSON.stringify(warnings[0]!.obj), /could not be created/);
    } finally {
      await store?.close();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.query(`drop role if exists ${role}`);
      await admin.end();
    }
  });
}
