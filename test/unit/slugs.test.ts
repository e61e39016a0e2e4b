import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESERVED_POST_SLUGS, sanitizeSlug, uniqueSlug } from '../../src/domain/slugs.js';

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
    assert.equal(sanitizeSlug('日本'), '');
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

  it('truncates long bases so the result fits', async () => {
    const base = 'a'.repeat(200);
    const slug = await uniqueSlug(base, (s) => s === base);
    assert.equal(slug, `${'a'.repeat(198)}-2`);
    assert.equal(slug.length, 200);
  });
});
