/**
 * The iCalendar writer moved to the domain (`src/domain/ical.ts`, issue 30: the feeds and CalDAV
 * write the same VEVENTs); re-exported here for the pages' modules.
 */
export * from '../domain/ical.js';
