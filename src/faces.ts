/**
 * What every face is given, and the one signature of a face: `registerXFace(app, deps)`, called
 * from the composition root's list (app.ts), in its order. A face takes what it reads from `deps`
 * and nothing else: the configuration, the domain's services (without the store: the domain's
 * doors, domain/services.ts), /metrics' registry when it is on, and what the root hands faces from
 * elsewhere (webhooks, which the REST face administers; federation's administration, which the
 * REST face's routes answer with; the exports the importers make). Background work a face brings
 * is job specs (job-spec.ts) it hands the root, which declares them to the runner (federation's).
 *
 * @example
 *   export function registerMediaFace(app: FastifyInstance, { services }: FaceDeps): void { … }
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import type { FederationAdmin } from './domain/federation.js';
import type { Services } from './domain/services.js';
import type { WebhookService } from './webhooks/types.js';
import type { ExportFilter } from './store/exports.js';

export interface FaceDeps {
  config: Config;
  services: Services;
  registry?: Registry;
  logger: FastifyBaseLogger;
  /** Webhook endpoints and deliveries (the administration namespace). */
  webhooks: WebhookService;
  /** The fediverse followers and deliveries; only when FEDERATION=true. */
  federation?: FederationAdmin;
  /** The calendar's exports (the importers' counterparts, src/import), which the REST face offers as downloads. */
  exports: CalendarExports;
}

/** The calendar as a download: the whole backup (JSON), or its events as iCalendar. */
export interface CalendarExports {
  /**
   * The backup document (src/import/backup-json.ts), which the face sends as JSON; `everyAccount`
   * false: only the accounts its records name (for a caller who may not list the accounts).
   */
  json(options?: { everyAccount?: boolean }): Promise<unknown>;
  ics(filter?: ExportFilter): Promise<string>;
}

/** A face: its routes, hooks and background work added to the instance. */
export type Face = (app: FastifyInstance, deps: FaceDeps) => void | Promise<void>;
