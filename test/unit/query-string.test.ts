import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import qs from 'qs';
import { MAX_PARAMETER_DEPTH, MAX_PARAMETERS, parseQuery, refusalOf } from '../../src/web/query-string.js';

const QS_OPTIONS = { depth: MAX_PARAMETER_DEPTH, strictDepth: true, arrayLimit: 200, parameterLimit: MAX_PARAMETERS, allowDots: false } as const;

describe('query strings (web/query-string.ts)', () => {
  it('parses plain query strings without qs to exactly what qs makes', () => {
    const cases = [
      '',
      'per_page=10',
      'page=2&per_page=10&start_date=2026-01-01',
      'a=&b=',
      'a',
      'a=1&',
      '&a=1',
      'a=1&a=2',
      'constructor=1',
      'toString=x&a=1',
      '__proto__=1',
      'hasOwnProperty=1',
      'a.b=1',
      'a=1.5&b=-1&c=_&d=9:00&e=x,y,z',
      'A_B-c=value',
      'a=%20b&c=d+e',
      'a[b]=1&a[c]=2',
      'a[]=1&a[]=2',
      'categories=1,2,3&tags[]=4',
      Array.from({ length: 40 }, (_, i) => `p${i}=${i}`).join('&'),
    ];
    for (const text of cases) {
      const ours = parseQuery(text);
      const theirs = qs.parse(text, QS_OPTIONS);
      assert.deepEqual(ours, theirs, text);
      assert.equal(Object.getPrototypeOf(ours), Object.getPrototypeOf(theirs), text);
      assert.equal(refusalOf(ours), undefined, text);
    }
  });

  it('still refuses too many parameters', () => {
    const text = Array.from({ length: MAX_PARAMETERS + 1 }, (_, i) => `p${i}=1`).join('&');
    assert.equal(refusalOf(parseQuery(text))?.code, 'rest_too_many_params');
  });
});
