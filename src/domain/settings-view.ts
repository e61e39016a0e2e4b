/**
 * The settings in force (issue 28, `GET calendar/admin/v1/settings`): every row of the settings
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
import { MASK, SETTINGS, maskUrl, type Config } from '../config.js';
import { hasStoredSecretKey } from '../store/sessions.js';
import type { Services } from './services.js';

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
}

export { MASK };

/** Settings whose whole value is a secret. */
const SECRET_KEYS = new Set<keyof Config>(['adminPassword', 'metricsToken', 'secretKey']);

/** URL settings that carry credentials (shown as secret, masked or not). */
const CREDENTIAL_URLS = new Set<keyof Config>(['databaseUrl', 'smtpUrl']);

/** A value with what a URL in it hides masked (a list: each item). */
function masked(value: unknown): unknown {
  if (typeof value === 'string') return maskUrl(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? maskUrl(v) : v));
  return value;
}

export async function settingsInForce(services: Pick<Services, 'config' | 'store'>): Promise<SettingView[]> {
  const config = services.config;
  const sources = config.sources ?? {};
  const out: SettingView[] = [];
  for (const s of SETTINGS) {
    const raw = config[s.key];
    let source: SettingView['source'] = sources[s.key] ?? 'default';
    if (s.key === 'secretKey' && raw === undefined && (await hasStoredSecretKey(services.store.db))) source = 'database';
    const secret = SECRET_KEYS.has(s.key);
    let value: unknown = raw === undefined ? null : raw;
    if (secret && (raw !== undefined || source === 'database')) value = MASK;
    else value = masked(value);
    const hidden = secret || CREDENTIAL_URLS.has(s.key) || JSON.stringify(value) !== JSON.stringify(raw ?? null);
    out.push({ name: s.env, flag: s.flag, value, source, default: s.defaultText, description: s.description, secret: hidden });
  }
  return out;
}
