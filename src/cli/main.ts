#!/usr/bin/env node
/**
 * Entry of the `events-calendar` command. It checks the Node.js version first and only then
 * loads the command (`program.ts`) and with it the native SQLite binding: static imports are
 * all loaded before any code runs, so the command is imported dynamically.
 *
 * @example
 *   events-calendar serve --port 9000
 */
import module from 'node:module';
import { unsupportedNodeMessage } from './node-support.js';
import { reexecWithHeapFlags } from './heap-flags.js';

// Node's on-disk cache of compiled code (in the system's temporary directory, or NODE_COMPILE_CACHE):
// the command loads some 1,200 modules, and with the cache a start takes about a fifth less CPU.
// Where the directory cannot be written Node carries on without it.
module.enableCompileCache?.();

const unsupported = unsupportedNodeMessage(process.versions.node);
if (unsupported) {
  console.error(unsupported);
  process.exit(2);
}
// `serve` bounds V8's young generation and the old generation's growth (heap-flags.ts): re-executed with the flags, same pid.
reexecWithHeapFlags(process.argv);
import('./program.js').catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
