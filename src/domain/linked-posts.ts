/**
 * Venues and organizers ("linked posts"): the service is in `linked-posts/` (see its `index.ts`);
 * this module keeps its import path.
 */
export * from './linked-posts/index.js';
