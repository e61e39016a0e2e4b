/**
 * `events-calendar seed --events N`: bulk-load a realistic dataset (benchmark issue).
 *
 * @example registerSeedCommand(program, withSettings, overridesOf)
 */
import type { Command } from 'commander';
import type { Config } from '../config.js';

export function registerSeedCommand(
  _program: Command,
  _withSettings: (cmd: Command, keys?: Array<keyof Config>) => Command,
  _overridesOf: (opts: Record<string, unknown>) => Partial<Record<keyof Config, string>>,
): void {
  // Filled in by the performance work.
}
