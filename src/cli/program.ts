/**
 * The `events-calendar` command: serve, migrate, refresh, users, app-passwords, webhooks, calendars, media, seed, backup, import, export (loaded
 * by `main.ts` once the Node.js version is known to be supported).
 * Every command works on the database named by DATABASE_URL (or --database-url); changes to users
 * and application passwords take effect on a running server at once (it reads them per request).
 *
 * @example
 *   events-calendar serve --port 9000
 *   events-calendar users add ann --role editor --password 's3cret'
 *   events-calendar app-passwords add ann --name "mobile app"
 */
import { Command, Option } from 'commander';
import { ConfigError, SETTINGS, loadConfig, type Config } from '../config.js';
import { LastAdministrator, UserError, UserRefusal, type UserService } from '../domain/users.js';
import { passwordRefusal, policyOf } from '../domain/password-policy.js';
import { ApiError } from '../domain/errors.js';
import { openStore, migrate, StoreUrlError } from '../store/db.js';
import { headOf as lastSeq } from '../store/change-log.js';
import { noteChange } from '../store/change-notes.js';
import { registerSeedCommand } from './seed.js';
import { registerBackupCommand } from './backup.js';
import { registerImportCommands } from './import.js';
import { registerCalendarsCommand } from './calendars.js';
import { registerMediaCommand } from './media.js';
import { passwordFrom } from './password-input.js';
import { withCore } from '../core.js';
import type { WebhookService } from '../webhooks/service.js';
import { checkEvents, checkSecret, checkUrl, eventList } from '../webhooks/validate.js';

type Overrides = Partial<Record<keyof Config, string>>;

/** Flags of the settings table, added to a command. */
function withSettings(cmd: Command, keys?: Array<keyof Config>): Command {
  for (const s of SETTINGS) {
    if (keys && !keys.includes(s.key)) continue;
    cmd.addOption(new Option(`${s.flag} <value>`, `${s.description} [env ${s.env}, default ${s.defaultText}]`));
  }
  return cmd;
}

/** Commander option names (camelCase of the flag) → Config overrides. */
function overridesOf(opts: Record<string, unknown>): Overrides {
  const out: Overrides = {};
  for (const s of SETTINGS) {
    const name = s.flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (typeof opts[name] === 'string') out[s.key] = opts[name] as string;
  }
  return out;
}

async function withUsers<T>(opts: Record<string, unknown>, fn: (users: UserService) => Promise<T>): Promise<T> {
  return withCore(loadConfig(process.env, overridesOf(opts)), ({ services }) => fn(services.users));
}

/** The password policy (PASSWORD_MIN_LENGTH, PASSWORD_MIN_STRENGTH) on a password the CLI sets: exit 1 with the reason. */
function checkCliPassword(opts: Record<string, unknown>, password: string, words: string[]): void {
  // An empty one gets the user service's own refusal ("must not be empty").
  if (password === '') return;
  const refusal = passwordRefusal(password, policyOf(loadConfig(process.env, overridesOf(opts))), words);
  if (refusal) throw new UserError(`weak password: ${refusal.message}`);
}

const program = new Command();
program
  .name('events-calendar')
  .description('Headless events calendar speaking The Events Calendar REST API (namespace calendar/events/v1).')
  .showHelpAfterError()
  .addHelpText(
    'after',
    `
Settings (environment variable, or the flag on serve/migrate/users/app-passwords; [app]: administrators
may also change it in the admin app, where a value set here is shown read-only):
${SETTINGS.map((s) => `  ${s.env.padEnd(24)} ${s.flag.padEnd(18)} ${s.scope === 'calendar' ? '[app] ' : ''}${s.description}${s.unit ? ` (${s.unit})` : ''} (default ${s.defaultText})`).join('\n')}

Examples:
  npm start                                        # serve on http://127.0.0.1:8080/api/
  DATABASE_URL=postgres://postgres@127.0.0.1/test events-calendar serve
  events-calendar users add ann --role editor --password 's3cret'
  events-calendar app-passwords add ann --name "mobile app"`,
  );

withSettings(program.command('serve').description('start the HTTP server (migrates the database first)')).action(async (opts) => {
  // Loaded here, not above: the other commands need neither the server nor its faces.
  const { serve } = await import('../server.js');
  await serve(loadConfig(process.env, overridesOf(opts)));
});

