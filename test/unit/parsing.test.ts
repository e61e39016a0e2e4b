/**
 * Request parsing as WordPress does it: type coercion of args, list and truthiness helpers,
 * PHP urlencode and the list URLs, search splitting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { coerceType } from '../../src/http/coerce.js';
import { isEmptyValue, isNumeric, isPositiveInt, isTruthy, listToArray } from '../../src/domain/values.js';
import { listUrls, phpUrlencode } from '../../src/http/paging.js';
import { searchWords } from '../../src/domain/events/index.js';
import { invalidParams, missingParams } from '../../src/domain/errors.js';

describe('coerceType (rest_parse_request_arg)', () => {
  it('coerces integers from numeric strings and rejects the rest', () => {
    assert.deepEqual(coerceType('page', '2', 'integer'), { ok: true, value: 2 });
    assert.deepEqual(coerceType('page', '2.0', 'integer'), { ok: true, value: 2 });
    assert.equal(coerceType('page', '1.5', 'integer').ok, false);
    assert.equal(coerceType('page', 'foo', 'integer').ok, false);
    assert.equal(coerceType('page', true, 'integer').ok, false);
  });
  it('accepts the WordPress boolean spellings only', () => {
    for (const v of [true, 'true', 'TRUE', '1', 1]) assert.deepEqual(coerceType('f', v, 'boolean'), { ok: true, value: true }, String(v));
    for (const v of [false, 'false', '0', 0]) assert.deepEqual(coerceType('f', v, 'boolean'), { ok: true, value: false }, String(v));
    const bad = coerceType('featured', 'yes', 'boolean');
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.failure.message, 'featured is not of type boolean.');
      assert.deepEqual(bad.failure.detail, { code: 'rest_invalid_type', message: 'featured is not of type boolean.', data: { param: 'featured' } });
    }
    assert.equal(coerceType('f', '', 'boolean').ok, false);
  });
  it('wants real strings for string args and numbers for number args', () => {
    assert.equal(coerceType('title', 12, 'string').ok, false);
    assert.deepEqual(coerceType('title', '12', 'string'), { ok: true, value: '12' });
    assert.deepEqual(coerceType('lat', '40.5', 'number'), { ok: true, value: 40.5 });
    assert.equal(coerceType('lat', 'north', 'number').ok, false);
  });
  it('splits CSV strings for array args', () => {
    assert.deepEqual(coerceType('a', '1, 2,3', 'array'), { ok: true, value: ['1', '2', '3'] });
    assert.deepEqual(coerceType('a', ['x'], 'array'), { ok: true, value: ['x'] });
  });
});

describe('value helpers (PHP semantics)', () => {
  it('listToArray splits, trims, drops empties and numbers numerics', () => {
    assert.deepEqual(listToArray('jazz, 2,, 3 '), ['jazz', 2, 3]);
    assert.deepEqual(listToArray(['a', '', '4']), ['a', 4]);
    assert.deepEqual(listToArray('jazz%2Cblues'), ['jazz', 'blues']);
    assert.deepEqual(listToArray(''), []);
    assert.deepEqual(listToArray(null), []);
  });
  it('isTruthy follows tribe_is_truthy', () => {
    for (const v of ['1', 'yes', 'on', 'true', 'Enabled', true, 2, '7']) assert.equal(isTruthy(v), true, String(v));
    for (const v of ['0', 'no', 'false', '', false, 0, null, 'off']) assert.equal(isTruthy(v), false, String(v));
  });
  it('isPositiveInt and isNumeric', () => {
    assert.equal(isPositiveInt('1'), true);
    assert.equal(isPositiveInt(' 3'), true);
    assert.equal(isPositiveInt('2.0'), true);
    for (const v of ['0', '-1', '1.5', 'foo', '', null]) assert.equal(isPositiveInt(v), false, String(v));
    assert.equal(isNumeric('1e3'), true);
    assert.equal(isNumeric('0x1A'), false);
  });
  it('isEmptyValue is PHP empty()', () => {
    for (const v of ['', '0', 0, false, null, undefined, []]) assert.equal(isEmptyValue(v), true, JSON.stringify(v));
    for (const v of ['a', '00', 1, true, [0]]) assert.equal(isEmptyValue(v), false, JSON.stringify(v));
  });
});

describe('list URLs', () => {
  const base = 'http://x/api/calendar/events/v1/events/';
  const query: Array<[string, string]> = [
    ['page', '2'],
    ['per_page', '2'],
    ['start_date', '2026-11-20 00:00:00'],
    ['status', 'publish'],
  ];
  it('phpUrlencode encodes like PHP urlencode', () => {
    assert.equal(phpUrlencode('2026-11-20 00:00:00'), '2026-11-20+00%3A00%3A00');
    assert.equal(phpUrlencode("a,b!*'()~"), 'a%2Cb%21%2A%27%28%29%7E');
    assert.equal(phpUrlencode('a-b_c.d'), 'a-b_c.d');
  });
  it('rest_url is raw; next/previous move page to the end, encoded', () => {
    const urls = listUrls(base, query, null, 2, 3);
    assert.equal(urls.rest_url, `${base}?page=2&per_page=2&start_date=2026-11-20 00:00:00&status=publish`);
    assert.equal(urls.next_rest_url, `${base}?per_page=2&start_date=2026-11-20+00%3A00%3A00&status=publish&page=3`);
    assert.equal(urls.previous_rest_url, `${base}?per_page=2&start_date=2026-11-20+00%3A00%3A00&status=publish`);
    const third = listUrls(base, [['page', '3'], ...query.slice(1)], null, 3, 3);
    assert.equal(third.next_rest_url, undefined);
    assert.match(third.previous_rest_url!, /&page=2$/);
  });
  it('appended venue/organizer/featured stay raw and encode the rest', () => {
    const urls = listUrls(base, query, [['organizer', '6,7']], 1, 1);
    assert.equal(urls.rest_url, `${base}?page=2&per_page=2&start_date=2026-11-20+00%3A00%3A00&status=publish&organizer=6,7`);
  });
});

describe('search words and error bodies', () => {
  it('splits words, keeps quoted phrases and exclusions', () => {
    assert.deepEqual(searchWords('jazz night'), ['jazz', 'night']);
    assert.deepEqual(searchWords('"jazz night" -blues'), ['jazz night', '-blues']);
    assert.deepEqual(searchWords('  -  a '), ['a']);
  });
  it('builds the WordPress parameter errors', () => {
    assert.deepEqual(missingParams(['title', 'end_date']).toJSON(), {
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): title, end_date',
      data: { status: 400, params: ['title', 'end_date'] },
    });
    assert.deepEqual(invalidParams({ page: 'Invalid parameter.' }).toJSON(), {
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): page',
      data: { status: 400, params: { page: 'Invalid parameter.' }, details: [] },
    });
  });
});
