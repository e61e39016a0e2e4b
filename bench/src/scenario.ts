/**
 * The shape of one benchmark scenario and of what it is addressed against (a seeded database's
 * ids, found by `discover` in scenarios.ts). Apart from the list so that a file of scenarios
 * (caldav.ts) can be imported by it without importing it back.
 */
export interface ScenarioContext {
  /** '{origin}/api/calendar/events/v1' */
  base: string;
  /** '{origin}': the site, where the calendar pages are */
  origin: string;
  /** 'Basic …' of the benchmark administrator */
  authorization: string;
  /** a published event with a venue, organizers and terms */
  eventId: number;
  /** its slug (the event page `/event/{slug}/`) */
  eventSlug: string;
  venueId: number | null;
  organizerId: number | null;
  categoryId: number | null;
  tagId: number | null;
  /** YYYY-MM-DD of today and of today + 90 days (the filtered list's window) */
  today: string;
  in90Days: string;
  /** id of the category FILTER.category (null when the dataset has none) */
  filterCategoryId: number | null;
  /** events in the default list when discovered (X-TEC-Total) */
  listTotal: number;
  /** ETags of the single event and of the default list when discovered (issue 11) */
  singleEtag: string | null;
  listEtag: string | null;
  /** issue 30: the CalDAV site calendar's current sync token (null: no CalDAV face) */
  caldavSyncToken: string | null;
}

export interface Scenario {
  key: string;
  label: string;
  kind: 'read' | 'write';
  method: 'GET' | 'POST' | 'REPORT';
  /** path under the namespace, with query, or an absolute URL (pages outside the REST root) */
  path(ctx: ScenarioContext): string;
  headers?(ctx: ScenarioContext): Record<string, string>;
  /** a body per request */
  body?(ctx: ScenarioContext): () => string;
  /** the answer expected when it is not a 2xx (conditional GETs: 304; no baseline then) */
  expectStatus?: number;
}
