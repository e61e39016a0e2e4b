/**
 * `npm run bench:migrate -- FILE.db`: how long the migrations pending on a SQLite database an
 * earlier version left take (a copy of it is migrated; the file itself is left as it is). Made for
 * the many-calendars migration (031) on a database of 1,000,000 events, seeded by an earlier
 * version (`git worktree add /tmp/old <commit>` and its `seed --events 1000000`).
 *
 * @example npm run bench:migrate -- data/old-1m.db
 */
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { sql } from 'kysely';
import { migrate, openStore } from '../../src/store/db.js';
import { acrossCalendars } from '../../src/store/calendar-scope.js';

const file = process.argv[2];
if (!file || !existsSync(file)) {
  console.error('usage: npm run bench:migrate -- FILE.db   (a SQLite database an earlier version left)');
  process.exit(2);
}
const copy = `${file}.migrating`;
for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
copyFileSync(file, copy);
const store = await openStore(`sqlite:${copy}`, { skipMigrations: true });
try {
  const events = await acrossCalendars(async () => Number((await sql<{ n: number }>`select count(*) as "n" from "events"`.execute(store.db)).rows[0]!.n));
  const started = process.hrtime.bigint();
  const applied = await migrate(store);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`${events.toLocaleString('en')} events, ${(statSync(copy).size / 1e6).toFixed(0)} MB: migrated ${applied.join(', ') || 'nothing (already current)'} in ${seconds.toFixed(1)} s`);
} finally {
  await store.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
}
