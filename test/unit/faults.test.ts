import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isLostConnection, storeFault } from '../../src/store/faults.js';
import { faultError } from '../../src/domain/errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storeFault', () => {
  it('classifies PostgreSQL connection failures as unavailable', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08006', '08001', '08P01', '53300']) {
      assert.equal(storeFault(withCode(code)), 'unavailable', code);
    }
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Connection terminated',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
    ]) {
      assert.equal(storeFault(new Error(message)), 'unavailable', message);
    }
    const aggregate = Object.assign(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''), {});
    assert.equal(storeFault(aggregate), 'unavailable');
  });

  it('classifies SQLite and PostgreSQL busy, full and read-only states', () => {
    assert.equal(storeFault(withCode('SQLITE_BUSY')), 'busy');
    assert.equal(storeFault(withCode('SQLITE_BUSY_SNAPSHOT')), 'busy');
    assert.equal(storeFault(withCode('SQLITE_LOCKED')), 'busy');
    assert.equal(storeFault(withCode('SQLITE_FULL')), 'full');
    assert.equal(storeFault(withCode('53100')), 'full');
    assert.equal(storeFault(withCode('SQLITE_READONLY')), 'read-only');
    assert.equal(storeFault(withCode('SQLITE_READONLY_DBMOVED')), 'read-only');
    assert.equal(storeFault(withCode('25006')), 'read-only');
    assert.equal(storeFault(withCode('SQLITE_IOERR_WRITE')), 'unavailable');
  });

  it('leaves every other error alone (answered as before)', () => {
    for (const e of [
      new Error('boom'),
      withCode('23505'),
      withCode('42P01'),
      withCode('40P01'),
      withCode('SQLITE_CONSTRAINT_UNIQUE'),
      withCode('SQLITE_ERROR'),
      withCode('ERR_INVALID_ARG_TYPE'),
      null,
      'text',
      42,
    ]) {
      assert.equal(storeFault(e), undefined, String((e as { code?: string })?.code ?? e));
    }
  });

  it('tells a lost connection (worth another one) from a failure to connect', () => {
    assert.ok(isLostConnection(withCode('57P01')));
    assert.ok(isLostConnection(new Error('Connection terminated unexpectedly')));
    assert.ok(isLostConnection(withCode('ECONNRESET')));
    assert.ok(!isLostConnection(withCode('ECONNREFUSED')));
    assert.ok(!isLostConnection(new Error('timeout exceeded when trying to connect')));
    assert.ok(!isLostConnection(withCode('23505')));
  });
});

describe('faultError', () => {
  it('answers 503 with Retry-After, or 507 when full', () => {
    assert.deepEqual(
      [faultError('unavailable'), faultError('busy'), faultError('read-only'), faultError('full')].map((e) => [e.code, e.status, e.headers['retry-after']]),
      [
        ['rest_database_unavailable', 503, '5'],
        ['rest_database_busy', 503, '1'],
        ['rest_database_read_only', 503, '30'],
        ['rest_database_full', 507, undefined],
      ],
    );
    assert.deepEqual(faultError('busy').toJSON(), { code: 'rest_database_busy', message: 'The database is busy. Please try again shortly.', data: { status: 503 } });
  });
});
