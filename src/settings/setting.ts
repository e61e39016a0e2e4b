/**
 * What a setting's declaration says (its name, flag, type, unit, default, meaning, secret or not,
 * where it may be changed), the one place the loader, the validation, `--help`, the README's table,
 * the admin API and the admin screen read it from.
 */
import type { Config } from './config.js';

/**
 * Where a setting may be changed: `environment` (the process's: ports, the database, secrets,
 * paths, limits; environment variables and flags, read at start) or `calendar` (the calendar's
 * own: also changed by administrators in the app, kept in the database and in force on every
 * instance at once; an environment variable or flag still pins it).
 */
export type SettingScope = 'environment' | 'calendar';

/** A setting's type: how its text is read and which control the admin screen shows. */
export type SettingType = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'duration' | 'durations' | 'list' | 'url' | 'timezone' | 'dateformat' | 'emails' | 'icon';

/**
 * One documented setting, declared once: its environment variable, CLI flag, type, unit, default,
 * meaning, whether it is a secret and where it may be changed. `--help`, the README's table (a
 * test compares them), the admin API's list and the admin screen's form are read from it; the
 * calendar settings' values are checked with it (`parseCalendarSetting`).
 */
export interface Setting {
  env: string;
  flag: string;
  key: keyof Config;
  defaultText: string;
  description: string;
  /** defaults to `environment` */
  scope?: SettingScope;
  /** defaults to `string` */
  type?: SettingType;
  /** the unit values are given and shown in (`ms`, `s`, `MB`, `bytes`, `days`, `months`, …) */
  unit?: string;
  /** enum: the values allowed */
  choices?: readonly string[];
  /** enum: other spellings of a value (`0` for `sunday`), stored as the value they stand for */
  aliases?: Readonly<Record<string, string>>;
  /** integer/number: the smallest and largest values allowed */
  min?: number;
  max?: number;
  /** the value is a secret: shown masked, never sent back */
  secret?: boolean;
  /** the admin screen's group */
  group?: 'site' | 'server' | 'security' | 'limits' | 'sync' | 'federation' | 'submissions' | 'mail';
}
