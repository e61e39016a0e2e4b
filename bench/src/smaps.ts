/**
 * What a process' resident memory is made of, from /proc/PID/smaps (Linux): its mappings grouped
 * by kind, resident MB each. The kinds: files by name (the `node` binary's code and data, shared
 * libraries, better-sqlite3's addon), `[heap]` and `[stack]`, glibc's arenas of other threads (a
 * 64 MiB-aligned reservation: the part written, then the rest without access), thread stacks (a
 * mapping behind a one-page guard), V8's pages (256 KiB each, mapped one by one), and the other
 * anonymous mappings by size (V8's large objects and reservations, malloc's large chunks).
 *
 * @example for (const [kind, mb] of smapsSummary(pid)) console.log(kind, mb)
 */
import { readFileSync } from 'node:fs';

interface Mapping {
  start: number;
  end: number;
  perm: string;
  path: string;
  rssKib: number;
}

const ARENA = 64 * 1024 * 1024;

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let current: Mapping | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = { start: parseInt(head[1]!, 16), end: parseInt(head[2]!, 16), perm: head[3]!, path: head[4]!, rssKib: 0 };
      out.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss && current) current.rssKib = Number(rss[1]);
  }
  return out;
}

/** Resident MB by kind of mapping, largest first. */
export function smapsSummary(pid: number): Array<[string, number]> {
  const maps = mappings(pid);
  const kinds = new Map<string, number>();
  const add = (kind: string, kib: number) => kinds.set(kind, (kinds.get(kind) ?? 0) + kib);
  maps.forEach((m, i) => {
    const size = m.end - m.start;
    const next = maps[i + 1];
    const before = maps[i - 1];
    if (m.path && !m.path.startsWith('[')) return add(`file ${m.path.split('/').pop()}`, m.rssKib);
    if (m.path) return add(m.path, m.rssKib);
    if (m.perm === '---p') return;
    if (m.start % ARENA === 0 && next && !next.path && next.perm === '---p' && next.start === m.end && next.end - m.start === ARENA) return add('glibc arenas of other threads', m.rssKib);
    if (before && before.perm === '---p' && before.end - before.start === 4096 && before.end === m.start && size <= 8 * 2 ** 20 + 4096) return add('thread stacks', m.rssKib);
    if (size === 256 * 1024) return add('anonymous 256 KiB (V8 pages)', m.rssKib);
    const bucket = size >= 64 * 2 ** 20 ? '64 MiB and more' : size >= 8 * 2 ** 20 ? '8-64 MiB' : size >= 2 ** 20 ? '1-8 MiB' : 'under 1 MiB';
    return add(`anonymous ${bucket}${m.perm.includes('x') ? ', executable' : ''}`, m.rssKib);
  });
  return [...kinds].map(([kind, kib]): [string, number] => [kind, kib / 1024]).sort((a, b) => b[1] - a[1]);
}