withSettings(program.command('migrate').description('create or upgrade the database schema and exit'), ['databaseUrl']).action(async (opts) => {
  const config = loadConfig(process.env, overridesOf(opts));
  const store = await openStore(config.databaseUrl, { skipMigrations: true });
  try {
    const applied = await migrate(store);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await store.close();
  }
});

withSettings(program.command('refresh').description('tell running servers that data changed outside the service (plain SQL, a restored backup): they drop what they keep'), ['databaseUrl']).action(
  async (opts) => {
    const config = loadConfig(process.env, overridesOf(opts));
    const store = await openStore(config.databaseUrl);
    try {
      await noteChange(store.db, 'all', 0, 'reset');
      console.log(`change ${await lastSeq(store.db)} logged: servers on ${store.describe} drop what they keep on their next request`);
    } finally {
      await store.close();
    }
  },
);

const users = program.command('users').description('manage users (roles: administrator, editor, author, contributor, subscriber)');
withSettings(
  users
    .command('add <login>')
    .description('create a user')
    .requiredOption('--role <role>', 'administrator, editor, author, contributor or subscriber')
    .option('--password-stdin', 'read the password from standard input (without --password and --password-stdin, a terminal asks for it)')
    .option('--password <password>', 'the password (stored hashed); visible to other users in `ps` and kept in shell history: prefer --password-stdin or the prompt')
    .option('--email <email>', 'e-mail address (required for the first administrator)')
    .option('--name <name>', 'display name'),
  ['databaseUrl', 'passwordMinLength', 'passwordMinStrength'],
).action(async (login: string, opts) => {
  const password = await passwordFrom(opts);
  checkCliPassword(opts, password, [login, opts.email ?? '', opts.name ?? '']);
  const user = await withUsers(opts, async (u) => {
    // The first administrator gives an address: invitations, lost passwords and review e-mails need one.
    if (opts.role === 'administrator' && !opts.email && !(await u.list()).some((r) => r.role === 'administrator'))
      throw new UserError('the first administrator needs an e-mail address: give --email (lost-password links and notifications are sent to it)');
    return u.add({ login, role: opts.role, password, email: opts.email, name: opts.name });
  });
  console.log(`created user ${user.login} (id ${user.id}, ${user.role})`);
});
withSettings(
  users
    .command('invite <email>')
    .description('invite a user: made without a password, with a single-use set-password link e-mailed by a running server (SMTP_URL), or printed here without SMTP_URL')
    .requiredOption('--role <role>', 'administrator, editor, author, contributor or subscriber')
    .option('--name <name>', 'display name')
    .option('--login <login>', 'login (default: from the e-mail address)'),
  ['databaseUrl', 'siteUrl', 'adminPath', 'smtpUrl', 'invitationExpiryMs'],
).action(async (email: string, opts) => {
  const made = await withCore(loadConfig(process.env, overridesOf(opts)), async ({ services }) => {
    try {
      return await services.people.invite({ email, role: opts.role, name: opts.name, username: opts.login }, { by: 0, locale: 'en' });
    } catch (e) {
      if (e instanceof ApiError) throw new UserError(e.message);
      throw e;
    }
  });
  console.log(`invited ${made.user.username} (id ${made.user.id}, ${made.user.roles[0]}) until ${made.invitation.expires.replace('T', ' ')} UTC`);
  console.log(made.link ? `set-password link (give it to them; it works once): ${made.link}` : `the invitation is e-mailed to ${made.user.email} by a running server`);
});
withSettings(users.command('list').description('list users'), ['databaseUrl']).action(async (opts) => {
  const rows = await withUsers(opts, (u) => u.list());
  if (!rows.length) console.log('no users');
  for (const r of rows) console.log(`${String(r.id).padStart(5)}  ${r.login.padEnd(24)} ${r.role.padEnd(14)} ${r.email}`);
});
withSettings(
  users
    .command('set-password <login>')
    .description("change a user's password")
    .option('--password-stdin', 'read the new password from standard input (without --password and --password-stdin, a terminal asks for it)')
    .option('--password <password>', 'the new password; visible to other users in `ps` and kept in shell history: prefer --password-stdin or the prompt'),
  ['databaseUrl', 'passwordMinLength', 'passwordMinStrength'],
).action(async (login: string, opts) => {
  const password = await passwordFrom(opts);
  checkCliPassword(opts, password, [login]);
  await withUsers(opts, (u) => u.setPassword(login, password));
  console.log(`password of ${login} changed`);
});
withSettings(
  users.command('sign-out <login>').description('end every sign-in session of a user (the admin face), at once on every server').option('--two-factor-off', 'also turn their two-factor sign-in off'),
  ['databaseUrl'],
).action(async (login: string, opts) => {
  const n = await withCore(loadConfig(process.env, overridesOf(opts)), async ({ services }) => {
    const user = (await services.users.list()).find((u) => u.login === login);
    if (!user) throw new UserError(`no user with login "${login}"`);
    if (opts.twoFactorOff) await services.sessions.resetTotp(Number(user.id));
    return services.sessions.revokeAll(Number(user.id));
  });
  console.log(`${login}: ${n} session${n === 1 ? '' : 's'} ended${opts.twoFactorOff ? ', two-factor sign-in off' : ''}`);
});
withSettings(users.command('set-role <login>').description("change a user's role").requiredOption('--role <role>', 'the new role'), ['databaseUrl']).action(async (login: string, opts) => {
  try {
    // The last administrator keeps the role: checked and written in one locked step, as by the admin API.
    await withUsers(opts, (u) => u.setRole(login, opts.role, { keepAnAdministrator: true }));
    console.log(`${login} is now ${opts.role}`);
  } catch (err) {
    if (!(err instanceof LastAdministrator)) throw err;
    console.error(`error: ${login}: ${err.message}`);
    process.exitCode = 1;
  }
});
withSettings(
  users
    .command('remove <login>')
    .description('delete a user and their application passwords; refused while they are the author of records, unless --reassign')
    .option('--reassign <login>', 'make this user the author of every event, venue, organizer and image of the removed one (same transaction)'),
  ['databaseUrl'],
).action(async (login: string, opts) => {
  try {
    const { reassigned } = await withUsers(opts, (u) => u.remove(login, { reassignTo: opts.reassign, keepAnAdministrator: true }));
    console.log(reassigned ? `removed ${login}; ${reassigned} record${reassigned === 1 ? '' : 's'} now authored by ${opts.reassign}` : `removed ${login}`);
  } catch (err) {
    if (!(err instanceof UserRefusal) && !(err instanceof LastAdministrator)) throw err;
    console.error(err instanceof LastAdministrator ? `error: ${login}: ${err.message}` : `error: ${err.message}`);
    process.exitCode = 1;
  }
});

