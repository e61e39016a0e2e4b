/**
 * The settings in force (issue 28, `GET calendar/admin/v1/settings`): every row of the settings
 * table (config.ts `SETTINGS`) with the value this server runs with, where it came from (`default`,
 * `environment`, `flag`, or `database` for a value kept in the database's settings table: the
 * generated SECRET_KEY), its default and description. Secrets are masked: passwords, tokens and
 * keys show `********` when set, a database URL's password likewise.
 *
 * @example
 *   const rows = await settingsInForce(services);
 *   rows.find((r) => r.name === 'DATABASE_URL') // { value: 'postgres://app:********@db/calendar', source: 'environment', … }
 */
import { SETTINGS, type Config } from '../config.js';
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

export const MASK = '********';

/** Settings whose whole value is a secret. */
const SECRET_KEYS = new Set<keyof Config>(['adminPassword', 'metricsToken', 'secretKey']);

/** A database URL with its password masked (`postgres://app:********@db/calendar`). */
export function maskDatabaseUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):([^@]*)@/i.exec(url);
  return m ? `${m[1]}:${MASK}@${url.slice(m[0].length)}` : url;
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
    else if (s.key === 'databaseUrl' && typeof raw === 'string') value = maskDatabaseUrl(raw);
    out.push({ name: s.env, flag: s.flag, value, source, default: s.defaultText, description: s.description, secret: secret || s.key === 'databaseUrl' });
  }
  return out;
}
