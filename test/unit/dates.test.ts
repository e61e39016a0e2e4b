import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { dateDetails, endOfDay, fromWallTime, isoWithOffset, nowWall, startOfDay, toWallTime, utcToWall, wallToUtc } from '../../src/domain/dates/wall.js';
import { isValidTimezone, manualOffsetMinutes, zoneOf } from '../../src/domain/dates/zones.js';
import { parseDateInput } from '../../src/domain/dates/strtotime.js';
import { timezoneAbbr } from '../../src/domain/dates/abbreviations.js';

/** Saturday 2026-11-21 10:59:55 UTC (05:59:55 in New York). */
const NOW = DateTime.fromISO('2026-11-21T10:59:55Z');

/** Parse and render as a wall time in `tz`, or null. */
function wall(input: string | number, tz = 'UTC', now: DateTime = NOW): string | null {
  const dt = parseDateInput(input, tz, now);
  return dt ? toWallTime(dt) : null;
}

/** Parse and render as a UTC ISO instant, or null. */
function utc(input: string | number, tz: string, now: DateTime = NOW): string | null {
  const dt = parseDateInput(input, tz, now);
  return dt ? dt.toUTC().toISO({ suppressMilliseconds: true }) : null;
}

describe('isValidTimezone / zoneOf', () => {
  it('accepts IANA zones and UTC', () => {
    for (const tz of ['UTC', 'America/New_York', 'Europe/Rome', 'Australia/Sydney', 'Asia/Kolkata', 'Etc/GMT+5']) {
      assert.equal(isValidTimezone(tz), true, tz);
    }
  });

  it('accepts WordPress manual offsets', () => {
    for (const tz of ['UTC+5', 'UTC+2', 'UTC-3:30', 'UTC+5.5', 'UTC+5.75', 'UTC+0', 'UTC-12', 'UTC+14']) {
      assert.equal(isValidTimezone(tz), true, tz);
    }
  });

  it('rejects unknown or malformed zones', () => {
    for (const tz of ['Mars/Olympus', '', 'UTC+', 'UTC+15', 'UTC+5:75', 'UTCx', '+02:00', 'America/Nowhere', 'New York']) {
      assert.equal(isValidTimezone(tz), false, tz);
    }
  });

  it('zoneOf returns fixed-offset zones for manual offsets', () => {
    assert.equal(zoneOf('UTC+2').offset(0), 120);
    assert.equal(zoneOf('UTC-3:30').offset(0), -210);
    assert.equal(zoneOf('UTC+5.5').offset(0), 330);
    assert.equal(zoneOf('UTC+5.75').offset(0), 345);
    assert.equal(manualOffsetMinutes('UTC-9.5'), -570);
    assert.equal(manualOffsetMinutes('Europe/Rome'), null);
  });

  it('zoneOf returns IANA zones and throws on invalid input', () => {
    assert.equal(zoneOf('Europe/Rome').name, 'Europe/Rome');
    assert.equal(zoneOf('America/New_York').offset(Date.UTC(2027, 0, 15)), -300);
    assert.throws(() => zoneOf('Mars/Olympus'), RangeError);
    assert.throws(() => zoneOf('UTC+99'), RangeError);
  });
});

describe('parseDateInput: absolute forms', () => {
  const cases: Array<[string, string]> = [
    ['2026-12-01 10:00:00', '2026-12-01 10:00:00'],
    ['2026-12-01 10:00', '2026-12-01 10:00:00'],
    ['2026-12-01', '2026-12-01 00:00:00'],
    ['2026-12-01T10:00:00', '2026-12-01 10:00:00'],
    ['December 1, 2026 10am', '2026-12-01 10:00:00'],
    ['Dec 1 2026', '2026-12-01 00:00:00'],
    ['1 December 2026 10:30', '2026-12-01 10:30:00'],
    ['12/01/2026', '2026-12-01 00:00:00'], // US m/d/Y
    ['01-12-2026', '2026-12-01 00:00:00'], // d-m-Y
    ['01.12.2026', '2026-12-01 00:00:00'], // d.m.Y
    ['2018-01-01 4pm', '2018-01-01 16:00:00'],
    ['2026/12/01', '2026-12-01 00:00:00'],
    ['Dec. 1st, 2026', '2026-12-01 00:00:00'],
    ['Tuesday, December 1, 2026 7:30 pm', '2026-12-01 19:30:00'],
    ['December 2026', '2026-12-01 00:00:00'],
    ['2026-12-01 10:00:00.250', '2026-12-01 10:00:00'],
    ['12/1', '2026-12-01 00:00:00'], // current year
    ['December 1', '2026-12-01 00:00:00'],
    ['1 Dec', '2026-12-01 00:00:00'],
    ['12am', '2026-11-21 00:00:00'],
    ['12pm', '2026-11-21 12:00:00'],
    ['10:30 p.m.', '2026-11-21 22:30:00'],
  ];
  for (const [input, expected] of cases) {
    it(`parses '${input}'`, () => {
      assert.equal(wall(input), expected);
    });
  }

  it('is case-insensitive and trims whitespace', () => {
    assert.equal(wall('DECEMBER 1, 2026 10AM'), '2026-12-01 10:00:00');
    assert.equal(wall('  2026-12-01 10:00  '), '2026-12-01 10:00:00');
    assert.equal(wall('2026-12-01t10:00:00z'), '2026-12-01 10:00:00');
    assert.equal(wall('Tomorrow 9AM'), '2026-11-22 09:00:00');
    assert.equal(wall('NEXT Monday'), '2026-11-23 00:00:00');
  });
});

