/** Every string in a catalogue: English and French have the same keys and placeholders, and every literal key the sources use exists. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const load = (lang: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const f of readdirSync(join(src, 'i18n')).filter((f) => f.endsWith(`.${lang}.json`))) Object.assign(out, JSON.parse(readFileSync(join(src, 'i18n', f), 'utf8')));
  return out;
};
/** The variables a message uses: `{name}` placeholders and `{name, plural, …}` choices (a language may use a plural where another has none). */
const placeholders = (s: string) => [...new Set([...s.matchAll(/(?<!(?:=\d+|zero|one|two|few|many|other)\s*)\{(\w+)(?:\}|\s*,\s*plural\s*,)/g)].map((m) => m[1]))].sort();

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

describe('admin app catalogues', () => {
  const en = load('en');
  const fr = load('fr');
  it('English and French have the same keys and placeholders', () => {
    assert.deepEqual(Object.keys(fr).sort(), Object.keys(en).sort());
    for (const k of Object.keys(en)) assert.deepEqual(placeholders(fr[k]!), placeholders(en[k]!), k);
  });
  it('counts are plurals of the catalogue, never “thing(s)”', () => {
    for (const [lang, strings] of [['en', en] as const, ['fr', fr] as const]) for (const [k, v] of Object.entries(strings)) assert.doesNotMatch(v, /\w\(s\)/, `${lang} ${k}`);
  });
  it("every key the app's sources (its plug-in screens too) name literally is in the catalogue", () => {
    const missing: string[] = [];
    for (const file of sources(src)) {
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(/\bt\(\s*'([\w.-]+)'/g)) if (!(m[1]! in en)) missing.push(`${file}: ${m[1]}`);
    }
    assert.deepEqual(missing, []);
  });
});
