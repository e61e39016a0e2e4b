/**
 * Permission matrix of the event routes (see permissions-posts.ts and permissions-table.ts).
 */
import { forEachStore } from '../support/harness.js';
import { EVENTS, postMatrix } from './permissions-posts.js';

forEachStore('permission matrix: events', (t) => postMatrix(t, EVENTS));
