/**
 * The domain services every part of the domain is built over (`CoreServices`), and the context a
 * domain module that reads or writes the store is given (`DomainContext`: the same with the store).
 * Apart from services.ts, so that the domain's modules can name what they need without importing
 * the bundle that is built over them (an import cycle).
 *
 * @example
 *   export function settingsInForce(services: Pick<DomainContext, 'config' | 'store'>) { … }
 */
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import type { AnswerBudget } from './answer-budget.js';
import type { CalendarService } from './calendars.js';
import type { CalendarQuotas } from './quotas.js';
import type { EditLockService } from './edit-locks.js';
import type { EventService } from './events/index.js';
import type { ImageService } from './images.js';
import type { Clock, LinkedPostService } from './linked-posts/index.js';
import type { Links } from './links.js';
import type { MediaService } from './media/index.js';
import type { PublicReader } from './public-reader.js';
import type { SubmissionService } from './submissions/index.js';
import type { TermService } from './terms/index.js';
import type { UserService } from './users.js';
import type { VersionService } from './versions.js';

export interface CoreServices {
  config: Config;
  /** REST URLs of our namespace under REST_ROOT (the canonical ones: discovery, `/docs`). */
  links: Links;
  /**
   * REST URLs under another REST root and namespace (`/wp-json`, `tribe/events/v1`), one object per
   * pair, so caches kept per `Links` stay per pair.
   */
  linksFor(restRoot: string, namespace: string): Links;
  clock: Clock;
  users: UserService;
  images: ImageService;
  venues: LinkedPostService;
  organizers: LinkedPostService;
  categories: TermService;
  tags: TermService;
  events: EventService;
  /** What readers see, typed (public-reader.ts): the faces' door to events, venues and organizers as represented. */
  reader: PublicReader;
  /** The memory bound of list answers being built and sent (RESPONSE_MEMORY_MB). */
  answers: AnswerBudget;
  /** Versions of records and of the data (ETags, sync tokens). */
  versions: VersionService;
  /** Community submissions and their moderation. */
  submissions: SubmissionService;
  /** Who has an event open in the admin app's editor (post locks), and who changed it last. */
  editLocks: EditLockService;
  /** The media library: uploaded images, their files and alt texts (docs/media.md). */
  media: MediaService;
  /** The calendars of the service, which one the work at hand is of, people's roles in each (calendars.ts). */
  calendars: CalendarService;
  /** Each calendar's quotas, enforced by the writes they limit (quotas.ts). */
  quotas: CalendarQuotas;
}

/** What a domain module that reads or writes the store is given: the services and their store. */
export interface DomainContext extends CoreServices {
  store: Store;
}
