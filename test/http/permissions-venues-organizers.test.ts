/**
 * Permission matrices of the venue and organizer routes (see permissions-posts.ts and
 * permissions-table.ts).
 */
import { forEachStore } from '../support/harness.js';
import { ORGANIZERS, VENUES, postMatrix } from './permissions-posts.js';

forEachStore('permission matrix: venues', (t) => postMatrix(t, VENUES));
forEachStore('permission matrix: organizers', (t) => postMatrix(t, ORGANIZERS));
