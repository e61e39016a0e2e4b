/**
 * `--import ./scripts/typescript.mjs`: run this project's TypeScript sources (the tests, the
 * benchmarks, `src/` itself) on Node's own type stripping, as `npm test` does:
 *
 *   node --import ./scripts/typescript.mjs --test test/unit/dates.test.ts
 *
 * Node strips the types itself (22.18 and later, 24); what it does not do is find `x.ts` when a
 * source imports `./x.js`, as TypeScript's NodeNext resolution wants the sources to write: the
 * resolve hook below does that, synchronously and in the loading thread (module.registerHooks).
 * `tsconfig.json`'s `erasableSyntaxOnly` keeps the sources to the syntax stripping can run.
 *
 * It also turns on Node's compile cache (in the system's temporary directory): a test file's
 * process loads some 1,200 modules, mostly the same ones as the last file's, and on Node 24 the
 * cache keeps the stripped and compiled code between processes. Loading the whole app took about
 * 0.85 s of CPU this way against 1.75 s through `tsx`, for each of the suite's ~300 processes.
 *
 * A Node without type stripping or synchronous hooks (22 before 22.18) gets `tsx` instead, which
 * the project keeps as a development dependency.
 */
import module from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

if (typeof module.registerHooks === 'function' && process.features.typescript) {
  module.enableCompileCache?.();
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (parent?.startsWith('file:') && parent.endsWith('.ts') && (specifier.startsWith('./') || specifier.startsWith('../'))) {
        const ts = typeScriptFile(specifier, parent);
        if (ts) return nextResolve(ts, context);
      }
      return nextResolve(specifier, context);
    },
  });
} else {
  const { register } = await import('tsx/esm/api');
  register();
}

/**
 * The `.ts` file a relative import names, when the file it names does not exist: `./x.js` for
 * `./x.ts` (NodeNext), or `./x` for `./x.ts` (the admin app's sources, written for a bundler).
 */
function typeScriptFile(specifier, parent) {
  const named = fileURLToPath(new URL(specifier, parent));
  let base;
  if (specifier.endsWith('.js')) {
    if (existsSync(named)) return undefined;
    base = named.slice(0, -3);
  } else if (!/\.[^/]+$/.test(specifier)) {
    base = named;
  } else {
    return undefined;
  }
  for (const candidate of [base + '.ts', join(base, 'index.ts')]) if (existsSync(candidate)) return pathToFileURL(candidate).href;
  return undefined;
}
