import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canSeeProtected, isProtected, MAX_POST_PASSWORD_LENGTH, passwordFailure, passwordMatches } from '../../src/domain/post-passwords.js';

describe('post passwords (WordPress post_password)', () => {
  it('a record is protected when its password is not empty', () => {
    assert.equal(isProtected({ password: 'secret' }), true);
    assert.equal(isProtected({ password: ' ' }), true, 'stored as given: a space is a password');
    assert.equal(isProtected({ password: '' }), false);
    assert.equal(isProtected({}), false);
    assert.equal(isProtected({ password: null }), false);
  });

  it('the given password must equal the stored one exactly', () => {
    assert.equal(passwordMatches({ password: 'secret' }, 'secret'), true);
    assert.equal(passwordMatches({ password: 'Mot de passe é' }, 'Mot de passe é'), true);
    for (const given of ['Secret', 'secret ', ' secret', 'secre', 'secrets', '', undefined, null, 42, ['secret']]) {
      assert.equal(passwordMatches({ password: 'secret' }, given), false, JSON.stringify(given));
    }
    assert.equal(passwordMatches({ password: '' }, ''), false, 'no password matches nothing');
    assert.equal(passwordMatches({ password: '' }, 'x'), false);
  });

  it('a reader sees a record without a password, and a protected one only with it', () => {
    assert.equal(canSeeProtected({ password: '' }, undefined), true);
    assert.equal(canSeeProtected({ password: 'p' }, undefined), false);
    assert.equal(canSeeProtected({ password: 'p' }, 'q'), false);
    assert.equal(canSeeProtected({ password: 'p' }, 'p'), true);
  });

  it('a written password is a string of at most 255 characters, NUL excepted', () => {
    assert.equal(passwordFailure(''), undefined);
    assert.equal(passwordFailure('x'.repeat(MAX_POST_PASSWORD_LENGTH)), undefined);
    assert.equal(passwordFailure('é'.repeat(MAX_POST_PASSWORD_LENGTH)), undefined, 'characters, not bytes');
    assert.equal(passwordFailure('😀'.repeat(MAX_POST_PASSWORD_LENGTH)), undefined, 'code points, not UTF-16 units');
    assert.match(passwordFailure('x'.repeat(MAX_POST_PASSWORD_LENGTH + 1))!, /at most 255/);
    assert.match(passwordFailure(12)!, /string/);
    assert.match(passwordFailure('a\u0000b')!, /NUL/);
  });
});
