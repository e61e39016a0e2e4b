/**
 * The admin app's own unit tests (admin-app/test/: the catalogues' parity in English and French,
 * plurals and placeholders included; the recurrence form's rules; the Quotas form's values), run
 * with the rest of the suite: `npm test` runs `test/*\/*.test.ts`, which did not reach them. They
 * are imported by a computed path: they are type-checked with the admin app (its own tsconfig,
 * bundler resolution), not here.
 */
const dir = new URL('../../admin-app/test/', import.meta.url);
for (const name of ['catalogues.test.ts', 'recurrence.test.ts', 'quota-values.test.ts']) await import(new URL(name, dir).href);
