/**
 * The account the network's mirroring writes as (domain/network.ts): copies of a followed
 * calendar's events are authored by it, and only it may change them (they are read-only to
 * everyone else, events/index.ts). Nobody can sign in as it.
 */
export const NETWORK_USER = 'calendar-network';
