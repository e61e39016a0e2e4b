/**
 * `events-calendar import tec|ics|json` and `events-calendar export`: the commands'
 * wiring, progress bars and summaries; the work is in `src/import/`.
 *
 * @example
 *   events-calendar import tec --from https://example.org/wp-json --user admin --app-password 'abcd efgh …'
 *   events-calendar import ics calendar.ics
 *   events-calendar export --format json --out calendar.json && events-calendar import json calendar.json
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { loadConfig, type Config } from '../config.js';
import { createServices, type DomainServices } from '../domain/services.js';
import { isRole, viewerOf, type Viewer } from '../domain/permissions.js';
import { openStore } from '../store/db.js';
import * as usersStore from '../store/users.js';
import { ImportError } from '../import/source.js';
import type { ImportHooks, ImportReport, Progress } from '../import/report.js';
import { importTec, mappingOf } from '../import/tec.js';
import { importIcs } from '../import/ics.js';
import { exportCalendar, restoreCalendar, type FollowsRestored } from '../import/backup-json.js';
import { exportIcs } from '../import/ics-export.js';

type WithSettings = (cmd: Command, keys?: Array<keyof Config>) => Command;
type OverridesOf = (opts: Record<string, unknown>) => Partial<Record<keyof Config, string>>;

/** Open the store and services named by the settings; close them afterwards. */
async function withServices<T>(opts: Record<string, unknown>, overridesOf: OverridesOf, fn: (services: DomainServices, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, overridesOf(opts));
  const store = await openStore(config.databaseUrl);
  try {
    return await fn(createServices(config, store), config);
  } finally {
    await store.close();
  }
}

/** The administrator the import writes as: CALENDAR_ADMIN_USER (made sure of), else the first administrator. */
async function administrator(services: DomainServices, config: Config): Promise<Viewer> {
  if (config.adminUser && config.adminPassword) await services.users.ensureAdmin(config.adminUser, config.adminPassword);
  const users = await usersStore.listUsers(services.store.db);
  const admin = config.adminUser ? users.find((u) => u.login === config.adminUser) : users.find((u) => u.role === 'administrator');
  if (!admin || admin.role !== 'administrator')
    throw new ImportError('no administrator to import as: create one (events-calendar users add LOGIN --role administrator) or set CALENDAR_ADMIN_USER and CALENDAR_ADMIN_PASSWORD');
  return viewerOf({ id: Number(admin.id), login: admin.login, role: admin.role });
}

