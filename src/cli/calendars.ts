/**
 * `events-calendar calendars …`: the network's administration from the command line: list, create,
 * rename, suspend, resume, delete and export calendars, and give people roles in them
 * (docs/calendars.md). Every command works on the database named by DATABASE_URL; a running
 * server sees a change within a few seconds (it reads a calendar again every RUNTIME_TTL_MS).
 *
 * @example
 *   events-calendar calendars create north --name "North side"
 *   events-calendar calendars set-role north ann --role editor
 *   events-calendar calendars export north --format ics --output north.ics
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { withCore, type Core } from '../core.js';
import { ApiError } from '../domain/errors.js';
import { exportCalendar } from '../import/backup-json.js';
import { exportIcs } from '../import/ics-export.js';

type Overrides = Partial<Record<keyof Config, string>>;

/** An error of the domain (a slug taken, an unknown calendar): its message, exit code 2. */
function refused(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const details = err.data.params ? ` (${Object.values(err.data.params as Record<string, string>).join(' ')})` : '';
  console.error(`error: ${err.message}${details}`);
  process.exitCode = 2;
  return true;
}

export function registerCalendarsCommand(program: Command, withSettings: (cmd: Command, keys?: Array<keyof Config>) => Command, overridesOf: (opts: Record<string, unknown>) => Overrides): void {
  const run = async (opts: Record<string, unknown>, fn: (core: Core) => Promise<void>) => {
    try {
      await withCore(loadConfig(process.env, overridesOf(opts)), fn);
    } catch (err) {
      if (!refused(err)) throw err;
    }
  };
  const calendars = program.command('calendars').description('manage the calendars of the service and people’s roles in them (see docs/calendars.md)');

  withSettings(calendars.command('list').description('list calendars: id, slug, status, URL, name').option('--search <text>', 'only calendars whose slug or name has this text'), [
    'databaseUrl',
    'siteUrl',
  ]).action(async (opts) => {
    await run(opts, async ({ services }) => {
      let page = 1;
      for (;;) {
        const { calendars: rows, total } = await services.calendars.list({ page, perPage: 200, ...(opts.search ? { search: String(opts.search) } : {}) });
        if (page === 1 && total === 0) console.log('no calendars match');
        for (const c of rows) console.log(`${String(c.id).padStart(5)}  ${c.slug.padEnd(24)} ${c.status.padEnd(10)} ${c.url}  ${c.name}`);
        if (page * 200 >= total) break;
        page++;
      }
    });
  });

  withSettings(
    calendars
      .command('create <slug>')
      .description('create a calendar; it answers under /c/SLUG/ (and on --host when given)')
      .requiredOption('--name <name>', 'its name (the site name its pages and feeds show)')
      .option('--host <host>', 'a host name of its own (a custom domain pointed at this service)'),
    ['databaseUrl', 'siteUrl'],
  ).action(async (slug: string, opts) => {
    await run(opts, async ({ services }) => {
      const c = await services.calendars.create({ slug, name: String(opts.name), host: opts.host ? String(opts.host) : null });
      console.log(`created calendar ${c.slug} (id ${c.id}) at ${c.url}`);
    });
  });

  withSettings(
    calendars
      .command('rename <slug>')
      .description('change a calendar’s name, slug or host name')
      .option('--name <name>', 'its new name')
      .option('--slug <slug>', 'its new slug (its URLs change)')
      .option('--host <host>', 'its own host name ("" : none)'),
    ['databaseUrl', 'siteUrl'],
  ).action(async (slug: string, opts) => {
    await run(opts, async ({ services }) => {
      if (opts.name === undefined && opts.slug === undefined && opts.host === undefined) {
        console.error('error: give --name, --slug or --host');
        process.exitCode = 2;
        return;
      }
      const c = await services.calendars.update(slug, {
        ...(opts.name !== undefined ? { name: String(opts.name) } : {}),
        ...(opts.slug !== undefined ? { slug: String(opts.slug) } : {}),
        ...(opts.host !== undefined ? { host: String(opts.host) || null } : {}),
      });
      console.log(`calendar ${c.id} is now ${c.slug} (“${c.name}”) at ${c.url}`);
    });
  });

  for (const [verb, status, told] of [
    ['suspend', 'suspended', 'every path of it answers 503 until it is resumed'],
    ['resume', 'active', 'it answers again'],
  ] as const) {
    withSettings(calendars.command(`${verb} <slug>`).description(`${verb} a calendar: ${told}`), ['databaseUrl', 'siteUrl']).action(async (slug: string, opts) => {
      await run(opts, async ({ services }) => {
        const c = await services.calendars.update(slug, { status });
        console.log(`calendar ${c.slug} is ${c.status}`);
      });
    });
  }

  withSettings(calendars.command('delete <slug>').description('delete a calendar and every record of it, for good (export it first)').option('--yes', 'confirm: nothing of it can be brought back'), [
    'databaseUrl',
    'siteUrl',
  ]).action(async (slug: string, opts) => {
    if (!opts.yes) {
      console.error(`error: deleting ${slug} removes every event, venue, organizer, term and image of it; run again with --yes`);
      process.exitCode = 2;
      return;
    }
    await run(opts, async ({ services }) => {
      const { id } = await services.calendars.get(slug);
      await services.calendars.remove(id);
      // Its followers stop following it (their copies trashed), as when it is deleted over REST.
      await services.network.sourceRemoved(id);
      console.log(`deleted calendar ${slug}`);
    });
  });

  withSettings(
    calendars
      .command('export <slug>')
      .description('export a calendar: JSON (for `import json`) or iCalendar')
      .option('--format <format>', 'json or ics', 'json')
      .option('--output <file>', 'write to FILE instead of standard output'),
    ['databaseUrl', 'siteUrl'],
  ).action(async (slug: string, opts) => {
    if (opts.format !== 'json' && opts.format !== 'ics') {
      console.error('error: --format is json or ics');
      process.exitCode = 2;
      return;
    }
    await run(opts, async (core) => {
      const c = await core.services.calendars.get(slug);
      const text = await core.services.calendars.within(c.id, async () => (opts.format === 'ics' ? exportIcs(core.services) : JSON.stringify(await exportCalendar(core.services), null, 1)));
      if (opts.output) {
        try {
          writeFileSync(String(opts.output), text);
        } catch (err) {
          console.error(`error: cannot write ${String(opts.output)}: ${(err as Error).message}`);
          process.exitCode = 1;
          return;
        }
        console.error(`wrote ${c.slug} to ${String(opts.output)}`);
      } else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
  });

  withSettings(calendars.command('members <slug>').description('list the people with a role in a calendar'), ['databaseUrl', 'siteUrl']).action(async (slug: string, opts) => {
    await run(opts, async ({ services }) => {
      const c = await services.calendars.get(slug);
      if (c.default) {
        console.log('the default calendar’s roles are the accounts’ own: see `users list`');
        return;
      }
      const members = await services.calendars.members(slug);
      if (members.length === 0) console.log('nobody has a role in it (network administrators administer every calendar)');
      for (const m of members) console.log(`${m.login.padEnd(24)} ${m.role}`);
    });
  });

  withSettings(
    calendars
      .command('set-role <slug> <login>')
      .description('give an account a role in a calendar (not the default one)')
      .requiredOption('--role <role>', 'administrator, editor, author, contributor, subscriber, or none'),
    ['databaseUrl', 'siteUrl'],
  ).action(async (slug: string, login: string, opts) => {
    await run(opts, async ({ services }) => {
      const role = opts.role === 'none' ? '' : String(opts.role);
      await services.calendars.setRole(login, slug, role);
      console.log(role ? `${login} is ${role} in ${slug}` : `${login} has no role in ${slug}`);
    });
  });
}
