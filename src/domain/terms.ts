/**
 * Categories and tags: the service is in `terms/` (see its `index.ts`); this module keeps its
 * import path.
 */
export * from './terms/index.js';
