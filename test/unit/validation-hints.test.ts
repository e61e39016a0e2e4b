/**
 * Issue 25: the hints of refused dates and zones promise only what is accepted, and the title
 * validator trims as PHP's trim() does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { DATE_INPUT_FORMS, TIMEZONE_EXAMPLES, dateInputHint, invalidDateFailure, invalidTimezoneFailure, timezoneHint } from '../../src/domain/dates/hints.js';
import { isValidTimezone } from '../../src/domain/dates/zones.js';
import { parseDateInput } from '../../src/domain/dates/strtotime.js';
import { isNonBlankTitle, phpTrim } from '../../src/domain/text/php.js';

const NOW = DateTime.fromISO('2026-11-21T10:59:55Z');

describe('date and zone hints', () => {
  it('every example of every accepted form parses, in several zones', () => {
    for (const { form, examples } of DATE_INPUT_FORMS)
      for (const example of examples) for (const tz of ['UTC', 'Europe/Rome', 'UTC-3:30']) assert.ok(parseDateInput(example, tz, NOW), `${form}: ${example} in ${tz}`);
  });

  it('the examples of a form are of that form', () => {
    const byForm = Object.fromEntries(DATE_INPUT_FORMS.map((f) => [f.form, f.examples]));
    assert.deepEqual(byForm['Y-m-d H:i:s'], ['2027-01-15 19:00:00']);
    assert.deepEqual(byForm['Y-m-d'], ['2027-01-15']);
    assert.equal(parseDateInput(byForm['a Unix timestamp']![0]!, 'UTC')!.toUTC().toISO(), '2027-01-15T08:00:00.000Z');
    assert.equal(parseDateInput(byForm['ISO 8601']![0]!, 'America/New_York')!.toUTC().toISO(), '2027-01-15T18:00:00.000Z', 'the offset wins over the zone');
  });

  it('every zone the hint names is valid', () => {
    for (const zone of [...TIMEZONE_EXAMPLES.iana, ...TIMEZONE_EXAMPLES.offsets]) assert.ok(isValidTimezone(zone), zone);
    for (const zone of [...TIMEZONE_EXAMPLES.iana, ...TIMEZONE_EXAMPLES.offsets]) assert.ok(timezoneHint().includes(zone), zone);
  });

  it('builds WordPress-shaped failures: plain params message, hint in the detail', () => {
    assert.deepEqual(invalidDateFailure('start_date', 'UTC'), {
      message: 'Invalid parameter.',
      detail: { code: 'rest_invalid_date', message: dateInputHint('UTC'), data: { param: 'start_date' } },
    });
    assert.match(dateInputHint('UTC'), /^Invalid date\. Accepted forms: Y-m-d H:i:s \(2027-01-15 19:00:00\); .*; years 1 to 9999\. A time without an offset is read in UTC\.$/);
    assert.deepEqual(invalidTimezoneFailure('timezone'), { message: 'Invalid parameter.', detail: { code: 'rest_invalid_timezone', message: timezoneHint(), data: { param: 'timezone' } } });
  });
});

describe('titles', () => {
  it('trims what PHP trim trims, not NBSP or other Unicode spaces', () => {
    assert.equal(phpTrim(' \t\n\r\0\x0B x \x0B\0\r\n\t '), 'x');
    assert.equal(phpTrim('\u00a0x\u2003'), '\u00a0x\u2003');
    assert.equal(phpTrim('\f x'), '\f x', 'form feed is not in PHP trim’s default list');
  });

  it('refuses empty, "0" and whitespace-only titles, accepts the rest', () => {
    for (const v of ['', '0', ' ', '\t', '\n', '\r\n', '\0', '\x0B', ' \t\n ', null, undefined, 0, 1, [], {}]) assert.equal(isNonBlankTitle(v), false, JSON.stringify(v));
    for (const v of ['x', ' x ', '\u00a0', '\u2003', ' 0 ', '00', '\f']) assert.equal(isNonBlankTitle(v), true, JSON.stringify(v));
  });
});
