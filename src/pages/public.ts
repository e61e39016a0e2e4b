/**
 * The shapes the pages and feeds read moved to the domain (`src/domain/public-records.ts`, issue
 * 30: the iCalendar writer there reads them); re-exported here for the pages' modules.
 */
export type * from '../domain/public-records.js';
