/**
 * The domain services, built once per application over one store. The HTTP layer and the CLI
 * reach the domain only through this bundle.
 *
 * @example
 *   const services = createServices(config, store);
 *   const viewer = await services.users.authenticate(request.headers.authorization);
 */
import { createPublicReader, type PublicReader } from './public-reader.js';
import type { Config } from '../config.js';
import { NAMESPACE } from '../config.js';
import type { Store } from '../store/db.js';
import { nowWall } from './dates/wall.js';
import { createEventService, type EventService } from './events/index.js';
import { createAnswerBudget, type AnswerBudget } from './answer-budget.js';
import { createImageService, type ImageService } from './images.js';
import { createLinkedPostService, type Clock, type LinkedPostService } from './linked-posts/index.js';
import { createLinks, type Links } from './links.js';
import { createTermService, type TermService } from './terms/index.js';
import { createUserService, type UserService } from './users.js';
import { createVersionService, type VersionService } from './versions.js';
import { createSubmissionService, type SubmissionService } from './submissions/index.js';
import { createEditLockService, type EditLockService } from './edit-locks.js';
import { createMediaService, type MediaService } from './media/index.js';
import { createFederationStore, type FederationStore } from './federation-store.js';

export interface Services {
  config: Config;
  store: Store;
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
  /** Versions of records and of the data (ETags, sync tokens; issue 11). */
  versions: VersionService;
  /** Community submissions and their moderation (issue 29). */
  submissions: SubmissionService;
  /** Who has an event open in the admin app's editor (post locks), and who changed it last. */
  editLocks: EditLockService;
  /** The media library: uploaded images, their files and alt texts (docs/media.md). */
  media: MediaService;
  /** What federation keeps in the database (federation-store.ts): the federation face's door to the store. */
  federationStore: FederationStore;
}

export function createServices(config: Config, store: Store): Services {
  const links = createLinks(config.siteUrl, config.restRoot, NAMESPACE);
  const linksByBase = new Map<string, Links>([[`${config.restRoot}/${NAMESPACE}`, links]]);
  const linksFor = (restRoot: string, namespace: string): Links => {
    const key = `${restRoot}/${namespace}`;
    let out = linksByBase.get(key);
    if (!out) linksByBase.set(key, (out = createLinks(config.siteUrl, restRoot, namespace)));
    return out;
  };
  const clock: Clock = {
    nowGmt: () => nowWall('UTC'),
    nowLocal: () => nowWall(config.timezone),
  };
  const images = createImageService(store.db);
  const venues = createLinkedPostService(store.db, 'venue', images, config.timezone, clock, { radius: config.geolocRadius, unit: config.geolocUnit });
  const organizers = createLinkedPostService(store.db, 'organizer', images, config.timezone, clock);
  const categories = createTermService(store.db, 'tribe_events_cat');
  const tags = createTermService(store.db, 'post_tag');
  const events = createEventService({
    store,
    // Read at each use: administrators change the time zone while the server runs (calendar-settings.ts).
    get siteTimezone() {
      return config.timezone;
    },
    get currency() {
      return { symbol: config.currencySymbol, position: config.currencyPosition };
    },
    maxPerPage: config.maxPerPage,
    geoloc: { radius: config.geolocRadius, unit: config.geolocUnit },
    clock,
    images,
    venues,
    organizers,
    categories,
    tags,
    recurrenceHorizonMonths: config.recurrenceHorizonMonths,
  });
  const answers = createAnswerBudget(config.responseMemoryBytes);
  const users = createUserService(store);
  const submissions = createSubmissionService({ config, store, events, venues, organizers, users, links });
  return {
    config,
    store,
    links,
    linksFor,
    clock,
    users,
    images,
    venues,
    organizers,
    categories,
    tags,
    events,
    reader: createPublicReader({ events, venues, organizers }),
    answers,
    versions: createVersionService(store),
    submissions,
    editLocks: createEditLockService(store, clock),
    media: createMediaService(config, store.db, clock),
    federationStore: createFederationStore(store),
  };
}
