/**
 * Issue 27, item 5: `serve` bounds V8's young generation (cli/heap-flags.ts) unless told
 * otherwise, and the bound is reported in /metrics with the store's own memory bounds.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heapEnvFor, heapFlagsFor, SERVER_HEAP_GROWING_PERCENT, SERVER_MALLOC_ARENAS, SERVER_SEMI_SPACE_MB } from '../../src/cli/heap-flags.js';
import { memoryBounds, MAIN_CACHE_KIB } from '../../src/store/memory-bounds.js';

const NODE = process.execPath;

describe('heap flags of serve', () => {
  it('adds --max-semi-space-size and --heap-growing-percent to serve only, and keeps one given on the command line or in NODE_OPTIONS', () => {
    const semi = `--max-semi-space-size=${SERVER_SEMI_SPACE_MB}`;
    const growing = `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'serve'], [], undefined), [semi, growing]);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'serve', '--port', '9000'], ['--import', 'tsx'], ''), [semi, growing]);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'seed', '--events', '10'], [], undefined), []);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', '--help'], [], undefined), []);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'serve'], ['--max-semi-space-size=64'], undefined), [growing]);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'serve'], [], '--max_semi_space_size=8 --trace-warnings'), [growing]);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'serve'], ['--heap_growing_percent=50'], undefined), [semi]);
    assert.deepEqual(heapFlagsFor([NODE, 'main.js', 'serve'], ['--heap-growing-percent=50', '--max-semi-space-size=8'], undefined), []);
    // glibc's arenas: two for serve, unless the environment chose.
    assert.deepEqual(heapEnvFor([NODE, 'main.js', 'serve'], {}), { MALLOC_ARENA_MAX: String(SERVER_MALLOC_ARENAS) });
    assert.deepEqual(heapEnvFor([NODE, 'main.js', 'serve'], { MALLOC_ARENA_MAX: '8' }), {});
    assert.deepEqual(heapEnvFor([NODE, 'main.js', 'seed'], {}), {});
  });

  it('re-executes serve with the flag in the same process (process.execve), which V8 then applies', (t) => {
    if (typeof (process as { execve?: unknown }).execve !== 'function') return t.skip('this Node (22 before 22.15) has no process.execve: serve runs as it is');
    // A stand-in for main.ts: re-execute, then allocate and report the new space's size as V8 sees it.
    const dir = mkdtempSync(join(tmpdir(), 'heap-flags-'));
    try {
      const file = join(dir, 'main.mjs');
      writeFileSync(
        file,
        `import { reexecWithHeapFlags } from ${JSON.stringify(new URL('../../src/cli/heap-flags.ts', import.meta.url).href)};
        import v8 from 'node:v8';
        const pid = process.pid;
        reexecWithHeapFlags(process.argv);
        let keep = [];
        for (let i = 0; i < 4e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 100000) keep = []; }
        const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
        console.log(JSON.stringify({ pid, execArgv: process.execArgv, newSpaceMb: space.space_size / 2 ** 20, arenas: process.env.MALLOC_ARENA_MAX ?? null }));`,
      );
      const run = (command: string) => {
        const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
        delete env.MALLOC_ARENA_MAX;
        const r = spawnSync(NODE, ['--import', 'tsx', file, command], { encoding: 'utf8', env });
        assert.equal(r.status, 0, r.stderr);
        return JSON.parse(r.stdout.trim().split('\n').pop()!) as { execArgv: string[]; newSpaceMb: number; arenas: string | null };
      };
      const serve = run('serve');
      assert.ok(serve.execArgv.includes(`--max-semi-space-size=${SERVER_SEMI_SPACE_MB}`), JSON.stringify(serve));
      assert.ok(serve.execArgv.includes(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`), JSON.stringify(serve));
      assert.ok(serve.newSpaceMb <= 2 * SERVER_SEMI_SPACE_MB, `new space ${serve.newSpaceMb} MiB`);
      assert.equal(serve.arenas, String(SERVER_MALLOC_ARENAS), 'serve runs with two malloc arenas');
      // The same allocations without the flag (another command): on Node 24 (V8 13, whose young
      // generation grows up to 128 MiB by default) they let it grow past the bound; Node 22's V8
      // keeps it within 32 MiB by default, so there the flag only holds what V8 does anyway.
      const other = run('seed');
      assert.deepEqual(other.execArgv, ['--import', 'tsx']);
      assert.equal(other.arenas, null);
      if (Number(process.versions.node.split('.')[0]) >= 24) assert.ok(other.newSpaceMb > 2 * SERVER_SEMI_SPACE_MB, `new space ${other.newSpaceMb} MiB without the flag`);
      else t.diagnostic(`Node ${process.versions.node}: new space ${other.newSpaceMb} MiB without the flag (V8's default bound)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the SQLite caches and worker heaps it bounds (none on PostgreSQL)', () => {
    const sqlite = memoryBounds('sqlite');
    assert.equal(sqlite.sqlite_cache_main, MAIN_CACHE_KIB * 1024);
    assert.deepEqual(Object.keys(sqlite).sort(), ['sqlite_cache_background', 'sqlite_cache_checkpointer', 'sqlite_cache_main', 'worker_heap_background', 'worker_heap_checkpointer']);
    assert.deepEqual(memoryBounds('postgres'), {});
  });
});
