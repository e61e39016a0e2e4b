/**
 * CPU time of rendering descriptions (issue 24): what an event representation does with its
 * description (`autop`, and the JSON-LD's `jsonLdDescription(autop(...))`), before (the old
 * implementation kept as test/unit/text-oracle.ts) and after. Uncached: `wpautop` is called directly.
 *
 *   node --import tsx bench/text-render.ts
 */
import { wpautop } from '../src/domain/text/autop.js';
import { jsonLdDescription } from '../src/domain/text/excerpts.js';
import * as oracle from '../test/unit/text-oracle.js';

const current = { wpautop, jsonLdDescription };

const normal = Array.from({ length: 40 }, (_, i) => `<p>Paragraph ${i} with <b>bold</b> &amp; <a href="https://example.com/${i}">a link</a>, and more words here.</p>\nA second line.\n\n`)
  .join('')
  .slice(0, 5000);
const inputs: Array<[string, string]> = [
  ['1.8 MB of <b>', '<b>'.repeat(600_000)],
  ['2 MB of <p>x</p>', '<p>x</p>'.repeat(250_000)],
  ['2 MB plain text, a newline every 10 chars', 'word word\n'.repeat(200_000)],
  ['2 MB of &', '&'.repeat(2_000_000)],
  ['5 KB normal description', normal],
  ['limit: 20,000 tags as <p>x</p>', '<p>x</p>'.repeat(10_000)],
  ['limit: 20,000 <p>', '<p>'.repeat(20_000)],
  ['limit: 20,000 &a;', '&a;'.repeat(20_000)],
  ['limit: 2 MB, 20,000 lines of 100 characters', `${'lorem ipsum dolor sit amet '.repeat(4).slice(0, 99)}\n`.repeat(20_000)],
  ['limit: 2 MB, 20,000 <b> among text', `<b>${'x'.repeat(97)}`.repeat(20_000)],
  ['2 MB plain text without markup', 'lorem ipsum '.repeat(170_000)],
];

function cpuMs(fn: () => unknown, reps: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < reps; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / reps;
}

const skipOld = process.argv.includes('--new-only');
for (const [name, text] of inputs) {
  const reps = text.length < 10_000 ? 500 : 1;
  const row: string[] = [name.padEnd(44)];
  for (const [label, impl] of skipOld
    ? [['new', current] as const]
    : ([
        ['old', oracle],
        ['new', current],
      ] as const)) {
    if (reps > 1) for (let i = 0; i < 100; i++) impl.jsonLdDescription(impl.wpautop(text).trim());
    const render = () => {
      const html = impl.wpautop(text).trim();
      return impl.jsonLdDescription(html);
    };
    row.push(`${label} ${cpuMs(render, reps).toFixed(reps > 1 ? 3 : 0)} ms`);
  }
  console.log(row.join('  '));
}
