/**
 * The calendar's own settings changed in the app, in the `settings` table (migration 012) as rows
 * named `calendar:VARIABLE` (domain/calendar-settings.ts checks and applies them).
 *
 * @example
 *   await writeCalendarSettings(trx, { SITE_NAME: 'Town', CALENDAR_TIMEZONE: null }); // { SITE_NAME: 'Town' }
 */
import { sql } from 'kysely';
import { noteChange } from './change-notes.js';
import type { Executor } from './schema.js';

/** The rows of the calendar's own settings (changed in the app) are named `calendar:VARIABLE`. */
const CALENDAR_PREFIX = 'calendar:';

/** The calendar settings kept in the database: environment variable name → value as text. */
export async function readCalendarSettings(db: Executor): Promise<Record<string, string>> {
  const r = await sql<{ name: string; value: string }>`select "name", "value" from "settings" where "name" like ${CALENDAR_PREFIX + '%'}`.execute(db);
  const out: Record<string, string> = {};
  for (const row of r.rows) out[row.name.slice(CALENDAR_PREFIX.length)] = row.value;
  return out;
}

/**
 * Store calendar settings (a value: set it; null: back to its default) and log one `settings`
 * change carrying every stored value, so that each instance's change feed hands the new values to
 * its running server with the next look at the log. Call it in a `writeTransaction`. Returns the
 * values now stored.
 */
export async function writeCalendarSettings(db: Executor, changes: Record<string, string | null>): Promise<Record<string, string>> {
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) await sql`delete from "settings" where "name" = ${CALENDAR_PREFIX + name}`.execute(db);
    else await sql`insert into "settings" ("name", "value") values (${CALENDAR_PREFIX + name}, ${value}) on conflict ("name") do update set "value" = excluded."value"`.execute(db);
  }
  const stored = await readCalendarSettings(db);
  await noteChange(db, 'settings', 0, 'update', { settings: stored });
  return stored;
}
