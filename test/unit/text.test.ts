import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { autop, newlinesToBr, wpautop } from '../../src/domain/text/autop.js';
import { escHtml, escJs, normalizeEntities, wpSpecialchars } from '../../src/domain/text/entities.js';
import { jsonLdDescription, obfuscateEmail, trimWords } from '../../src/domain/text/excerpts.js';
import { removeLazySpans } from '../../src/domain/text/php.js';
import { sanitizePostHtml, termText } from '../../src/domain/text/kses.js';
import { stripTags } from '../../src/domain/text/tags.js';

/** Deterministic pseudo-random generator for property-style checks. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomString(random: () => number, alphabet: string[], maxLength: number): string {
  let out = '';
  const length = Math.floor(random() * maxLength);
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

describe('autop', () => {
  it('wraps a single line in a paragraph', () => {
    assert.equal(autop('Jazz under the stars'), '<p>Jazz under the stars</p>');
    assert.equal(autop('Description of seed event 1.'), '<p>Description of seed event 1.</p>');
  });

  it('does not double-wrap an existing paragraph', () => {
    assert.equal(autop('<p>An evening of <strong>jazz</strong> under the stars.</p>'), '<p>An evening of <strong>jazz</strong> under the stars.</p>');
  });

  it('splits paragraphs on blank lines and joins them with a newline', () => {
    assert.equal(autop('a\n\nb'), '<p>a</p>\n<p>b</p>');
    assert.equal(autop('a\r\n\r\nb'), '<p>a</p>\n<p>b</p>');
    assert.equal(autop('a\n \n\n\nb'), '<p>a</p>\n<p>b</p>');
  });

  it('turns single newlines into <br />', () => {
    assert.equal(autop('a\nb'), '<p>a<br />\nb</p>');
    assert.equal(autop('a<br />\nb'), '<p>a<br />\nb</p>');
  });

  it('gives an empty string for empty or blank input', () => {
    assert.equal(autop(''), '');
    assert.equal(autop(' \n\t '), '');
  });

  it('leaves block-level markup unwrapped', () => {
    assert.equal(autop('<ul>\n<li>a</li>\n<li>b</li>\n</ul>'), '<ul>\n<li>a</li>\n<li>b</li>\n</ul>');
    assert.equal(autop('<div>x</div>\n\ny'), '<div>x</div>\n<p>y</p>');
    assert.equal(autop('<h2>Title</h2>\nText'), '<h2>Title</h2>\n<p>Text</p>');
    assert.equal(autop('<blockquote>q</blockquote>'), '<blockquote><p>q</p></blockquote>');
  });

  it('keeps <pre> content untouched', () => {
    assert.equal(autop('x\n\n<pre>a\n\nb</pre>\n\nz'), '<p>x</p>\n<pre>a\n\nb</pre>\n<p>z</p>');
  });

  it('keeps newlines inside tags', () => {
    assert.equal(autop('<a\nhref="x">y</a>'), '<p><a\nhref="x">y</a></p>');
  });

  it('wpautop itself is untrimmed like WordPress', () => {
    assert.equal(wpautop('a\n\nb'), '<p>a</p>\n<p>b</p>\n');
    assert.equal(wpautop(''), '');
  });

  it('adds <br /> exactly like the look-behind regex WordPress uses', () => {
    // Differential check of the linear rewrite against the literal regex.
    const random = lcg(42);
    const alphabet = ['a', ' ', '\n', '\t', '<br />', '<br>', '\n\n', 'b'];
    for (let i = 0; i < 400; i++) {
      const input = randomString(random, alphabet, 14);
      const reference = input.replace(/(?<!<br \/>)[ \t\n\x0B\f\r]*\n/g, '<br />\n');
      const ours = newlinesToBr(input);
      assert.equal(ours, reference, JSON.stringify(input));
    }
  });

  it('stays fast on pathological whitespace', () => {
    const started = Date.now();
    autop(`a${' '.repeat(200_000)}b`);
    assert.ok(Date.now() - started < 2000);
  });
});

describe('sanitizePostHtml', () => {
  it('removes <script> elements with their content', () => {
    const out = sanitizePostHtml('<p>Hi<script>alert(1)</script> there</p>');
    assert.equal(out, '<p>Hi there</p>');
    assert.ok(!out.includes('alert'));
  });

  it('removes on* handlers and style attributes', () => {
    assert.equal(sanitizePostHtml('<p onclick="x()" style="color:red">a</p>'), '<p>a</p>');
    assert.equal(sanitizePostHtml('<img src="https://i/x.png" onerror="y()">'), '<img src="https://i/x.png" />');
  });

  it('drops javascript: hrefs but keeps the link text', () => {
    const out = sanitizePostHtml('<a href="javascript:alert(1)">bad</a>');
    assert.ok(!out.includes('javascript'));
    assert.equal(out, '<a>bad</a>');
    assert.ok(!sanitizePostHtml('<a href="  JaVaScRiPt:alert(1)">x</a>').toLowerCase().includes('javascript'));
  });

  it('keeps formatting and safe links', () => {
    assert.equal(sanitizePostHtml('<strong>x</strong>'), '<strong>x</strong>');
    assert.equal(sanitizePostHtml('<a href="https://x">y</a>'), '<a href="https://x">y</a>');
    assert.equal(sanitizePostHtml('<a href="mailto:a@b.c" title="t" target="_blank" rel="noopener">m</a>'), '<a href="mailto:a@b.c" title="t" target="_blank" rel="noopener">m</a>');
    assert.equal(sanitizePostHtml('<table><tbody><tr><td colspan="2">c</td></tr></tbody></table>'), '<table><tbody><tr><td colspan="2">c</td></tr></tbody></table>');
    assert.equal(sanitizePostHtml('<h2 class="x">T</h2><ul><li>a</li></ul>'), '<h2 class="x">T</h2><ul><li>a</li></ul>');
  });

  it('drops disallowed tags but keeps their text', () => {
    assert.equal(sanitizePostHtml('<p>a <font color="red">b</font> <blink>c</blink></p>'), '<p>a b c</p>');
    assert.equal(sanitizePostHtml('<iframe src="https://evil"></iframe><p>x</p>'), '<p>x</p>');
  });

  it('keeps entities encoded', () => {
    assert.equal(sanitizePostHtml('Tom &amp; Jerry & co &nbsp;x'), 'Tom &amp; Jerry &amp; co &nbsp;x');
  });
});

describe('stripTags', () => {
  it('removes all tags, keeps the text and trims', () => {
    assert.equal(stripTags('Rock & Roll <b>x</b>'), 'Rock & Roll x');
    assert.equal(stripTags('  <p>a</p>\n '), 'a');
  });

  it('drops script/style content and comments', () => {
    assert.equal(stripTags('a<script>alert(1)</script>b<style>p{}</style>c<!-- d -->e'), 'abce');
  });

  it('keeps a < followed by whitespace, like PHP strip_tags', () => {
    assert.equal(stripTags('1 < 2'), '1 < 2');
    assert.equal(stripTags('<a title="x>y">z</a>'), 'z');
  });
});

describe('termText', () => {
  it('strips tags and stores & as &amp;', () => {
    assert.equal(termText('Rock & Roll <b>x</b>'), 'Rock &amp; Roll x');
  });

  it('does not double-encode', () => {
    assert.equal(termText('Rock &amp; Roll'), 'Rock &amp; Roll');
    assert.equal(termText('Caf&eacute;'), 'Caf&eacute;');
  });

  it('collapses whitespace and encodes stray angle brackets', () => {
    assert.equal(termText('  Jazz \n  Blues  '), 'Jazz Blues');
    assert.equal(termText('a < b > c'), 'a &lt; b &gt; c');
  });

  it('keeps basic inline markup in descriptions', () => {
    assert.equal(termText('<b>x</b> & <script>y</script><img src="z">', 'description'), '<b>x</b> &amp; ');
  });
});

describe('escHtml', () => {
  it('encodes the five htmlspecialchars characters', () => {
    assert.equal(escHtml(`Tom & "Jerry's" <b>`), 'Tom &amp; &quot;Jerry&#039;s&quot; &lt;b&gt;');
  });

  it('double-encodes, like PHP by default', () => {
    assert.equal(escHtml('&amp;'), '&amp;amp;');
  });
});

describe('normalizeEntities / wpSpecialchars / escJs', () => {
  it('normalises entities like kses', () => {
    assert.equal(normalizeEntities('a & b &amp; &copy; &bogus; &#39; &#x27;'), 'a &amp; b &amp; &copy; &amp;bogus; &#039; &#x27;');
  });

  it('esc_html-style escaping never double-encodes', () => {
    assert.equal(wpSpecialchars('Tom &amp; "J" <3', 'both'), 'Tom &amp; &quot;J&quot; &lt;3');
    assert.equal(wpSpecialchars("it's", 'none'), "it's");
  });

  it('escJs escapes quotes and writes newlines as \\n', () => {
    assert.equal(escJs(`<p>It's "ok"</p>\n`), "&lt;p&gt;It\\'s &quot;ok&quot;&lt;/p&gt;\\n");
    assert.equal(escJs('a\r\nb'), 'a\\nb');
  });
});

describe('trimWords', () => {
  it('strips tags and cuts to the word limit', () => {
    assert.equal(trimWords('<p>one two three</p>', 2, '…'), 'one two…');
    assert.equal(trimWords('one\n\ntwo', 55), 'one two');
  });
});

describe('jsonLdDescription', () => {
  it('escapes the paragraph markup and appends a literal \\n', () => {
    assert.equal(jsonLdDescription('<p>Jazz under the stars</p>'), '&lt;p&gt;Jazz under the stars&lt;/p&gt;\\n');
  });

  it('strips inner inline tags', () => {
    assert.equal(jsonLdDescription('<p>A <b>famous</b> jazz club</p>'), '&lt;p&gt;A famous jazz club&lt;/p&gt;\\n');
  });

  it('keeps empty input empty', () => {
    assert.equal(jsonLdDescription(''), '');
  });

  it('accepts raw content as well as rendered HTML', () => {
    assert.equal(jsonLdDescription('Jazz under the stars'), '&lt;p&gt;Jazz under the stars&lt;/p&gt;\\n');
    assert.equal(jsonLdDescription('<p>a</p>\n<p>b &amp; c</p>'), '&lt;p&gt;a b &amp; c&lt;/p&gt;\\n');
  });

  it('removes shortcodes and trims to 55 words', () => {
    assert.equal(jsonLdDescription('[gallery ids="1"]Hello'), '&lt;p&gt;Hello&lt;/p&gt;\\n');
    const long = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    const out = jsonLdDescription(long);
    assert.ok(out.endsWith('w54 [&hellip;]&lt;/p&gt;\\n'));
  });

  it('keeps inline tags of hand-written excerpts', () => {
    assert.equal(jsonLdDescription('A <b>famous</b> club', { excerpt: true }), '&lt;p&gt;A &lt;b&gt;famous&lt;/b&gt; club&lt;/p&gt;\\n');
  });
});

describe('removeLazySpans', () => {
  it('matches PCRE /\\[.+?\\]/ on random input', () => {
    const random = lcg(7);
    for (let i = 0; i < 500; i++) {
      const input = randomString(random, ['[', ']', 'a', '\n', ' '], 12);
      assert.equal(removeLazySpans(input, '[', ']'), input.replace(/\[[^\n]+?\]/g, ''), JSON.stringify(input));
    }
  });

  it('is linear on pathological input', () => {
    const started = Date.now();
    removeLazySpans('['.repeat(200_000), '[', ']');
    assert.ok(Date.now() - started < 2000);
  });
});

describe('obfuscateEmail', () => {
  const decode = (s: string): string => s.replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)));

  it('decodes back to the address', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const out = obfuscateEmail('info@example.com', lcg(seed));
      assert.equal(decode(out), 'info@example.com');
    }
    assert.equal(decode(obfuscateEmail('jörg+tag@exämple.org')), 'jörg+tag@exämple.org');
  });

  it('always writes @ as &#64;', () => {
    assert.ok(obfuscateEmail('a@b.c', () => 0.99).includes('&#64;'));
    assert.ok(!obfuscateEmail('a@b.c').includes('@'));
    assert.equal(
      obfuscateEmail('a@b.c', () => 0),
      '&#97;&#64;&#98;&#46;&#99;',
    );
    assert.equal(
      obfuscateEmail('a@b.c', () => 0.99),
      'a&#64;b.c',
    );
  });
});
