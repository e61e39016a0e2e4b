/**
 * The core every entry point composes: the store, the domain services and the webhook service,
 * without a server. `app.ts` (the composition root) builds the server and its faces over it; the
 * CLI's commands run over it alone (`withCore`), so that a command loads neither Fastify nor any
 * face (about 0.3 s of a command's start).
 *
 * @example
 *   const users = await withCore(loadConfig(process.env), ({ services }) => services.users.list());
 */
import type { Config } from './config.js';
import { isValidTimezone } from './domain/dates/zones.js';
import { followCalendarSettings, loadCalendarSettings } from './domain/calendar-settings.js';
import { createServices, type DomainServices } from './domain/services.js';
import { calendarConfig } from './domain/calendars.js';
import { openStore, type OpenOptions, type Store } from './store/db.js';
import { createWebhookService, type WebhookService } from './webhooks/service.js';

/** The store, the services and the webhook service, without a server (the CLI's commands). */
export interface Core {
  store: Store;
  services: DomainServices;
  /** Webhook endpoints and deliveries. */
  webhooks: WebhookService;
}

/** The services over a store (the one given, or config.databaseUrl opened), the admin user ensured. */
export async function createCore(config: Config, options: { store?: Store; storeOptions?: OpenOptions } = {}): Promise<Core> {
  if (!isValidTimezone(config.timezone)) throw new Error(`CALENDAR_TIMEZONE "${config.timezone}" is not a known time zone`);
  const store = options.store ?? (await openStore(config.databaseUrl, { timeoutMs: config.databaseTimeoutMs, ...options.storeOptions }));
  // Every service and face reads the configuration of the calendar the work at hand is of
  // (domain/calendars.ts); outside any, this one: the default calendar's.
  const pristine: Config = { ...config, sources: { ...config.sources } };
  const services = createServices(calendarConfig(config), store, pristine);
  // The calendar settings administrators changed in the app, and their changes from now on.
  await followCalendarSettings(services);
  if (config.adminUser && config.adminPassword) await services.users.ensureAdmin(config.adminUser, config.adminPassword, config.adminEmail);
  // Webhooks: the service (its worker is a job, started by buildApp).
  const webhooks = createWebhookService(services, config);
  return { store, services, webhooks };
}

/**
 * Run `fn` with the store and services on config.databaseUrl, then close the store (CLI commands).
 * The CLI opens the store as it always did: no admin user is created and no time zone check is made.
 */
export async function withCore<T>(config: Config, fn: (core: Core) => Promise<T>, storeOptions: OpenOptions = {}): Promise<T> {
  const store = await openStore(config.databaseUrl, storeOptions);
  try {
    const pristine: Config = { ...config, sources: { ...config.sources } };
    const services = createServices(calendarConfig(config), store, pristine);
    await loadCalendarSettings(services);
    return await fn({ store, services, webhooks: createWebhookService(services, config) });
  } finally {
    await store.close();
  }
}