/** Progress bars per phase on a terminal (stderr), one line per phase otherwise. */
function progressHooks(enabled: boolean): ImportHooks & { stop(): void } {
  const interactive = enabled && process.stderr.isTTY;
  const bar = new cliProgress.SingleBar({ format: '{phase} [{bar}] {value}/{total} | {duration_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic);
  let phase: string | undefined;
  return {
    onProgress(p: Progress) {
      if (p.phase !== phase) {
        if (phase !== undefined && interactive) bar.stop();
        phase = p.phase;
        if (interactive) bar.start(p.total, p.done, { phase: p.phase.padEnd(16) });
        else if (enabled) process.stderr.write(`${p.phase}: ${p.total}\n`);
      } else if (interactive) {
        bar.setTotal(p.total);
        bar.update(p.done);
      }
    },
    onWarning(message: string) {
      if (interactive && phase !== undefined) {
        bar.stop();
        phase = undefined;
      }
      process.stderr.write(`warning: ${message}\n`);
    },
    stop() {
      if (interactive && phase !== undefined) bar.stop();
    },
  };
}

function printSummary(report: ImportReport, dryRun: boolean): void {
  console.log(dryRun ? 'dry run: nothing was written; an import would do this:' : 'summary:');
  for (const line of report.lines()) console.log(`  ${line}`);
  if (report.failed) process.exitCode = 1;
}

/** Report an operator-level failure in one line, exit 1. */
function failWith(err: unknown): void {
  if (!(err instanceof ImportError)) throw err;
  console.error(`error: ${err.message}`);
  process.exitCode = 1;
}

function positiveInt(name: string, value: string, min = 0): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ImportError(`${name} must be an integer >= ${min}, got "${value}"`);
  return n;
}

/** `30s`, `15m`, `1h` in milliseconds (at least one second). */
function intervalMs(value: string): number {
  const m = /^(\d+)\s*(s|m|h)$/i.exec(value.trim());
  const ms = m ? Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[m[2]!.toLowerCase() as 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(ms) || ms < 1000) throw new ImportError(`--every must be a duration like 30s, 15m or 1h, got "${value}"`);
  return ms;
}

/**
 * Run `fn` now and then every `ms` after each run ends, until SIGTERM or SIGINT: the run in
 * progress finishes, the wait is cut short, and the promise resolves (exit code 0).
 */
async function everyInterval(ms: number, fn: () => Promise<void>): Promise<void> {
  let stop = false;
  let wake: (() => void) | undefined;
  const onSignal = () => {
    stop = true;
    wake?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    while (!stop) {
      await fn();
      if (stop) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    console.log(`${new Date().toISOString()} stopped`);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/** What the import commands' registrations share. */
interface CommandContext {
  withSettings: WithSettings;
  overridesOf: OverridesOf;
  /** the settings an import reads */
  settings: Array<keyof Config>;
}

export function registerImportCommands(program: Command, withSettings: WithSettings, overridesOf: OverridesOf): void {
  const imports = program.command('import').description('bring a calendar in: from a The Events Calendar site (tec), an iCalendar file (ics), or an export of this service (json)');
  const settings: Array<keyof Config> = ['databaseUrl', 'timezone', 'adminUser', 'adminPassword', 'importMaxBytes'];
  const ctx: CommandContext = { withSettings, overridesOf, settings };
  registerTecImport(imports, ctx);
  registerIcsImport(imports, ctx);
  registerRestoreAndExport(program, imports, ctx);
}

/** `import tec`: a whole calendar through The Events Calendar's REST API. */
function registerTecImport(imports: Command, ctx: CommandContext): void {
  const { withSettings, overridesOf, settings } = ctx;
  withSettings(
    imports
      .command('tec')
      .description("import a whole calendar through The Events Calendar's REST API (another instance of this service works too); run it again to sync")
      .requiredOption('--from <url>', "the site's REST root, e.g. https://example.org/wp-json")
      .option('--namespace <ns>', "the calendar's namespace at the source (this service: calendar/events/v1)", 'tribe/events/v1')
      .option('--user <login>', 'a source user who may read unpublished events (with --app-password)')
      .option('--app-password <password>', 'an application password of --user (WordPress: Users → Profile; needs HTTPS there)')
      .option('--author <login>', 'make this local user the author of everything imported, instead of creating users for the authors')
      .option('--author-role <role>', 'role of the users created for authors (they get no password)', 'subscriber')
      .option('--dry-run', 'read everything and report what would be created, updated or skipped; write nothing')
      .option('--mapping <file>', 'write the import map (kind → source id → local id) to FILE as JSON')
      .option('--concurrency <n>', 'pages read at once', '4')
      .option('--retries <n>', 'retries of a request answered 429 or 5xx, or failing, with exponential backoff', '5')
      .option('--retry-delay <ms>', 'first backoff in milliseconds (doubles each retry; Retry-After wins)', '1000')
      .option('--allow-private', 'read from a loopback, private, link-local or reserved address too (refused by default)')
      .option('--no-progress', 'no progress bars (one line per phase on stderr instead)')
      .addHelpText(
        'after',
        `
Ids and slugs are kept when free here, mapped otherwise (printed). A second run updates what changed
and adds what is new; an interrupted run resumes where it stopped (records already imported unchanged
are skipped). Without --user only public records are imported. A source on a loopback, private,
link-local or reserved address (IPv4 inside IPv6 included), directly, through its name or through a
redirect, is refused unless --allow-private is given.

Examples:
  events-calendar import tec --from https://example.org/wp-json --user admin --app-password 'abcd efgh ijkl mnop qrst uvwx'
  events-calendar import tec --from http://old-host:8080/api --namespace calendar/events/v1 --author admin --dry-run`,
      ),
    settings,
  ).action(async (opts) => {
    try {
      if ((opts.user === undefined) !== (opts.appPassword === undefined)) throw new ImportError('--user and --app-password go together');
      if (!isRole(opts.authorRole)) throw new ImportError(`--author-role: unknown role "${opts.authorRole}"`);
      await withServices(opts, overridesOf, async (services, config) => {
        const admin = await administrator(services, config);
        const hooks = progressHooks(opts.progress !== false);
        let report: ImportReport;
        try {
          report = await importTec(
            services,
            admin,
            {
              from: opts.from,
              namespace: String(opts.namespace).replace(/^\/+|\/+$/g, ''),
              user: opts.user,
              password: opts.appPassword,
              author: opts.author,
              authorRole: opts.authorRole,
              dryRun: Boolean(opts.dryRun),
              concurrency: positiveInt('--concurrency', opts.concurrency, 1),
              retries: positiveInt('--retries', opts.retries),
              retryDelayMs: positiveInt('--retry-delay', opts.retryDelay),
              allowPrivate: Boolean(opts.allowPrivate),
            },
            hooks,
          );
        } finally {
          hooks.stop();
        }
        printSummary(report, Boolean(opts.dryRun));
        if (opts.mapping) {
          writeFileSync(opts.mapping, JSON.stringify(await mappingOf(services, report.source), null, 2) + '\n');
          console.log(`import map written to ${opts.mapping}`);
        }
      });
    } catch (err) {
      failWith(err);
    }
  });
}

/** `import ics`: an iCalendar file or URL, once or every INTERVAL. */
function registerIcsImport(imports: Command, ctx: CommandContext): void {
  const { withSettings, overridesOf, settings } = ctx;
  withSettings(
    imports
      .command('ics <file-or-url>')
      .description('import events from an iCalendar file or URL (Google Calendar, Outlook, Apple, other calendars’ feeds); run it again to update (by UID)')
      .option('--status <status>', 'status of the events created', 'publish')
      .option('--dry-run', 'parse and report what would be created, updated or skipped; write nothing')
      .option('--retries <n>', 'retries of a URL answered 429 or 5xx', '5')
      .option('--retry-delay <ms>', 'first backoff in milliseconds', '1000')
      .option('--strict', 'all or nothing: stop before writing anything if an event would be skipped, two share a UID, or a time zone is not known')
      .option('--every <interval>', 'keep running and import again every INTERVAL (30s, 15m, 1h); a URL is fetched conditionally (ETag, Last-Modified)')
      .option('--allow-private', 'read a URL on a loopback, private, link-local or reserved address too (refused by default)')
      .option('--create-venues', 'make a venue of every LOCATION that matches none here (by default such a location is listed for review and no venue is made)')
      .option('--no-progress', 'no progress bar')
      .addHelpText(
        'after',
        `
A LOCATION is matched to a venue here by its name or address (case, accents and punctuation aside);
one that matches none is listed as a "new venue for review" and makes no venue unless
--create-venues is given (the admin app creates reviewed ones in one click).

A VEVENT that cannot be imported (no DTSTART, a date that is not one, a line that does not parse, a
second VEVENT with the same UID) is skipped and named (summary, UID, line) with the reason; the rest
is imported. A TZID without VTIMEZONE is resolved by name (IANA, or Windows through CLDR); one known
nowhere is a warning and the event's times are taken in the site zone. Events without UID get one
derived from their content. Unchanged events (DTSTAMP, SEQUENCE and other volatile properties
aside) are counted "unchanged" and not written.

With --every the command runs until SIGTERM or SIGINT (the run in progress finishes first) and logs
each run's summary; an unchanged feed costs one request answered 304.

Examples:
  events-calendar import ics calendar.ics --strict
  events-calendar import ics https://calendar.example.org/feed.ics --every 15m --no-progress`,
      ),
    settings,
  ).action(async (fileOrUrl: string, opts) => {
    try {
      const everyMs = opts.every === undefined ? undefined : intervalMs(String(opts.every));
      await withServices(opts, overridesOf, async (services, config) => {
        const admin = await administrator(services, config);
        const runOnce = async (): Promise<ImportReport> => {
          const hooks = progressHooks(opts.progress !== false && everyMs === undefined);
          try {
            return await importIcs(
              services,
              admin,
              {
                input: fileOrUrl,
                status: opts.status,
                dryRun: Boolean(opts.dryRun),
                retries: positiveInt('--retries', opts.retries),
                retryDelayMs: positiveInt('--retry-delay', opts.retryDelay),
                strict: Boolean(opts.strict),
                conditional: everyMs !== undefined,
                allowPrivate: Boolean(opts.allowPrivate),
                createVenues: Boolean(opts.createVenues),
              },
              hooks,
            );
          } finally {
            hooks.stop();
          }
        };
        if (everyMs === undefined) {
          printSummary(await runOnce(), Boolean(opts.dryRun));
          return;
        }
        await everyInterval(everyMs, async () => {
          console.log(`${new Date().toISOString()} import ics ${fileOrUrl}`);
          try {
            const report = await runOnce();
            for (const line of report.lines()) console.log(`  ${line}`);
          } catch (err) {
            // A failed run (the feed unreachable, not iCalendar) is logged; the next one tries again.
            if (!(err instanceof ImportError)) throw err;
            console.error(`error: ${err.message}`);
          }
        });
      });
    } catch (err) {
      failWith(err);
    }
  });
}

/** `import json` (a restore into an empty database) and `export`. */
function registerRestoreAndExport(program: Command, imports: Command, ctx: CommandContext): void {
  const { withSettings, overridesOf } = ctx;
  withSettings(imports.command('json <file>').description('restore a calendar exported with `events-calendar export --format json` into an empty database, exactly (same ids)'), [
    'databaseUrl',
  ]).action(async (file: string, opts) => {
    try {
      await withServices(opts, overridesOf, async (services) => {
        const follows: FollowsRestored = { followed: [], skipped: [] };
        const counts = await restoreCalendar(services, file, follows);
        console.log(
          `restored ${Object.entries(counts)
            .map(([k, n]) => `${n} ${k}`)
            .join(', ')}`,
        );
        // The export's follows: re-created (their copies made again), or skipped and why.
        for (const slug of follows.followed) console.log(`  follows ${slug} again`);
        for (const s of follows.skipped) console.log(`  skipped follow of ${s.calendar}: ${s.reason}`);
      });
    } catch (err) {
      failWith(err);
    }
  });

  withSettings(
    program
      .command('export')
      .description('write the whole calendar (every record and status, users without secrets) as JSON, or its events as iCalendar')
      .option('--format <format>', 'json (restorable with `import json`) or ics', 'json')
      .option('--out <file>', 'write to FILE instead of standard output'),
    ['databaseUrl', 'siteUrl', 'restRoot', 'timezone'],
  ).action(async (opts) => {
    try {
      if (opts.format !== 'json' && opts.format !== 'ics') throw new ImportError(`--format must be json or ics, got "${opts.format}"`);
      await withServices(opts, overridesOf, async (services) => {
        const text = opts.format === 'json' ? JSON.stringify(await exportCalendar(services)) + '\n' : await exportIcs(services);
        if (opts.out) {
          writeFileSync(opts.out, text);
          console.log(`exported to ${opts.out}`);
        } else process.stdout.write(text);
      });
    } catch (err) {
      failWith(err);
    }
  });
}
