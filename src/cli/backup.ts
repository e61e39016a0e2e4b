/**
 * `events-calendar backup FILE`: a consistent copy of a SQLite database, taken with SQLite's online
 * backup API while servers keep serving and writing (a plain `cp` of a WAL database can miss
 * committed pages still in `-wal` or copy a half-written state). On PostgreSQL it says to use
 * `pg_dump`, which does the same there.
 *
 * @example
 *   events-calendar backup /backups/calendar-2027-05-01.db
 *   events-calendar backup /backups/latest.db --force --database-url sqlite:/srv/calendar.db
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { backupSqlite, openStore } from '../store/db.js';

/** Databases above this many pages (about 100 MB at 4 KiB) report their progress on stderr. */
const PROGRESS_FROM_PAGES = 25_000;

/** Print a one-line error and exit 1. */
function fail(message: string): void {
  console.error(`error: ${message}`);
  process.exitCode = 1;
}

export function registerBackupCommand(
  program: Command,
  withSettings: (cmd: Command, keys?: Array<keyof Config>) => Command,
  overridesOf: (opts: Record<string, unknown>) => Partial<Record<keyof Config, string>>,
): void {
  withSettings(
    program.command('backup <file>').description('copy a SQLite database to FILE, consistently, while servers run (PostgreSQL: use pg_dump)').option('--force', 'overwrite FILE if it exists'),
    ['databaseUrl'],
  ).action(async (file: string, opts) => {
    const config = loadConfig(process.env, overridesOf(opts));
    const url = config.databaseUrl;
    if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
      return fail('backup copies SQLite databases; for PostgreSQL use pg_dump (e.g. pg_dump -Fc -f calendar.dump "$DATABASE_URL", restore with pg_restore)');
    }
    if (url.startsWith('sqlite:')) {
      const source = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
      if (source === ':memory:') return fail('sqlite::memory: is a fresh empty database each time; there is nothing to back up');
      if (!existsSync(source)) return fail(`no database at ${resolve(source)}`);
    }
    const target = resolve(file);
    if (existsSync(target) && !opts.force) return fail(`${target} exists; give --force to overwrite it`);
    // Copy next to the target, then rename: a failed backup never leaves a partial FILE behind.
    const partial = `${target}.partial-${process.pid}`;
    const store = await openStore(url, { skipMigrations: true });
    let lastShown = -1;
    try {
      const result = await backupSqlite(store, partial, (p) => {
        if (p.totalPages < PROGRESS_FROM_PAGES) return;
        const percent = Math.floor(((p.totalPages - p.remainingPages) / p.totalPages) * 100);
        if (percent >= lastShown + 10 || percent < lastShown) {
          lastShown = percent;
          process.stderr.write(`backup: ${percent}% (${p.totalPages - p.remainingPages} of ${p.totalPages} pages)\n`);
        }
      });
      if (lastShown >= 0) process.stderr.write(`backup: 100% (${result.totalPages} pages)\n`);
      // Journal files of an older database at FILE would be applied to the new one: remove them.
      for (const suffix of ['-wal', '-shm', '-journal']) rmSync(target + suffix, { force: true });
      renameSync(partial, target);
      console.log(`backed up ${store.describe} to ${target} (${result.totalPages} pages)`);
    } catch (err) {
      rmSync(partial, { force: true });
      throw err;
    } finally {
      await store.close();
    }
  });
}