const apps = program.command('app-passwords').description("manage users' application passwords (HTTP Basic credentials for API clients)");
withSettings(
  apps
    .command('add <login>')
    .description('create an application password and print it (shown once)')
    .option('--name <name>', 'a label', 'default')
    .option('--calendar <slug>', 'limit it to this calendar: it proves nobody in the others (docs/calendars.md)'),
  ['databaseUrl'],
).action(async (login: string, opts) => {
  const created = await withCore(loadConfig(process.env, overridesOf(opts)), async ({ services }) => {
    // The calendar first: an unknown one creates nothing.
    if (opts.calendar) await services.calendars.get(String(opts.calendar));
    const made = await services.users.addAppPassword(login, opts.name);
    if (opts.calendar) await services.calendars.limitAppPassword(made.uuid, String(opts.calendar));
    return made;
  });
  console.log(`application password for ${login} (${opts.name}, uuid ${created.uuid}):`);
  console.log(created.password);
  console.log('It is shown only now; it is stored hashed.');
});
withSettings(apps.command('list <login>').description("list a user's application passwords"), ['databaseUrl']).action(async (login: string, opts) => {
  const rows = await withUsers(opts, (u) => u.listAppPasswords(login));
  if (!rows.length) console.log('no application passwords');
  for (const r of rows) console.log(`${r.uuid}  ${r.name.padEnd(20)} created ${r.created}  last used ${r.lastUsed ?? 'never'}`);
});
withSettings(apps.command('revoke <login> <uuid-or-name>').description('revoke an application password'), ['databaseUrl']).action(async (login: string, which: string, opts) => {
  await withUsers(opts, (u) => u.revokeAppPassword(login, which));
  console.log(`revoked ${which}`);
});

