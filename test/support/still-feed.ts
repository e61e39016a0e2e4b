/**
 * A change feed that never moves, for unit tests of kept maps (they only need its number, 7, and a
 * subscription).
 *
 * @example const map = createKeptMap<string>(stillFeed(), 10, { owner: new StoreMetrics(), kind: 'test' });
 */
import type { ChangeFeed } from '../../src/store/change-feed.js';

export function stillFeed(): ChangeFeed {
  return {
    seq: () => 7,
    revision: () => '7',
    linkedRevision: () => '7',
    here: () => ({ seq: 7, revision: '7' }),
    calendarRevision: () => '7',
    stamp: () => ({ seq: 7, blind: 0 }),
    calendarRevisionSince: () => '7',
    sync: async () => 7,
    subscribe: () => {},
    expectChanges: () => {},
    expectOwnCommit: () => {},
    transitionsBetween: () => [],
    forgetCalendar: () => {},
  };
}
