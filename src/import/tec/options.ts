/** The options of `events-calendar import tec` (`src/cli/import.ts` reads them from the command line). */
export interface TecImportOptions {
  /** the source's REST root (https://site/wp-json) */
  from: string;
  /** the calendar's namespace there */
  namespace: string;
  user?: string;
  password?: string;
  /** map every author to this local login instead of creating users */
  author?: string;
  /**
   * role of the users created for authors: the account's own in the default calendar, its role in
   * the calendar imported into otherwise. Not a role (''), or an importer who is no network
   * administrator: no user is created (tec/apply.ts `authorOf`).
   */
  authorRole: string;
  dryRun: boolean;
  /** pages fetched at once */
  concurrency: number;
  retries: number;
  retryDelayMs: number;
  perPage?: number;
  /** read from loopback, private and reserved addresses too (`--allow-private`) */
  allowPrivate?: boolean;
  /** the most bytes of one answer, as sent and as decoded (IMPORT_MAX_BYTES) */
  maxBytes?: number;
}
