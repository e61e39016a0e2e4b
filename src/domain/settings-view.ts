/**
 * The settings in force (`GET calendar/admin/v1/settings`): every row of the settings
 * table (config.ts `SETTINGS`) with the value this server runs with, where it came from (`default`,
 * `environment`, `flag`, or `database` for a value kept in the database's settings table: the
 * generated SECRET_KEY), its default and description. Secrets are masked: passwords, tokens and
 * keys show `********` when set; in every other value, a URL's password and its secret query
 * parameters likewise (config.ts `maskUrl`, the service's one masking function: DATABASE_URL,
 * SMTP_URL, any URL setting).
 *
 * @example
 *   const rows = await settingsInForce(services);
 *   rows.find((r) => r.name === 'DATABASE_URL') // { value: 'postgres://app:********@db/calendar', source: 'environment', … }
 */
import { MASK, SETTINGS, maskUrl, type Config, type Setting, type SettingScope, type SettingType } from '../config.js';
import { hasStoredSecretKey } from '../store/sessions.js';
import { readCalendarSettings } from '../store/calendar-settings.js';
import type { DomainContext } from './context.js';

export interface SettingView {
  /** the environment variable */
  name: string;
  flag: string;
  value: unknown;
  source: 'default' | 'environment' | 'flag' | 'database';
  default: string;
  description: string;
  /** whether the value is masked */
  secret: boolean;
  /** `environment`: changed where the process is started; `calendar`: also in the app */
  scope: SettingScope;
  /** whether administrators may change it now (a calendar setting the environment or a flag does not pin) */
  editable: boolean;
  type: SettingType;
  /** the unit `value` and `default` are in, when it is a number of something */
  unit: string | null;
  /** an enum's values */
  choices: readonly string[] | null;
  min: number | null;
  max: number | null;
  /** the admin screen's group */
  group: string;
}

export { MASK };

/** Settings whose whole value is a secret (declared `secret`, not URLs). */
const SECRET_KEYS = new Set<keyof Config>(SETTINGS.filter((s) => s.secret && s.type !== 'url').map((s) => s.key));

/** URL settings that carry credentials (declared `secret`: shown as secret, their password masked). */
const CREDENTIAL_URLS = new Set<keyof Config>(SETTINGS.filter((s) => s.secret && s.type === 'url').map((s) => s.key));

/**
 * The settings that name the network's administrator account (its login, its address): the
 * network's, as the accounts are, so masked for a calendar's own administrator (who is told the
 * address nowhere else either: `wp/v2/settings` answers it `email: ""`), lest it learn whom to aim at.
 */
const NETWORK_ACCOUNT = new Set<keyof Config>(['adminUser', 'adminEmail']);

/**
 * Where the installation keeps its data and sends its mail (database and SMTP hosts and users, the
 * media folder, the S3 endpoint, bucket and access key): the operator's, masked for a calendar's
 * own administrator, who runs a calendar of the service, not the machines under it.
 */
const INFRASTRUCTURE = new Set<keyof Config>([...CREDENTIAL_URLS, 'mediaDir', 'mediaS3Endpoint', 'mediaS3Bucket', 'mediaS3AccessKey']);

/** A value with what a URL in it hides masked (a list: each item). */
function masked(value: unknown): unknown {
  if (typeof value === 'string') return maskUrl(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? maskUrl(v) : v));
  return value;
}

/** `7200000` → `2h`, `1500` → `1500ms`: the largest unit that gives a whole number, as durations are written. */
export function durationText(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** A value as its declaration gives it (durations as `2h`, sizes in their unit), not as the server keeps it. */
function inDeclaredUnit(s: Setting, value: unknown): unknown {
  if (s.type === 'duration' && typeof value === 'number') return durationText(value);
  if (s.type === 'emails' && Array.isArray(value)) return value.join(', ');
  if (s.type === 'durations' && Array.isArray(value)) return value.map((v) => (typeof v === 'number' ? durationText(v) : v));
  if (s.unit === 'MB' && s.key === 'responseMemoryBytes' && typeof value === 'number') return value / (1024 * 1024);
  return value;
}

/** `network`: whether the caller manages the network's accounts (else NETWORK_ACCOUNT's and INFRASTRUCTURE's are masked). */
export async function settingsInForce(services: Pick<DomainContext, 'config' | 'store'>, { network = true }: { network?: boolean } = {}): Promise<SettingView[]> {
  const config = services.config;
  const sources = config.sources ?? {};
  const stored = await readCalendarSettings(services.store.db);
  const out: SettingView[] = [];
  for (const s of SETTINGS) {
    const raw = inDeclaredUnit(s, config[s.key]);
    let source: SettingView['source'] = sources[s.key] ?? 'default';
    if (s.key === 'secretKey' && raw === undefined && (await hasStoredSecretKey(services.store.db))) source = 'database';
    const calendar = s.scope === 'calendar';
    if (calendar && source === 'default' && stored[s.env] !== undefined) source = 'database';
    const secret = SECRET_KEYS.has(s.key) || (!network && (NETWORK_ACCOUNT.has(s.key) || INFRASTRUCTURE.has(s.key)));
    let value: unknown = raw === undefined ? null : raw;
    if (secret && (raw !== undefined || source === 'database')) value = MASK;
    else value = masked(value);
    const hidden = secret || CREDENTIAL_URLS.has(s.key) || JSON.stringify(value) !== JSON.stringify(raw ?? null);
    out.push({
      name: s.env,
      flag: s.flag,
      value,
      source,
      default: s.defaultText,
      description: s.description,
      secret: hidden,
      scope: s.scope ?? 'environment',
      editable: calendar && source !== 'environment' && source !== 'flag',
      type: s.type ?? 'string',
      unit: s.unit ?? null,
      choices: s.choices ?? null,
      min: s.min ?? null,
      max: s.max ?? null,
      group: s.group ?? 'server',
    });
  }
  return out;
}