describe('parseDateInput: time zones', () => {
  it('interprets values without an offset as wall time in tz', () => {
    assert.equal(utc('2026-12-01 10:00:00', 'UTC'), '2026-12-01T10:00:00Z');
    assert.equal(utc('2026-12-01 10:00:00', 'America/New_York'), '2026-12-01T15:00:00Z');
    assert.equal(utc('2027-06-15 19:00', 'America/New_York'), '2027-06-15T23:00:00Z'); // EDT
    assert.equal(utc('December 1, 2026 10am', 'Europe/Rome'), '2026-12-01T09:00:00Z');
    assert.equal(wall('2026-12-01 10:00:00', 'America/New_York'), '2026-12-01 10:00:00');
  });

  it('treats ISO 8601 with an offset or Z as absolute', () => {
    assert.equal(utc('2026-12-01T10:00:00+02:00', 'UTC'), '2026-12-01T08:00:00Z');
    assert.equal(utc('2026-12-01T10:00:00+02:00', 'America/New_York'), '2026-12-01T08:00:00Z');
    assert.equal(utc('2026-12-01T10:00:00Z', 'America/New_York'), '2026-12-01T10:00:00Z');
    assert.equal(utc('2026-12-01T10:00:00.123-05:30', 'Asia/Tokyo'), '2026-12-01T15:30:00Z');
    assert.equal(utc('2026-12-01 10:00:00 -0500', 'UTC'), '2026-12-01T15:00:00Z');
    assert.equal(utc('2026-12-01 10:00 America/Chicago', 'UTC'), '2026-12-01T16:00:00Z');
    assert.equal(utc('Thu, 31 Jul 2003 13:02:01 GMT', 'Europe/Rome'), '2003-07-31T13:02:01Z');
  });

  it('returns the DateTime in zone tz', () => {
    const dt = parseDateInput('2026-12-01T10:00:00Z', 'America/New_York', NOW);
    assert.ok(dt);
    assert.equal(dt.zoneName, 'America/New_York');
    assert.equal(toWallTime(dt), '2026-12-01 05:00:00');
    const manual = parseDateInput('2026-12-01 10:00', 'UTC+2', NOW);
    assert.ok(manual);
    assert.equal(manual.offset, 120);
    assert.equal(manual.toUTC().toISO({ suppressMilliseconds: true }), '2026-12-01T08:00:00Z');
  });

  it('supports manual offsets with minutes', () => {
    assert.equal(utc('2026-12-01 10:00', 'UTC-3:30'), '2026-12-01T13:30:00Z');
    assert.equal(utc('2026-12-01 10:00', 'UTC+5.5'), '2026-12-01T04:30:00Z');
  });

  it('throws for an invalid tz argument', () => {
    assert.throws(() => parseDateInput('now', 'Mars/Olympus'), RangeError);
  });
});

describe('parseDateInput: Unix timestamps', () => {
  it('accepts numbers, digit strings and @timestamps as absolute instants', () => {
    for (const input of [1767225600, '1767225600', '@1767225600']) {
      assert.equal(utc(input, 'UTC'), '2026-01-01T00:00:00Z', String(input));
      assert.equal(utc(input, 'America/New_York'), '2026-01-01T00:00:00Z', String(input));
      assert.equal(wall(input, 'America/New_York'), '2025-12-31 19:00:00', String(input));
    }
    assert.equal(parseDateInput(1767225600, 'Europe/Rome')?.toSeconds(), 1767225600);
    assert.equal(utc('@1767225600 +1 day', 'Europe/Rome'), '2026-01-02T00:00:00Z');
  });

  it('rejects non-finite numbers', () => {
    assert.equal(parseDateInput(Number.NaN, 'UTC'), null);
    assert.equal(parseDateInput(Number.POSITIVE_INFINITY, 'UTC'), null);
  });
});

