/**
 * The one `Accept-Language` negotiator (domain/languages.ts) and the three faces that use it: the
 * admin pages, the submission form and its e-mails, the embeds.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pickLanguage } from '../../src/domain/languages.js';
import { messagesFor } from '../../src/admin/messages.js';
import { localeOf as embedLocale } from '../../src/embed/messages.js';
import { localeOf as submitterLocale } from '../../src/domain/submissions/locale.js';

const OFFERED = ['en', 'fr'] as const;

describe('pickLanguage', () => {
  it('takes the first offered language by quality, then by order; regions and case do not matter', () => {
    assert.equal(pickLanguage('de, fr-CA;q=0.8, en;q=0.5', OFFERED, 'en'), 'fr');
    assert.equal(pickLanguage('en;q=0.1, FR', OFFERED, 'en'), 'fr');
    assert.equal(pickLanguage('fr_FR', OFFERED, 'en'), 'fr');
    assert.equal(pickLanguage('es, de', OFFERED, 'en'), 'en');
  });
  it('q=0 means "not this one"', () => {
    assert.equal(pickLanguage('fr;q=0, en;q=0.2', OFFERED, 'fr'), 'en');
  });
  it('a chosen language wins when offered; missing or odd headers fall back', () => {
    assert.equal(pickLanguage('en', OFFERED, 'en', 'fr'), 'fr');
    assert.equal(pickLanguage('fr', OFFERED, 'en', 'xx'), 'fr');
    for (const header of [undefined, '', 42, ';;,,', '*']) assert.equal(pickLanguage(header, OFFERED, 'en'), 'en');
  });
});

describe('the faces negotiate alike', () => {
  const header = 'en;q=0.3, fr-BE;q=0.9';
  it('admin pages, submissions and embeds all answer French', () => {
    assert.equal(messagesFor(header).lang, 'fr');
    assert.equal(submitterLocale(header), 'fr');
    assert.equal(embedLocale(undefined, header), 'fr');
  });
  it("the embed's own locale argument is obeyed, an unknown one is English", () => {
    assert.equal(embedLocale('fr', 'en'), 'fr');
    assert.equal(embedLocale('de', 'fr'), 'en');
  });
});
