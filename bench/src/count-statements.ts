/**
 * How many SQL statements one event create sends, and which (issue 27, item 4): builds the app
 * in-process on a fresh PostgreSQL schema (or SQLite in memory), creates a venue, an organizer, a
 * category and a tag, then sends N creates like `npm run bench`'s (HTTP Basic admin, app.inject)
 * and counts the statements the pg client ran (or SQLite prepared statements run), by text.
 *
 *   node --import tsx bench/src/count-statements.ts postgres://postgres@127.0.0.1:5432/test [N=50]
 *   node --import tsx bench/src/count-statements.ts sqlite::memory: [N=50]
 *   COUNT_STACKS=1 node --import tsx bench/src/count-statements.ts …   # by where each statement was sent from
 */
import pg from 'pg';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/db.js';

const url = process.argv[2] ?? 'sqlite::memory:';
const n = Number(process.argv[3] ?? 50);
const counts = new Map<string, number>();
let counting = false;
/** COUNT_STACKS=1: count by statement and by the project's frames that sent it (where a statement comes from). */
const stacks = process.env.COUNT_STACKS === '1';
const whereFrom = () =>
  (new Error().stack ?? '')
    .split('\n')
    .filter((l) => l.includes('/src/') && !l.includes('node_modules') && !l.includes('count-statements'))
    .slice(0, 6)
    .map((l) =>
      l
        .trim()
        .replace(/^at (async )?/, '')
        .replace(/\(?file:\/\/[^)]*\/src\//, '')
        .replace(/\)$/, ''),
    )
    .join(' < ');
const count = (text: string) => {
  if (!counting) return;
  const key = text.replace(/\s+/g, ' ').slice(0, stacks ? 60 : 160) + (stacks ? `\n          ${whereFrom()}` : '');
  counts.set(key, (counts.get(key) ?? 0) + 1);
};
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0];
  count(typeof q === 'string' ? q : ((q as { text?: string }).text ?? String(q)));
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;
const proto = Database.prototype as unknown as { prepare: (sql: string) => unknown };
const prepare = proto.prepare;
proto.prepare = function (this: unknown, text: string) {
  const st = prepare.call(this, text) as Record<string, (...a: unknown[]) => unknown>;
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const f = st[m];
    if (typeof f === 'function')
      st[m] = function (this: unknown, ...a: unknown[]) {
        count(text);
        return f.apply(this, a);
      };
  }
  return st;
};

const schema = url.startsWith('postgres') ? `count_${randomBytes(3).toString('hex')}` : undefined;
const store = await openStore(url, { schema, dropSchemaOnClose: true });
const config = loadConfig({ DATABASE_URL: url, CALENDAR_ADMIN_USER: 'admin', CALENDAR_ADMIN_PASSWORD: 'bench-password', LOG_LEVEL: 'silent', WARM_UP: 'false' });
const { app } = await buildApp(config, { store, logger: false });
if (stacks) {
  // Where the change feed is asked to be current from (each may cost a look on PostgreSQL).
  const feed = store.feed;
  const sync = feed.sync.bind(feed);
  feed.sync = () => {
    count(`feed.sync()`);
    return sync();
  };
}
const auth = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;
const post = async (path: string, body: unknown) => {
  const res = await app.inject({
    method: 'POST',
    url: `${config.restRoot}/calendar/events/v1${path}`,
    headers: { authorization: auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return JSON.parse(res.body) as { id: number };
};
const venue = await post('/venues', { venue: 'Hall', city: 'Paris' });
const organizer = await post('/organizers', { organizer: 'Org' });
const category = await post('/categories', { name: 'Jazz' });
const tag = await post('/tags', { name: 'Live' });
const create = (i: number) =>
  post('/events', {
    title: `Concert ${i}`,
    description: 'An evening of <strong>live jazz</strong>.',
    start_date: `2027-03-${String(1 + (i % 28)).padStart(2, '0')} 20:00:00`,
    end_date: `2027-03-${String(1 + (i % 28)).padStart(2, '0')} 22:30:00`,
    cost: '15',
    venue: venue.id,
    organizer: [organizer.id],
    categories: [category.id],
    tags: [tag.id],
  });
for (let i = 0; i < 10; i++) await create(i);
counting = true;
for (let i = 0; i < n; i++) await create(100 + i);
counting = false;
let total = 0;
for (const v of counts.values()) total += v;
console.log(`${(total / n).toFixed(1)} statements per create (${url.split(':')[0]})`);
for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${(v / n).toFixed(2).padStart(6)}  ${k}`);
await app.close();