const hooks = program.command('webhooks').description('manage webhook endpoints and their deliveries (a running server delivers; see docs/sync-and-webhooks.md)');
async function withWebhooks<T>(opts: Record<string, unknown>, fn: (webhooks: WebhookService, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, overridesOf(opts));
  return withCore(config, ({ webhooks }) => fn(webhooks, config));
}
/** Refuse an input problem (exit code 2). */
function refuse(check: true | string, what: string): void {
  if (check !== true) throw new UserError(`${what}: ${check}`);
}
withSettings(
  hooks
    .command('add <url>')
    .description('add an endpoint; prints its id and secret')
    .option('--events <types>', 'comma-separated event types (event.created, venue.updated, tag.deleted, …) or * (default)')
    .option('--secret <whsec>', 'the signing secret (whsec_…); generated when not given')
    .option('--description <text>', 'a note'),
  ['databaseUrl', 'webhooksAllowPrivate'],
).action(async (url: string, opts) => {
  const made = await withWebhooks(opts, async (webhooks, config) => {
    refuse(await checkUrl(url, config.webhooksAllowPrivate), 'url');
    if (opts.events !== undefined) refuse(checkEvents(opts.events), '--events');
    if (opts.secret !== undefined) refuse(checkSecret(opts.secret), '--secret');
    return webhooks.create({ url, events: opts.events === undefined ? undefined : eventList(opts.events), secret: opts.secret, description: opts.description });
  });
  console.log(`added endpoint ${made.id}: ${made.url} (${made.events.join(',')})`);
  console.log(`secret: ${made.secret}`);
});
withSettings(hooks.command('list').description('list endpoints'), ['databaseUrl']).action(async (opts) => {
  const rows = await withWebhooks(opts, (w) => w.list());
  if (!rows.length) console.log('no webhook endpoints');
  for (const r of rows)
    console.log(
      `${String(r.id).padStart(5)}  ${r.enabled ? 'enabled ' : 'disabled'}  ${r.url}  ${r.events.join(',')}${r.description ? `  (${r.description})` : ''}${r.disabled_reason ? `  [${r.disabled_reason}]` : ''}`,
    );
});
withSettings(hooks.command('remove <id>').description('remove an endpoint, its deliveries and their log'), ['databaseUrl']).action(async (id: string, opts) => {
  const gone = await withWebhooks(opts, (w) => w.remove(Number(id)));
  if (!gone) throw new UserError(`no webhook endpoint ${id}`);
  console.log(`removed endpoint ${id}`);
});
withSettings(
  hooks
    .command('deliveries <id>')
    .description("an endpoint's deliveries, newest first, with every attempt")
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--limit <n>', 'how many', '20'),
  ['databaseUrl'],
).action(async (id: string, opts) => {
  const { items, total } = await withWebhooks(opts, async (w) => {
    if (!(await w.get(Number(id)))) throw new UserError(`no webhook endpoint ${id}`);
    return w.deliveries(Number(id), { status: opts.status, limit: Number(opts.limit) || 20 });
  });
  console.log(`${total} deliveries`);
  for (const d of items) {
    console.log(`${d.id}  ${d.type.padEnd(18)} ${d.status.padEnd(9)} attempts ${d.attempts}${d.next_attempt ? `  next ${d.next_attempt}` : ''}`);
    for (const a of d.log) console.log(`    ${a.time}  ${a.outcome.padEnd(9)} ${a.response_code ?? '-'}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}`);
  }
});
withSettings(hooks.command('redeliver <id> <delivery>').description('send a delivery again (a running server sends it at once)'), ['databaseUrl']).action(
  async (id: string, delivery: string, opts) => {
    const again = await withWebhooks(opts, (w) => w.redeliver(Number(id), delivery));
    if (!again) throw new UserError(`no delivery ${delivery} for endpoint ${id}`);
    console.log(`delivery ${delivery} is pending again`);
  },
);

registerSeedCommand(program, withSettings, overridesOf);
registerBackupCommand(program, withSettings, overridesOf);
registerImportCommands(program, withSettings, overridesOf);
registerCalendarsCommand(program, withSettings, overridesOf);
registerMediaCommand(program, withSettings, overridesOf);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ApiError) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof UserError || err instanceof ConfigError || err instanceof StoreUrlError) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
