import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESERVED_POST_SLUGS, sanitizeSlug, slugForLookup, uniqueSlug, utf8UriEncode } from '../../src/domain/slugs.js';

describe('sanitizeSlug', () => {
  it('lower-cases and dashes words', () => {
    assert.equal(sanitizeSlug('Oracle Jazz Night'), 'oracle-jazz-night');
    assert.equal(sanitizeSlug('Seed event 001'), 'seed-event-001');
  });

  it('removes accents', () => {
    assert.equal(sanitizeSlug('Café Müller'), 'cafe-muller');
    assert.equal(sanitizeSlug('Æsir Øre Łódź Þór'), 'aesir-ore-lodz-thor');
    assert.equal(sanitizeSlug('Cafe\u0301'), 'cafe'); // decomposed input
  });

  it('maps ß like WordPress: "s" by default, "ss" in German locales', () => {
    assert.equal(sanitizeSlug('Straße'), 'strase');
    assert.equal(sanitizeSlug('Straße Müller', { locale: 'de_DE' }), 'strasse-mueller');
  });

  it('drops symbols and entities', () => {
    assert.equal(sanitizeSlug('Rock & Roll'), 'rock-roll');
    assert.equal(sanitizeSlug('Rock &amp; Roll'), 'rock-roll');
    assert.equal(sanitizeSlug('100% "Jazz"!'), '100-jazz');
  });

  it('turns dots, slashes, no-break spaces and dashes into -', () => {
    assert.equal(sanitizeSlug('v1.2/beta\u00a0one\u2014two'), 'v1-2-beta-one-two');
  });

  it('strips tags and trims dashes', () => {
    assert.equal(sanitizeSlug('<b>Hi</b> there'), 'hi-there');
    assert.equal(sanitizeSlug('  --x--  '), 'x');
    assert.equal(sanitizeSlug('snake_case'), 'snake_case');
  });

  it('returns an empty string when nothing is left', () => {
    assert.equal(sanitizeSlug(''), '');
    assert.equal(sanitizeSlug('!!!'), '');
    assert.equal(sanitizeSlug('«»“”'), ''); // quotes WordPress strips
  });

  it('keeps non-Latin titles percent-encoded, lower-cased, as WordPress (sanitize_title + utf8_uri_encode)', () => {
    // The issue's example: WordPress' answer for "Концерт".
    assert.equal(sanitizeSlug('Концерт'), '%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82');
    assert.equal(sanitizeSlug('КОНЦЕРТ в парке'), '%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82-%d0%b2-%d0%bf%d0%b0%d1%80%d0%ba%d0%b5');
    assert.equal(sanitizeSlug('日本'), '%e6%97%a5%e6%9c%ac');
    assert.equal(sanitizeSlug('Jazz 🎷 night'), 'jazz-%f0%9f%8e%b7-night');
    // Already encoded octets are kept (any case), lone % signs dropped: the encoded form is stable.
    assert.equal(sanitizeSlug('%D0%BA%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82'), '%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82');
    assert.equal(sanitizeSlug(sanitizeSlug('Концерт')), sanitizeSlug('Концерт'));
    // Width spaces and nbsp become -, the multiplication sign x, zero-width characters vanish.
    assert.equal(sanitizeSlug('a\u2009b\u00d7c\u200bd'), 'a-bxcd');
  });

  it('cuts encoded slugs at 200 bytes without breaking a character', () => {
    const slug = sanitizeSlug('ж'.repeat(100)); // 6 bytes encoded each: 33 fit in 200
    assert.equal(slug, '%d0%b6'.repeat(33));
    assert.equal(sanitizeSlug('a' + 'ж'.repeat(100)), 'a' + '%d0%b6'.repeat(33));
    assert.equal(sanitizeSlug('ab' + 'ж'.repeat(100)), 'ab' + '%d0%b6'.repeat(33));
    assert.equal(sanitizeSlug('abc' + 'ж'.repeat(100)), 'abc' + '%d0%b6'.repeat(32));
    assert.equal(utf8UriEncode('ж', 5), '');
  });

  it('is linear on pathological input', () => {
    const started = Date.now();
    sanitizeSlug('&'.repeat(200_000));
    assert.ok(Date.now() - started < 2000);
  });
});

describe('uniqueSlug', () => {
  it('returns the base when it is free', async () => {
    assert.equal(await uniqueSlug('jazz', () => false), 'jazz');
  });

  it('numbers from -2 upwards', async () => {
    const taken = new Set(['jazz', 'jazz-2', 'jazz-3']);
    assert.equal(await uniqueSlug('jazz', (s) => taken.has(s)), 'jazz-4');
    assert.equal(await uniqueSlug('jazz', (s) => s === 'jazz'), 'jazz-2');
  });

  it('accepts an async predicate', async () => {
    assert.equal(await uniqueSlug('jazz', async (s) => s === 'jazz'), 'jazz-2');
  });

  it('keeps an empty base empty', async () => {
    assert.equal(await uniqueSlug('', () => true), '');
  });

  it('treats reserved slugs as taken', async () => {
    assert.equal(await uniqueSlug('feed', () => false, { reserved: RESERVED_POST_SLUGS }), 'feed-2');
    assert.equal(await uniqueSlug('feed', () => false), 'feed');
  });

  it('numbers encoded slugs, truncating them without breaking a character (_truncate_post_slug)', async () => {
    const base = sanitizeSlug('ж'.repeat(100)); // 198 bytes: '-2' still fits
    assert.equal(await uniqueSlug(base, (s) => s === base), `${base}-2`);
    const longer = `ab${base}`; // 200 bytes: the last character makes room for '-2'
    assert.equal(await uniqueSlug(longer, (s) => s === longer), `ab${'%d0%b6'.repeat(32)}-2`);
    assert.equal(await uniqueSlug(longer, (s) => s === longer || s.endsWith('-2')), `ab${'%d0%b6'.repeat(32)}-3`);
    assert.equal(await uniqueSlug('%d0%ba%d0%be%d1%82', (s) => s === '%d0%ba%d0%be%d1%82'), '%d0%ba%d0%be%d1%82-2');
    assert.equal(slugForLookup('Кот'), '%d0%ba%d0%be%d1%82');
    assert.equal(slugForLookup('%D0%BA%D0%BE%D1%82'), '%d0%ba%d0%be%d1%82');
  });

  it('truncates long bases so the result fits', async () => {
    const base = 'a'.repeat(200);
    const slug = await uniqueSlug(base, (s) => s === base);
    assert.equal(slug, `${'a'.repeat(198)}-2`);
    assert.equal(slug.length, 200);
  });
});
