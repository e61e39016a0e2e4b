/* global module */
/**
 * The layer rules of src/ (dependency-cruiser; `npm run lint` runs `depcruise src`):
 *   store/  SQL, Kysely, schema, migrations: imports no layer above it
 *   domain/ services, rules, representations: imports no face, no job, no CLI
 *   faces   http/ (REST), pages/ (pages and feeds), admin/, embed/, caldav/, federation/, submissions/, media/:
 *           import domain, store types (never store values) and web/ (the plumbing they share), never
 *           each other, never the job runner or the importers
 *   app.ts  the composition root: the one module that imports every face
 *   core.ts the store and services app.ts builds on, alone for the CLI's commands: imports no face, no web/
 * Kysely and the database drivers only in store/; no import cycles anywhere in src/.
 */
const FACES = ['http', 'pages', 'admin', 'embed', 'caldav', 'activitypub', 'federation', 'submissions', 'media', 'mcp'];
const facePath = (face) => `^src/${face}/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles in src/ (type-only imports count: they are cycles of the design).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'store-imports-no-layer-above',
      severity: 'error',
      comment: 'store/ imports only store/ and the top-level modules without a layer (config.ts, metrics.ts, calendar-now.ts).',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: ['^src/store/', '^src/config\\.ts$', '^src/metrics\\.ts$', '^src/calendar-now\\.ts$'] },
    },
    {
      name: 'domain-imports-no-face',
      severity: 'error',
      comment: "domain/ imports no face (nor web/, the faces' plumbing), no job, no CLI, not the composition root.",
      from: { path: '^src/domain/' },
      to: { path: [...FACES.map(facePath), '^src/web/', '^src/jobs/', '^src/cli/', '^src/app\\.ts$', '^src/core\\.ts$', '^src/server\\.ts$'] },
    },
    {
      name: 'core-imports-no-face',
      severity: 'error',
      comment: "core.ts is what the CLI's commands run on without a server: it imports no face, no web/, no job, not the composition root.",
      from: { path: '^src/core\\.ts$' },
      to: { path: [...FACES.map(facePath), '^src/web/', '^src/jobs/', '^src/cli/', '^src/app\\.ts$', '^src/server\\.ts$'] },
    },
    ...FACES.map((face) => ({
      name: `face-${face}-imports-no-other-face`,
      severity: 'error',
      comment: `${face}/ is a face: it imports domain, store types and web/, never another face (app.ts composes them).`,
      from: { path: facePath(face) },
      to: { path: [...FACES.filter((f) => f !== face).map(facePath), '^src/app\\.ts$', '^src/core\\.ts$', '^src/server\\.ts$', '^src/cli/'] },
    })),
    {
      name: 'faces-import-store-types-only',
      severity: 'error',
      comment: "A face (and web/, the plumbing faces share) reaches the store through the domain's services: it imports store/ for types only.",
      from: { path: [...FACES.map(facePath), '^src/web/'] },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'faces-stand-beside-jobs-and-importers',
      severity: 'error',
      comment: "A face imports neither the job runner nor the importers, not even their types: it hands job specs (job-spec.ts) and is handed the exports through the composition root (faces.ts).",
      from: { path: [...FACES.map(facePath), '^src/web/', '^src/faces\\.ts$'] },
      to: { path: ['^src/jobs/', '^src/import/'] },
    },
    {
      name: 'web-imports-no-face',
      severity: 'error',
      comment: 'web/ is the plumbing every face shares: it imports no face.',
      from: { path: '^src/web/' },
      to: { path: [...FACES.map(facePath), '^src/app\\.ts$', '^src/core\\.ts$', '^src/server\\.ts$', '^src/cli/', '^src/jobs/'] },
    },
    {
      name: 'sql-only-in-store',
      severity: 'error',
      comment: 'Kysely (and its `sql`) and the database drivers are imported only in store/.',
      from: { path: '^src/', pathNot: '^src/store/' },
      // As installed (node_modules/kysely/…), or by its bare name when it cannot be resolved.
      to: { path: ['(^|/)node_modules/(kysely|pg|pg-[^/]+|better-sqlite3)/', '^(kysely|pg|better-sqlite3)(/|$)'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Paths of packages as installed (node_modules/kysely/…), also where node_modules is a link.
    preserveSymlinks: true,
    // Type-only imports are dependencies too (`import type`): they shape the design as much.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.d.ts'] },
  },
};
