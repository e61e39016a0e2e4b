/**
 * Issue 24: the WordPress text filters of src/domain/text.ts run in linear time on hostile text
 * (a 1.8 MB description of `<b>`, thousands of unclosed `<script>` or `<pre>` blocks) and give
 * byte-identical output to the implementation they replaced (test/unit/text-oracle.ts, the old file
 * kept verbatim), checked here on random HTML-ish text.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_MARKUP_ITEMS, markupFailure, markupItems } from '../../src/domain/text/markup-limit.js';
import { autop, newlinesToBr, wpautop } from '../../src/domain/text/autop.js';
import { escJs, normalizeEntities, wpSpecialchars } from '../../src/domain/text/entities.js';
import { jsonLdDescription, trimWords } from '../../src/domain/text/excerpts.js';
import { removeLazySpans } from '../../src/domain/text/php.js';
import { stripTags } from '../../src/domain/text/tags.js';
import { termText } from '../../src/domain/text/kses.js';

const current = {
  MAX_MARKUP_ITEMS,
  autop,
  escJs,
  jsonLdDescription,
  markupFailure,
  markupItems,
  newlinesToBr,
  normalizeEntities,
  removeLazySpans,
  stripTags,
  termText,
  trimWords,
  wpSpecialchars,
  wpautop,
};
import * as oracle from './text-oracle.js';

/** Pieces that exercise every branch of the filters: tags (closed, unclosed, quoted), comments, CDATA, `<pre>`, `<br>`, blocks, entities, shortcodes, whitespace. */
const PIECES = [
  '<b>',
  '</b>',
  '<p>',
  '</p>',
  '<p>x</p>',
  '<div>',
  '</div>',
  '<li>',
  '<p><li>',
  '<ul>',
  '</ul>',
  '<blockquote>',
  '</blockquote>',
  '<hr>',
  '<hr />',
  '<pre>',
  '</pre>',
  '<pre class="x">',
  '<pre wp-pre-tag-0></pre>',
  '<pre wp-pre-tag-1>',
  '<pre wp-pre-tag-2></pre>',
  '<br>',
  '<br/>',
  '<br />',
  '<BR>',
  '<!--',
  '-->',
  '<!-- c -->',
  '<!-->',
  '<!--->',
  '<![CDATA[',
  ']]>',
  ']]',
  '<script>',
  '</script>',
  '<SCRIPT a=">">',
  '</Script>',
  '<style>',
  '</style>',
  '<svg>',
  '</svg>',
  '<math>',
  '</math>',
  '<scriptx>',
  '<option>',
  '</option>',
  '<object>',
  '</object>',
  '<param>',
  '<source>',
  '<figcaption>',
  '</figcaption>',
  '<a href="x\ny">',
  "<a title='>'>",
  '<a "',
  "'",
  '"',
  '<',
  '>',
  '<<',
  '< b',
  '<\n',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  ' ',
  '\t',
  '  \n ',
  'x',
  'word',
  '[',
  ']',
  '[a]',
  '[\n]',
  '&',
  ';',
  '&amp;',
  '&a;',
  '&#39;',
  '&#x27;',
  '&copy;',
  '\\',
  '%41',
  'é',
  '<!-- wpnl -->',
  '<WPPreserveNewline />',
];
const htmlish = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), { maxLength: 40 }).map((parts) => parts.join(''));
const RUNS = { numRuns: 1500 };

describe('text filters: identical output to the previous implementation', () => {
  it('wpautop (with and without br)', () => {
    fc.assert(
      fc.property(htmlish, fc.boolean(), (text, br) => assert.equal(current.wpautop(text, br), oracle.wpautop(text, br))),
      RUNS,
    );
  });
  it('removeLazySpans', () => {
    fc.assert(
      fc.property(htmlish, fc.constantFrom<[string, string]>(['[', ']'], ['&', ';'], ['<', '>']), (text, [open, close]) =>
        assert.equal(current.removeLazySpans(text, open, close), oracle.removeLazySpans(text, open, close)),
      ),
      RUNS,
    );
  });
  it('stripTags, trimWords, jsonLdDescription, termText, normalizeEntities, wpSpecialchars, escJs', () => {
    fc.assert(
      fc.property(htmlish, (text) => {
        assert.equal(current.stripTags(text), oracle.stripTags(text));
        assert.equal(current.trimWords(text, 5), oracle.trimWords(text, 5));
        assert.equal(current.jsonLdDescription(text), oracle.jsonLdDescription(text));
        assert.equal(current.termText(text), oracle.termText(text));
        assert.equal(current.normalizeEntities(text), oracle.normalizeEntities(text));
        assert.equal(current.wpSpecialchars(text, 'both'), oracle.wpSpecialchars(text, 'both'));
        assert.equal(current.escJs(text), oracle.escJs(text));
        assert.equal(current.newlinesToBr(text), oracle.newlinesToBr(text));
      }),
      RUNS,
    );
  });
});

describe('text filters: hostile descriptions', () => {
  it('render 1.8 MB of <b> (the finding) as WordPress does', () => {
    const text = '<b>'.repeat(600_000);
    const html = current.autop(text);
    assert.equal(html, `<p>${text}</p>`);
    assert.equal(current.stripTags(text), '');
    assert.equal(current.jsonLdDescription(html), '');
  });
  it('render thousands of unclosed <script>, <svg> and <pre> blocks, and a shortcode bracket per line', () => {
    const scripts = '<script>'.repeat(50_000);
    assert.equal(current.stripTags(scripts), '');
    assert.equal(current.autop(scripts), `<p>${scripts}</p>`);
    const svg = `${'<svg>\n'.repeat(20_000)}</svg>`;
    assert.equal(current.autop(svg), `<p>${svg}</p>`); // newlines inside <svg> are kept, not made <br />
    const pres = Array.from({ length: 50_000 }, () => '<pre>x</pre>');
    assert.equal(current.autop(pres.join('')), pres.join('\n'));
    const brackets = '[\n'.repeat(100_000);
    assert.equal(current.removeLazySpans(brackets, '[', ']'), brackets);
    assert.equal(current.removeLazySpans(`${'['.repeat(100_000)}]`, '[', ']'), '');
  });
});

describe('markup limit and large renders', () => {
  it('counts tags, character references and line breaks, stopping past the limit', () => {
    assert.equal(current.markupItems('<p>a &amp; b</p>\nc'), 4);
    assert.equal(current.markupItems('<b>'.repeat(600_000)), current.MAX_MARKUP_ITEMS + 1);
    assert.equal(current.markupFailure('description', '<b>'.repeat(current.MAX_MARKUP_ITEMS)), undefined);
    assert.match(current.markupFailure('description', '<b>'.repeat(current.MAX_MARKUP_ITEMS + 1))!, /^description must contain at most 20000 /);
  });
  it('renders a large text once and answers the same text again', () => {
    const text = `${'word <em>x</em>\n'.repeat(2_000)}unique ${Math.random()}`;
    const first = current.autop(text);
    assert.equal(first, oracle.autop(text));
    assert.equal(current.autop(`${text}`), first);
  });
});
