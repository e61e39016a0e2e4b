/**
 * Issue 28: the admin face's pure helpers: the session cookie's path, the cookie header parser,
 * the language of the message catalogue, and WordPress-style nonces (ticks of 12 hours, valid for
 * two).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commonPath, cookieOf } from '../../src/web/sessions.js';
import { messagesFor } from '../../src/admin/messages.js';
import { createSessionService, NONCE_TICK_MS, type Session } from '../../src/domain/sessions.js';
import type { Store } from '../../src/store/db.js';

describe('admin face helpers', () => {
  it('puts the cookie on the longest path common to the admin face and the REST roots', () => {
    assert.equal(commonPath(['/admin', '/api', '/wp-json']), '/');
    assert.equal(commonPath(['/site/admin', '/site/api']), '/site');
    assert.equal(commonPath(['/site/admin', '/site/adminx']), '/site');
    assert.equal(commonPath(['/wp-json/admin', '/wp-json']), '/wp-json');
  });

  it('reads one cookie from a Cookie header', () => {
    assert.equal(cookieOf('a=1; calendar_session=abc; b=2', 'calendar_session'), 'abc');
    assert.equal(cookieOf('xcalendar_session=abc', 'calendar_session'), undefined);
    assert.equal(cookieOf(undefined, 'calendar_session'), undefined);
  });

  it('chooses the language from Accept-Language (by q), English otherwise', () => {
    assert.equal(messagesFor(undefined).lang, 'en');
    assert.equal(messagesFor('fr-FR,fr;q=0.9').lang, 'fr');
    assert.equal(messagesFor('de, fr;q=0.5, en;q=0.8').lang, 'en');
    assert.equal(messagesFor('de, fr;q=0.5').lang, 'fr');
    assert.equal(messagesFor('fr;q=0, en').lang, 'en');
    assert.equal(messagesFor('de').lang, 'en');
  });

  it('makes nonces valid during their tick and the next one, bound to the session and the action', () => {
    let now = Date.UTC(2027, 0, 1, 0, 0, 1);
    const clock = { nowGmt: () => new Date(now).toISOString().slice(0, 19).replace('T', ' '), nowLocal: () => '' };
    // A store with a change feed that never moves (the service only subscribes to it here).
    const store = { db: {}, feed: { subscribe: () => {}, sync: async () => 0, seq: () => 0 } } as unknown as Store;
    const sessions = createSessionService(
      { store, users: { authenticate: async () => ({ id: 0, login: '', role: null, caps: new Set() }) }, clock, config: { siteName: 'x' } },
      { idleMs: 1, maxAgeMs: 1, require2fa: 'off' },
    );
    const session = { userId: 7 } as Session;
    const token = 'a'.repeat(43);
    const nonce = sessions.nonce(token, session, 'wp_rest');
    assert.match(nonce, /^[0-9a-f]{20}$/);
    assert.equal(sessions.verifyNonce(token, session, nonce, 'wp_rest'), 1);
    assert.equal(sessions.verifyNonce(token, session, nonce, 'account'), false, 'another action');
    assert.equal(sessions.verifyNonce('b'.repeat(43), session, nonce, 'wp_rest'), false, 'another session');
    assert.equal(sessions.verifyNonce(token, { userId: 8 } as Session, nonce, 'wp_rest'), false, 'another user');
    now += NONCE_TICK_MS;
    assert.equal(sessions.verifyNonce(token, session, nonce, 'wp_rest'), 2, 'the next tick');
    now += NONCE_TICK_MS;
    assert.equal(sessions.verifyNonce(token, session, nonce, 'wp_rest'), false, 'two ticks later');
  });
});
