/**
 * `events-calendar media sweep`: remove the media library's stored files that no image of any
 * calendar uses (docs/media.md, "Removing files nothing refers to"): those of an upload that stopped
 * between storing its files and recording its row, of a removal whose storage call failed after the
 * row was deleted, of calendars deleted by a version that left their files. It works on the storage
 * the settings name (MEDIA_DIR, or the MEDIA_S3_* bucket) and the database of DATABASE_URL, while
 * servers run.
 *
 * @example
 *   events-calendar media sweep --dry-run
 *   events-calendar media sweep --older-than 1440
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { withCore } from '../core.js';
import { MediaSweepRefused, SWEEP_GRACE_MINUTES, type SweepStep } from '../domain/media/index.js';

type Overrides = Partial<Record<keyof Config, string>>;

/** The settings the command reads: the database and the storage. */
const KEYS: Array<keyof Config> = ['databaseUrl', 'mediaDir', 'mediaS3Endpoint', 'mediaS3Bucket', 'mediaS3Region', 'mediaS3AccessKey', 'mediaS3SecretKey'];

/** Bytes for a person: 1.5 MiB. */
function sized(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${n.toFixed(1)} ${units[unit]}`;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

const HELP = `
Removes the stored image files that no image of any calendar refers to: files left by an upload
that stopped between storing its files and recording the image, by a removal whose storage call
failed after the image was deleted, or by calendars deleted by an earlier version. Files are kept
once for every calendar (by the hash of their bytes), so a hash goes only when no calendar has an
image on it. It reads the storage the settings name (MEDIA_DIR, or the MEDIA_S3_* bucket) and asks
the database of DATABASE_URL about each hash: give it the same settings as the servers.

It is safe while servers run: files written in the last --older-than minutes are left (an upload
stores its files before it records the image), and each hash is looked at again, files and
database, just before it is removed. A sweep that would remove files is refused (exit 2) when the
database and the storage do not look like one installation's: no calendar has any uploaded image,
or none of the files of the 20 newest images is in the storage (a wrong DATABASE_URL or MEDIA_DIR
makes every file look unused); --force removes them anyway. Files written after the database's last
write (of any calendar) are kept and told ("kept ... written after the database's last write"):
against a copy of the database from before (a restored backup) they are the images uploaded since;
in the installation itself, an upload that stopped, which a sweep after any later write removes.
--force removes them too.

Output: one line per hash removed (with --dry-run: that would be removed) with its size, then a
summary. Exit 0; 1 when a removal failed (the others are still made) or the storage or database
could not be read; 2 for bad options or a refused sweep.

Examples:
  events-calendar media sweep --dry-run
  events-calendar media sweep
  events-calendar media sweep --older-than 1440 --media-dir /srv/calendar/media`;

export function registerMediaCommand(program: Command, withSettings: (cmd: Command, keys?: Array<keyof Config>) => Command, overridesOf: (opts: Record<string, unknown>) => Overrides): void {
  const media = program.command('media').description('the media library’s stored files (see docs/media.md)');
  withSettings(
    media
      .command('sweep')
      .description('remove stored image files that no image of any calendar refers to; safe while servers run')
      .option('--older-than <minutes>', 'leave the files written in the last MINUTES minutes (uploads in progress)', String(SWEEP_GRACE_MINUTES))
      .option('--dry-run', 'list what would be removed, remove nothing')
      .option('--force', 'remove even when the database and the storage do not look like one installation’s (else refused), and files written after the database’s last write (else kept)')
      .addHelpText('after', HELP),
    KEYS,
  ).action(async (opts) => {
    const olderThan = String(opts.olderThan);
    const minutes = /^\d+$/.test(olderThan) ? Number(olderThan) : NaN;
    if (!Number.isSafeInteger(minutes)) {
      console.error(`error: --older-than takes a whole number of minutes (0 or more), got "${olderThan}"`);
      process.exitCode = 2;
      return;
    }
    const dryRun = opts.dryRun === true;
    const config = loadConfig(process.env, overridesOf(opts));
    let removed = 0;
    await withCore(config, async ({ store, services }) => {
      const where = config.mediaS3Bucket ? `bucket ${config.mediaS3Bucket} at ${config.mediaS3Endpoint}` : resolve(config.mediaDir);
      console.error(`${dryRun ? 'dry run: ' : ''}sweeping ${where}, files older than ${minutes} minutes, against ${store.describe}`);
      const onProgress = (step: SweepStep) => {
        const what = `${step.hash}  ${step.bytes} bytes (${step.files.length} file${step.files.length === 1 ? '' : 's'})`;
        if (step.outcome === 'removed') {
          removed++;
          console.log(`removed ${what}`);
        } else if (step.outcome === 'unused') console.log(`would remove ${what}`);
        else if (step.outcome === 'after-last-write') console.log(`kept ${what}: written after the database's last write`);
        else if (step.outcome === 'failed') console.error(`error: could not remove ${step.hash}: ${messageOf(step.error)}`);
      };
      let result;
      try {
        result = await services.media.sweep({ olderThanMinutes: minutes, dryRun, force: opts.force === true, onProgress });
      } catch (err) {
        if (err instanceof MediaSweepRefused) {
          console.error(`error: ${err.message} Nothing removed; check DATABASE_URL and the media settings, or give --force.`);
          process.exitCode = 2;
          return;
        }
        // The storage or the database could not be read: what was removed stays removed.
        console.error(`error: the sweep stopped${removed ? ` after removing ${removed} hash${removed === 1 ? '' : 'es'}` : ''}: ${messageOf(err)}`);
        process.exitCode = 1;
        return;
      }
      const after = result.afterLastWrite ? `, ${result.afterLastWrite} written after the database's last write kept` : '';
      const left = `${result.stored} stored, ${result.recent} newer than ${minutes} minutes left, ${result.checked} checked${after}`;
      if (dryRun) console.log(`${left}: ${result.unused} unused (${sized(result.unusedBytes)}); dry run, nothing removed`);
      else console.log(`${left}: ${result.unused} unused, ${result.removed} removed (${sized(result.bytesFreed)} freed)${result.failed ? `, ${result.failed} failed` : ''}`);
      if (result.failed) {
        console.error(`error: ${result.failed} removal${result.failed === 1 ? '' : 's'} failed; the first: ${messageOf(result.firstError)}`);
        process.exitCode = 1;
      }
    });
  });
}