describe('parseDateInput: relative forms (now = Saturday 2026-11-21 10:59:55Z)', () => {
  const utcCases: Array<[string, string]> = [
    ['now', '2026-11-21 10:59:55'],
    ['today', '2026-11-21 00:00:00'],
    ['midnight', '2026-11-21 00:00:00'],
    ['noon', '2026-11-21 12:00:00'],
    ['tomorrow', '2026-11-22 00:00:00'],
    ['tomorrow 9am', '2026-11-22 09:00:00'],
    ['tomorrow noon', '2026-11-22 12:00:00'],
    ['today 14:00', '2026-11-21 14:00:00'],
    ['yesterday', '2026-11-20 00:00:00'],
    ['+1 week', '2026-11-28 10:59:55'],
    ['+5 days 11am', '2026-11-26 11:00:00'],
    ['-2 hours', '2026-11-21 08:59:55'],
    ['+1 week 2 days 4 hours 2 seconds', '2026-11-30 14:59:57'],
    ['3 days ago', '2026-11-18 10:59:55'],
    ['+1 month', '2026-12-21 10:59:55'],
    ['next month', '2026-12-21 10:59:55'],
    ['last year', '2025-11-21 10:59:55'],
    ['next monday', '2026-11-23 00:00:00'],
    ['next wednesday 4pm', '2026-11-25 16:00:00'],
    ['last friday', '2026-11-20 00:00:00'],
    ['monday', '2026-11-23 00:00:00'],
    ['saturday', '2026-11-21 00:00:00'], // today counts for a bare weekday
    ['next saturday', '2026-11-28 00:00:00'], // …but not for 'next'
    ['last saturday', '2026-11-14 00:00:00'],
    ['monday next week', '2026-11-23 00:00:00'],
    ['this week', '2026-11-16 10:59:55'], // PHP: Monday of the current week
    ['first day of next month', '2026-12-01 10:59:55'],
    ['midnight last day of next month', '2026-12-31 00:00:00'],
    ['2026-01-31 +1 month', '2026-03-03 00:00:00'], // PHP overflow semantics
    ['2026-12-01 10:00 +1 day', '2026-12-02 10:00:00'],
    // Issue 14: the weekday of a month and ordinals, each with PHP 8.2's strtotime answer.
    ['first monday of next month', '2026-12-07 00:00:00'],
    ['last friday of this month', '2026-11-27 00:00:00'],
    ['second tuesday of january 2027', '2027-01-12 00:00:00'],
    ['third wednesday of next month 7pm', '2026-12-16 19:00:00'],
    ['first saturday of december', '2026-12-05 00:00:00'],
    ['last sunday of march 2027', '2027-03-28 00:00:00'],
    ['third thursday of november', '2026-11-19 00:00:00'],
    ['first monday of january', '2026-01-05 00:00:00'], // this year's, as PHP
    ['first monday of', '2026-11-02 00:00:00'], // this month
    ['last monday of', '2026-11-30 00:00:00'],
    ['fifth friday of next month', '2027-01-01 00:00:00'], // December has four: PHP overflows
    ['twelfth friday of next month', '2027-02-19 00:00:00'],
    ['first mon of next month', '2026-12-07 00:00:00'],
    ['last fri of dec 2026', '2026-12-25 00:00:00'],
    ['second tue of jan', '2026-01-13 00:00:00'],
    ['first monday', '2026-11-23 00:00:00'], // without "of": the next Monday
    ['second friday', '2026-12-04 00:00:00'],
    ['last day of this month', '2026-11-30 10:59:55'],
    ['last day of february 2028', '2028-02-29 00:00:00'],
    ['tuesday this week', '2026-11-17 00:00:00'],
    ['sunday this week', '2026-11-22 00:00:00'],
    ['this friday', '2026-11-27 00:00:00'],
  ];
  for (const [input, expected] of utcCases) {
    it(`'${input}' in UTC`, () => {
      assert.equal(wall(input, 'UTC'), expected);
    });
  }

  it('evaluates relative expressions against now seen in tz', () => {
    // In New York, NOW is 2026-11-21 05:59:55 EST.
    assert.equal(wall('now', 'America/New_York'), '2026-11-21 05:59:55');
    assert.equal(wall('tomorrow 9am', 'America/New_York'), '2026-11-22 09:00:00');
    assert.equal(utc('tomorrow 9am', 'America/New_York'), '2026-11-22T14:00:00Z');
    assert.equal(wall('+1 week', 'America/New_York'), '2026-11-28 05:59:55');
    assert.equal(wall('tomorrow', 'America/New_York'), '2026-11-22 00:00:00');
    // 2026-11-21 22:30 in New York is already the 22nd in UTC.
    const lateEvening = DateTime.fromISO('2026-11-22T03:30:00Z');
    assert.equal(wall('tomorrow', 'America/New_York', lateEvening), '2026-11-22 00:00:00');
    assert.equal(wall('tomorrow', 'UTC', lateEvening), '2026-11-23 00:00:00');
    assert.equal(wall('today', 'Asia/Tokyo', lateEvening), '2026-11-22 00:00:00');
  });

  it("follows PHP: a time before 'tomorrow' is reset to midnight", () => {
    assert.equal(wall('9am tomorrow'), '2026-11-22 00:00:00');
    assert.equal(wall('noon tomorrow'), '2026-11-22 00:00:00');
  });

  it("'next <weekday>' from that weekday is the following week", () => {
    const monday = DateTime.fromISO('2026-11-23T12:00:00Z');
    assert.equal(wall('next monday', 'UTC', monday), '2026-11-30 00:00:00');
    assert.equal(wall('monday', 'UTC', monday), '2026-11-23 00:00:00');
    assert.equal(wall('last monday', 'UTC', monday), '2026-11-16 00:00:00');
  });

  it("'<ordinal> <weekday> of <month>' from other days, as PHP 8.2 answers", () => {
    // [now, input, PHP's strtotime answer in UTC]
    const cases: Array<[string, string, string]> = [
      ['2026-12-01T12:00:00Z', 'first tuesday of next month', '2027-01-05 00:00:00'],
      ['2026-12-01T12:00:00Z', 'first tuesday of this month', '2026-12-01 00:00:00'], // the 1st itself
      ['2026-12-01T12:00:00Z', 'last tuesday of next month', '2027-01-26 00:00:00'],
      ['2026-12-01T12:00:00Z', 'last friday of previous month', '2026-11-27 00:00:00'],
      ['2026-12-01T12:00:00Z', 'first friday of next month +1 week', '2027-01-08 00:00:00'],
      ['2027-02-28T23:30:00Z', 'last sunday of this month', '2027-02-28 00:00:00'],
      ['2027-02-28T23:30:00Z', 'second saturday of next month 10am', '2027-03-13 10:00:00'],
      ['2027-02-28T23:30:00Z', 'fifth monday of february 2027', '2027-03-01 00:00:00'],
      ['2026-09-07T08:00:00Z', 'fourth thursday of november 2026', '2026-11-26 00:00:00'],
      ['2026-09-07T08:00:00Z', 'first monday of next year', '2027-09-07 00:00:00'],
    ];
    for (const [now, input, php] of cases) assert.equal(wall(input, 'UTC', DateTime.fromISO(now)), php, `${input} at ${now}`);
    // Evaluated in the zone given: in Tokyo it is already December.
    assert.equal(wall('first monday of next month', 'Asia/Tokyo', DateTime.fromISO('2026-11-30T16:00:00Z')), '2027-01-04 00:00:00');
  });

  it("'monday next week' uses Monday-Sunday weeks", () => {
    assert.equal(wall('monday next week', 'UTC', DateTime.fromISO('2026-11-25T12:00:00Z')), '2026-11-30 00:00:00');
    assert.equal(wall('monday next week', 'UTC', DateTime.fromISO('2026-11-22T12:00:00Z')), '2026-11-23 00:00:00');
  });

  it('handles DST: calendar days keep wall time, hours are elapsed time', () => {
    const beforeSpring = DateTime.fromISO('2026-03-07T15:00:00Z'); // Sat 10:00 EST
    assert.equal(wall('tomorrow 9am', 'America/New_York', beforeSpring), '2026-03-08 09:00:00');
    assert.equal(utc('tomorrow 9am', 'America/New_York', beforeSpring), '2026-03-08T13:00:00Z'); // EDT
    assert.equal(wall('+1 day', 'America/New_York', beforeSpring), '2026-03-08 10:00:00');
    assert.equal(wall('+24 hours', 'America/New_York', beforeSpring), '2026-03-08 11:00:00');
    // a wall time in the spring-forward gap shifts forward
    assert.equal(wall('2026-03-08 02:30', 'America/New_York'), '2026-03-08 03:30:00');
  });
});

