/**
 * The calendar's own settings changed in the app (`scope: 'calendar'` in config.ts `SETTINGS`: the
 * site's name, its time zone, the submission options): kept in the database's settings table,
 * checked by their declaration, and put into the running configuration of every instance. A change
 * is logged as one `settings` row of the change log carrying every stored value; each instance's
 * change feed hands it over with its next look at the log (every request that reads the calendar
 * or authenticates looks), so the new values are in force everywhere at once, without a restart.
 *
 * A setting given in the environment or by a flag is pinned there: the stored value is ignored and
 * the API refuses to change it (the admin screen shows it read-only).
 *
 * @example
 *   await followCalendarSettings(services);                      // at start: stored values in force
 *   await changeCalendarSettings(services, { SITE_NAME: 'Town' }); // every instance: 'Town'
 */
import { CALENDAR_SETTINGS, ConfigError, applyCalendarSettings, parseSetting } from '../config.js';
import { writeTransaction } from '../store/changes.js';
import { readCalendarSettings, writeCalendarSettings } from '../store/calendar-settings.js';
import { invalidParams } from './errors.js';
import { applyOwnSettings, asDefaultCalendar, runtimeNow } from './calendars.js';
import type { DomainContext } from './context.js';
import { DEFAULT_CALENDAR_ID } from '../store/calendar-scope.js';

/** Put the stored calendar settings in force now and follow their changes through the change feed. */
export async function followCalendarSettings(services: Pick<DomainContext, 'config' | 'store'>): Promise<void> {
  const { config, store } = services;
  applyCalendarSettings(config, await readCalendarSettings(store.db));
  const reload = () =>
    void readCalendarSettings(store.db).then(
      (stored) => applyCalendarSettings(config, stored),
      () => undefined,
    );
  // The default calendar's settings (another calendar's are its own configuration's, domain/calendars.ts),
  // into the default calendar's configuration, even when the request that looked at the log is
  // another calendar's (whose configuration `config` would otherwise answer with).
  store.feed.subscribe(
    (batch) =>
      asDefaultCalendar(() => {
        // In force for the request that looked at the log; then read again, since two changes
        // committed at once on PostgreSQL may each carry a set without the other's value.
        if (batch.settings) {
          applyCalendarSettings(config, batch.settings);
          reload();
        }
        // A reset the feed could not follow row by row (too many changes at once) may hide one.
        else if (batch.reset) reload();
      }),
    { calendar: DEFAULT_CALENDAR_ID },
  );
}

/** Put the stored calendar settings in force once (CLI commands). */
export async function loadCalendarSettings(services: Pick<DomainContext, 'config' | 'store'>): Promise<void> {
  applyCalendarSettings(services.config, await readCalendarSettings(services.store.db));
}

/**
 * Change calendar settings: `values` maps environment variable names to a value (a string, number
 * or boolean, read as its declaration says) or null (back to the default). Every value is checked
 * before anything is written; failures answer 400 `rest_invalid_param` with a message per setting.
 */
export async function changeCalendarSettings(services: Pick<DomainContext, 'config' | 'store' | 'quotas'>, values: Record<string, unknown>): Promise<void> {
  const failures: Record<string, string> = {};
  const changes: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(values)) {
    const s = CALENDAR_SETTINGS.find((c) => c.env === name);
    if (!s) {
      failures[name] = `${name} is not a setting that can be changed in the app.`;
      continue;
    }
    const source = services.config.sources?.[s.key];
    if (source === 'environment' || source === 'flag') {
      failures[name] = `${name} is set in the ${source === 'flag' ? 'command line' : 'environment'}; change it there.`;
      continue;
    }
    if (value === null) {
      changes[name] = null;
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      failures[name] = `${name} must be a string, a number or a boolean.`;
      continue;
    }
    try {
      const parsed = parseSetting(s, String(value));
      // The calendar's history is bounded by its quota (domain/quotas.ts), which network administrators set.
      if (s.key === 'syncHistoryDays') {
        const limit = await services.quotas.limit('sync_history_days');
        if (limit > 0 && (parsed as number) > limit) {
          failures[name] = `${name} is at most ${limit} days in this calendar (its sync_history_days quota).`;
          continue;
        }
      }
      changes[name] = String(value).trim();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      failures[name] = `${e.message}.`;
    }
  }
  if (Object.keys(failures).length > 0) throw invalidParams(failures);
  if (Object.keys(changes).length === 0) return;
  const stored = await writeTransaction(services.store.db, (trx) => writeCalendarSettings(trx, changes));
  // In another calendar than the default one, its configuration keeps its own name.
  applyOwnSettings(services.config, stored, runtimeNow()?.calendar.name);
}
