/**
 * The calendar's own settings changed in the app, in `calendar_settings` (migration 031; before it,
 * `settings` rows named `calendar:VARIABLE`), each calendar's apart (domain/calendar-settings.ts
 * checks and applies them).
 *
 * @example
 *   await writeCalendarSettings(trx, { SITE_NAME: 'Town', CALENDAR_TIMEZONE: null }); // { SITE_NAME: 'Town' }
 */
import { acrossCalendars } from './calendar-scope.js';
import { noteChange } from './change-notes.js';
import type { Executor } from './schema.js';

/** The calendar settings kept in the database: environment variable name → value as text. */
export async function readCalendarSettings(db: Executor): Promise<Record<string, string>> {
  const rows = await db.selectFrom('calendar_settings').select(['name', 'value']).execute();
  const out: Record<string, string> = {};
  for (const row of rows) out[row.name] = row.value;
  return out;
}

/** One setting's stored value in every calendar that has one: calendar id → value as text. */
export async function storedEverywhere(db: Executor, name: string): Promise<Map<number, string>> {
  const rows = await acrossCalendars(() => db.selectFrom('calendar_settings').select(['calendar_id', 'value']).where('name', '=', name).execute());
  return new Map(rows.map((r) => [Number(r.calendar_id), r.value]));
}

/**
 * Store calendar settings (a value: set it; null: back to its default) and log one `settings`
 * change carrying every stored value, so that each instance's change feed hands the new values to
 * its running server with the next look at the log. Call it in a `writeTransaction`. Returns the
 * values now stored.
 */
export async function writeCalendarSettings(db: Executor, changes: Record<string, string | null>): Promise<Record<string, string>> {
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) await db.deleteFrom('calendar_settings').where('name', '=', name).execute();
    else
      await db
        .insertInto('calendar_settings')
        .values({ name, value })
        .onConflict((oc) => oc.columns(['calendar_id', 'name']).doUpdateSet({ value }))
        .execute();
  }
  const stored = await readCalendarSettings(db);
  await noteChange(db, 'settings', 0, 'update', { settings: stored });
  return stored;
}