describe('parseDateInput: rejects garbage', () => {
  const bad = [
    'not a date',
    'foo',
    'before my birthday',
    '',
    '   ',
    '2026-13-45',
    '2026-02-30',
    '02/30/2026',
    'December 32, 2026',
    'nowhere',
    'tomorrowish',
    'next',
    '+1',
    'the 1st of december 2026',
    '10am 11am',
    '2026-12-01 2026-12-02',
    '13pm',
    '25:00',
    '10:61',
    'utc',
    '2026-12-01 10:00 Mars/Olympus',
    'dec 1 2026 and then some',
    '+9999999999999 days',
    '@99999999999999999999',
    // PHP rejects these too (strtotime answers false).
    'this weekend',
    'next weekend',
    'weekend',
    'first weekend of next month',
    'every monday',
    'last weekday of this month',
  ];
  for (const input of bad) {
    it(`returns null for ${JSON.stringify(input)}`, () => {
      assert.equal(parseDateInput(input, 'UTC', NOW), null);
      assert.equal(parseDateInput(input, 'America/New_York', NOW), null);
    });
  }
});

describe('wall time helpers', () => {
  it('toWallTime / fromWallTime round-trip', () => {
    const dt = fromWallTime('2027-06-15 19:00:00', 'America/New_York');
    assert.equal(dt.toUTC().toISO({ suppressMilliseconds: true }), '2027-06-15T23:00:00Z');
    assert.equal(toWallTime(dt), '2027-06-15 19:00:00');
    assert.equal(toWallTime(DateTime.fromISO('2026-12-01T10:00:00', { zone: 'UTC' })), '2026-12-01 10:00:00');
  });

  it('fromWallTime throws on malformed wall times', () => {
    assert.throws(() => fromWallTime('2026-02-30 10:00:00', 'UTC'), RangeError);
    assert.throws(() => fromWallTime('tomorrow', 'UTC'), RangeError);
    assert.throws(() => fromWallTime('2026-12-01 10:00:00', 'Mars/Olympus'), RangeError);
  });

  it('wallToUtc / utcToWall across DST', () => {
    assert.equal(wallToUtc('2027-06-15 19:00:00', 'America/New_York'), '2027-06-15 23:00:00');
    assert.equal(wallToUtc('2027-01-15 19:00:00', 'America/New_York'), '2027-01-16 00:00:00');
    assert.equal(wallToUtc('2026-03-08 01:30:00', 'America/New_York'), '2026-03-08 06:30:00'); // EST
    assert.equal(wallToUtc('2026-03-08 03:30:00', 'America/New_York'), '2026-03-08 07:30:00'); // EDT
    assert.equal(utcToWall('2027-06-15 23:00:00', 'America/New_York'), '2027-06-15 19:00:00');
    assert.equal(utcToWall('2027-01-16 00:00:00', 'America/New_York'), '2027-01-15 19:00:00');
    // both UTC instants map to 01:30 on the fall-back night
    assert.equal(utcToWall('2026-11-01 05:30:00', 'America/New_York'), '2026-11-01 01:30:00');
    assert.equal(utcToWall('2026-11-01 06:30:00', 'America/New_York'), '2026-11-01 01:30:00');
    assert.equal(wallToUtc('2026-07-01 12:00:00', 'Europe/Rome'), '2026-07-01 10:00:00');
    assert.equal(wallToUtc('2026-12-01 12:00:00', 'UTC'), '2026-12-01 12:00:00');
  });

  it('wallToUtc / utcToWall with manual offsets', () => {
    assert.equal(wallToUtc('2027-01-15 19:00:00', 'UTC+2'), '2027-01-15 17:00:00');
    assert.equal(wallToUtc('2027-01-15 19:00:00', 'UTC-3:30'), '2027-01-15 22:30:00');
    assert.equal(wallToUtc('2027-01-15 19:00:00', 'UTC+5.5'), '2027-01-15 13:30:00');
    assert.equal(utcToWall('2027-01-15 22:30:00', 'UTC-3:30'), '2027-01-15 19:00:00');
    assert.equal(utcToWall('2027-01-15 23:00:00', 'UTC+2'), '2027-01-16 01:00:00');
  });

  it('dateDetails returns zero-padded strings in key order', () => {
    const details = dateDetails('2026-12-05 20:00:00');
    assert.deepEqual(details, { year: '2026', month: '12', day: '05', hour: '20', minutes: '00', seconds: '00' });
    assert.deepEqual(Object.keys(details), ['year', 'month', 'day', 'hour', 'minutes', 'seconds']);
    assert.deepEqual(dateDetails('2027-01-02 03:04:05'), {
      year: '2027',
      month: '01',
      day: '02',
      hour: '03',
      minutes: '04',
      seconds: '05',
    });
  });

  it('startOfDay / endOfDay', () => {
    assert.equal(startOfDay('2026-12-05 20:15:30'), '2026-12-05 00:00:00');
    assert.equal(endOfDay('2026-12-05 20:15:30'), '2026-12-05 23:59:59');
    assert.equal(startOfDay('2026-12-05 00:00:00'), '2026-12-05 00:00:00');
    assert.equal(endOfDay('2026-12-05 23:59:59'), '2026-12-05 23:59:59');
  });

  it('isoWithOffset', () => {
    assert.equal(isoWithOffset('2027-06-15 19:00:00', 'America/New_York'), '2027-06-15T19:00:00-04:00');
    assert.equal(isoWithOffset('2027-01-15 19:00:00', 'America/New_York'), '2027-01-15T19:00:00-05:00');
    assert.equal(isoWithOffset('2027-06-15 19:00:00', 'UTC'), '2027-06-15T19:00:00+00:00');
    assert.equal(isoWithOffset('2027-06-15 19:00:00', 'UTC-3:30'), '2027-06-15T19:00:00-03:30');
    assert.equal(isoWithOffset('2027-06-15 19:00:00', 'Asia/Kolkata'), '2027-06-15T19:00:00+05:30');
  });

  it('nowWall', () => {
    assert.equal(nowWall('UTC', NOW), '2026-11-21 10:59:55');
    assert.equal(nowWall('America/New_York', NOW), '2026-11-21 05:59:55');
    assert.equal(nowWall('UTC+2', NOW), '2026-11-21 12:59:55');
    assert.match(nowWall('Europe/Rome'), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
});

describe('timezoneAbbr', () => {
  const winter = '2026-01-15 12:00:00';
  const summer = '2026-07-15 12:00:00';
  const cases: Array<[string, string, string]> = [
    ['America/New_York', winter, 'EST'],
    ['America/New_York', summer, 'EDT'],
    ['America/Chicago', winter, 'CST'],
    ['America/Chicago', summer, 'CDT'],
    ['America/Los_Angeles', winter, 'PST'],
    ['America/Los_Angeles', summer, 'PDT'],
    ['America/Denver', winter, 'MST'],
    ['America/Phoenix', summer, 'MST'],
    ['UTC', summer, 'UTC'],
    ['Europe/Rome', winter, 'CET'],
    ['Europe/Rome', summer, 'CEST'],
    ['Europe/London', winter, 'GMT'],
    ['Europe/London', summer, 'BST'],
    ['Australia/Sydney', summer, 'AEST'], // July is winter down under
    ['Australia/Sydney', winter, 'AEDT'],
    ['Australia/Darwin', winter, 'ACST'],
    ['Asia/Tokyo', winter, 'JST'],
    ['Asia/Kolkata', winter, 'IST'],
    ['US/Eastern', summer, 'EDT'], // alias resolved
    ['Asia/Singapore', winter, '+08'], // PHP numeric style
    ['America/Sao_Paulo', winter, '-03'],
    ['Asia/Kathmandu', winter, '+0545'],
    ['UTC+2', winter, 'UTC+2'], // manual offsets return themselves
    ['UTC-3:30', summer, 'UTC-3:30'],
  ];
  for (const [tz, at, expected] of cases) {
    it(`${tz} at ${at} → ${expected}`, () => {
      assert.equal(timezoneAbbr(tz, at), expected);
    });
  }

  it('switches exactly at the DST boundary', () => {
    assert.equal(timezoneAbbr('America/New_York', '2026-03-08 01:59:59'), 'EST');
    assert.equal(timezoneAbbr('America/New_York', '2026-03-08 03:00:00'), 'EDT');
  });

  it('throws for an invalid zone', () => {
    assert.throws(() => timezoneAbbr('Mars/Olympus', winter), RangeError);
  });
});
