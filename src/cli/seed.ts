/**
 * `events-calendar seed --events N`: bulk-load a realistic dataset (events with venues,
 * organizers, categories, tags and images; dates spread over two years around today) into
 * DATABASE_URL, with a progress bar. Used by the benchmark (`npm run bench`).
 *
 * @example
 *   events-calendar seed --events 100000 --database-url sqlite:./data/bench.db
 *   CALENDAR_ADMIN_USER=admin CALENDAR_ADMIN_PASSWORD=pw events-calendar seed --events 1000 --author admin
 *   events-calendar seed --events 100000 --series 10000   # plus weekly and monthly recurring events
 *   events-calendar seed --events 100000 --series 10000 --series-kind weekly   # the recurring-events load target: about 2.6 million occurrences
 *   events-calendar seed --events 100 --calendar north   # into another calendar (created first: `calendars create north`)
 */
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { loadConfig, type Config } from '../config.js';
import { createUserService, UserError } from '../domain/users.js';
import { seedCalendar, seedPlan, type SeedProgress } from '../seed/calendar.js';
import { openStore, type Store } from '../store/db.js';
import { findCalendarBySlug } from '../store/calendars.js';
import { DEFAULT_CALENDAR_ID, inCalendar } from '../store/calendar-scope.js';
import { SERIES_KINDS, seedSeries, type SeriesKind } from '../seed/series.js';

const PHASE_LABEL: Record<SeedProgress['phase'], string> = {
  images: 'images    ',
  terms: 'terms     ',
  venues: 'venues    ',
  organizers: 'organizers',
  events: 'events    ',
  counts: 'counts    ',
};

export function registerSeedCommand(
  program: Command,
  withSettings: (cmd: Command, keys?: Array<keyof Config>) => Command,
  overridesOf: (opts: Record<string, unknown>) => Partial<Record<keyof Config, string>>,
): void {
  withSettings(
    program
      .command('seed')
      .description('bulk-load a synthetic calendar (venues, organizers, categories, tags, images) for benchmarks and demos')
      .requiredOption('--events <n>', 'number of events to add')
      .option('--series <n>', 'recurring events (series) to add after them, bulk-loaded with their occurrences (issue 15)', '0')
      .option('--series-kind <kind>', 'mixed: half weekly (no end, up to RECURRENCE_HORIZON_MONTHS ahead), half monthly (24 times); weekly or monthly: only that kind', 'mixed')
      .option('--seed <n>', 'random seed (same seed, same data)', '1')
      .option('--author <login>', 'author of the records (default: CALENDAR_ADMIN_USER, else the first administrator)')
      .option('--batch <n>', 'events per transaction', '5000')
      .option('--calendar <slug>', 'the calendar to load into (default: the default calendar)')
      .option('--no-progress', 'no progress bar (one line per phase instead)'),
    ['databaseUrl', 'timezone', 'adminUser', 'adminPassword', 'recurrenceHorizonMonths'],
  ).action(async (opts) => {
    const events = Number(opts.events);
    // UserError: a line saying what is wrong and exit code 2 (program.ts), not a stack trace.
    if (!Number.isInteger(events) || events < 0) throw new UserError(`--events must be a non-negative integer, got "${opts.events}"`);
    const series = Number(opts.series);
    if (!Number.isInteger(series) || series < 0) throw new UserError(`--series must be a non-negative integer, got "${opts.series}"`);
    const seriesKind = String(opts.seriesKind) as SeriesKind;
    if (!SERIES_KINDS.includes(seriesKind)) throw new UserError(`--series-kind must be one of ${SERIES_KINDS.join(', ')}, got "${opts.seriesKind}"`);
    const config = loadConfig(process.env, overridesOf(opts));
    const store = await openStore(config.databaseUrl);
    try {
      let calendar = DEFAULT_CALENDAR_ID;
      if (opts.calendar !== undefined) {
        const row = await findCalendarBySlug(store.db, String(opts.calendar));
        if (!row) throw new UserError(`no calendar with slug "${opts.calendar}" (create it with \`events-calendar calendars create ${opts.calendar}\`)`);
        calendar = Number(row.id);
      }
      await inCalendar(calendar, () => seedInto(store, config, opts, events, series, seriesKind));
    } finally {
      await store.close();
    }
  });
}

/** The seed's work, in the calendar of the load. */
async function seedInto(store: Store, config: Config, opts: Record<string, unknown>, events: number, series: number, seriesKind: SeriesKind): Promise<void> {
  const users = createUserService(store);
  if (config.adminUser && config.adminPassword) await users.ensureAdmin(config.adminUser, config.adminPassword);
  const login = (opts.author as string | undefined) ?? config.adminUser;
  const all = await users.list();
  const author = login !== undefined ? all.find((u) => u.login === login) : all.find((u) => u.role === 'administrator');
  if (login !== undefined && !author) throw new UserError(`no user with login "${login}"`);
  if (!author) console.error('warning: no administrator exists; records get author 0 (create one with `events-calendar users add`)');

  const plan = seedPlan(events);
  console.log(`seeding ${store.describe}: ${plan.events} events, ${plan.venues} venues, ${plan.organizers} organizers, ${plan.tags} tags, ${plan.images} images`);
  const interactive = opts.progress !== false && process.stderr.isTTY;
  const bar = new cliProgress.SingleBar(
    { format: '{phase} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} (eta {eta_formatted})', hideCursor: true, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  let phase: SeedProgress['phase'] | undefined;
  const result = await seedCalendar(store, {
    events,
    authorId: author ? Number(author.id) : 0,
    timezone: config.timezone,
    seed: Number(opts.seed),
    batchSize: Number(opts.batch),
    onProgress: (p) => {
      if (p.phase !== phase) {
        if (phase !== undefined && interactive) bar.stop();
        phase = p.phase;
        if (interactive) bar.start(p.total, p.done, { phase: PHASE_LABEL[p.phase] });
        else console.log(`${PHASE_LABEL[p.phase]} ${p.total}`);
      } else if (interactive) bar.update(p.done);
    },
  });
  if (interactive && phase !== undefined) bar.stop();
  console.log(
    `done in ${(result.milliseconds / 1000).toFixed(1)} s: ${result.events} events, ${result.venues} venues, ${result.organizers} organizers, ` +
      `${result.categories} categories, ${result.tags} tags, ${result.images} images, ${result.eventOrganizers} organizer links, ${result.eventTerms} term links`,
  );
  if (series > 0) {
    // Bulk-loaded, with the rows the event service writes for the same series (src/seed/series.ts).
    if (interactive) bar.start(series, 0, { phase: 'series    ' });
    else console.log(`series     ${series} (${seriesKind})`);
    let reported = 0;
    const made = await seedSeries(store, {
      series,
      kind: seriesKind,
      authorId: author ? Number(author.id) : 0,
      timezone: config.timezone,
      horizonMonths: config.recurrenceHorizonMonths,
      seed: Number(opts.seed),
      onProgress: (done, total) => {
        if (interactive) bar.update(done);
        else if (Math.floor((done * 10) / total) > Math.floor((reported * 10) / total)) console.log(`series     ${done}/${total}`);
        reported = done;
      },
    });
    if (interactive) bar.stop();
    console.log(`series done in ${(made.milliseconds / 1000).toFixed(1)} s: ${made.series} series, ${made.occurrences} occurrences`);
  }
}
