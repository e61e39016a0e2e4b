/**
 * Recurrence rules (issue 15): fixed vectors across daylight-saving changes in several zones,
 * month ends, ordinals, COUNT vs UNTIL, EXDATE/RDATE, the gap rule, validation errors, and the
 * same instants from a process running under TZ=Pacific/Auckland.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { expandOccurrences, horizonWall, isClearingRecurrence, parseRecurrence, type SeriesStart } from '../../src/domain/recurrence.js';
import { ApiError } from '../../src/domain/errors.js';

const FAR = '2040-01-01 00:00:00';

function starts(lines: string[], first: SeriesStart, horizon = FAR) {
  return expandOccurrences(parseRecurrence(lines), first, horizon).map((o) => `${o.start_local}|${o.start_utc}`);
}

function timed(start: string, end: string, timezone: string): SeriesStart {
  return { start_local: start, end_local: end, timezone, all_day: false };
}

describe('recurrence expansion: fixed vectors', () => {
  it('America/New_York: a weekly 19:00 stays at 19:00 local across the spring change', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=3'], timed('2026-03-01 19:00:00', '2026-03-01 20:00:00', 'America/New_York')), [
      '2026-03-01 19:00:00|2026-03-02 00:00:00',
      '2026-03-08 19:00:00|2026-03-08 23:00:00',
      '2026-03-15 19:00:00|2026-03-15 23:00:00',
    ]);
  });

  it('America/New_York: a local time inside the gap is shifted forward by the gap (not skipped)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=3'], timed('2026-03-01 02:30:00', '2026-03-01 03:00:00', 'America/New_York')), [
      '2026-03-01 02:30:00|2026-03-01 07:30:00',
      '2026-03-08 03:30:00|2026-03-08 07:30:00',
      '2026-03-15 02:30:00|2026-03-15 06:30:00',
    ]);
  });

  it('America/New_York: the fall change keeps 19:00 local', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;COUNT=2'], timed('2026-10-25 19:00:00', '2026-10-25 21:00:00', 'America/New_York')), [
      '2026-10-25 19:00:00|2026-10-25 23:00:00',
      '2026-11-01 19:00:00|2026-11-02 00:00:00',
    ]);
  });

  it('Europe/London: BYDAY=-1FR (last Friday) across the March change', () => {
    assert.deepEqual(starts(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4'], timed('2026-01-30 19:00:00', '2026-01-30 21:00:00', 'Europe/London')), [
      '2026-01-30 19:00:00|2026-01-30 19:00:00',
      '2026-02-27 19:00:00|2026-02-27 19:00:00',
      '2026-03-27 19:00:00|2026-03-27 19:00:00',
      '2026-04-24 19:00:00|2026-04-24 18:00:00',
    ]);
  });

  it('Australia/Sydney: daily 09:00 across the April change (southern autumn)', () => {
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;COUNT=4'], timed('2026-04-03 09:00:00', '2026-04-03 10:00:00', 'Australia/Sydney')), [
      '2026-04-03 09:00:00|2026-04-02 22:00:00',
      '2026-04-04 09:00:00|2026-04-03 22:00:00',
      '2026-04-05 09:00:00|2026-04-04 23:00:00',
      '2026-04-06 09:00:00|2026-04-05 23:00:00',
    ]);
  });

  it('Australia/Sydney: 02:30 on the October gap night becomes 03:30', () => {
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;COUNT=3'], timed('2026-10-03 02:30:00', '2026-10-03 03:00:00', 'Australia/Sydney')), [
      '2026-10-03 02:30:00|2026-10-02 16:30:00',
      '2026-10-04 03:30:00|2026-10-03 16:30:00',
      '2026-10-05 02:30:00|2026-10-04 15:30:00',
    ]);
  });

  it('Asia/Kolkata: no daylight-saving time, a constant +05:30', () => {
    assert.deepEqual(starts(['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=3'], timed('2026-03-05 18:30:00', '2026-03-05 20:00:00', 'Asia/Kolkata')), [
      '2026-03-05 18:30:00|2026-03-05 13:00:00',
      '2026-03-19 18:30:00|2026-03-19 13:00:00',
      '2026-04-02 18:30:00|2026-04-02 13:00:00',
    ]);
  });

  it('all-day series: whole days in the event zone, the same number of days each', () => {
    const out = expandOccurrences(
      parseRecurrence(['RRULE:FREQ=WEEKLY;COUNT=3']),
      { start_local: '2026-03-07 00:00:00', end_local: '2026-03-08 23:59:59', timezone: 'America/New_York', all_day: true },
      FAR,
    );
    assert.deepEqual(
      out.map((o) => [o.start_local, o.end_local, o.start_utc]),
      [
        ['2026-03-07 00:00:00', '2026-03-08 23:59:59', '2026-03-07 05:00:00'],
        ['2026-03-14 00:00:00', '2026-03-15 23:59:59', '2026-03-14 04:00:00'],
        ['2026-03-21 00:00:00', '2026-03-22 23:59:59', '2026-03-21 04:00:00'],
      ],
    );
  });

  it('BYMONTHDAY=31 skips months without a 31st; BYMONTHDAY=-1 is every month end', () => {
    const first = timed('2026-01-31 10:00:00', '2026-01-31 11:00:00', 'UTC');
    assert.deepEqual(
      starts(['RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4'], first).map((s) => s.slice(0, 10)),
      ['2026-01-31', '2026-03-31', '2026-05-31', '2026-07-31'],
    );
    assert.deepEqual(
      starts(['RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4'], first).map((s) => s.slice(0, 10)),
      ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30'],
    );
  });

  it('COUNT and UNTIL give the same set when they should; UNTIL (UTC) is inclusive, UNTIL as a date covers that day', () => {
    const first = timed('2026-03-07 02:30:00', '2026-03-07 03:30:00', 'America/New_York');
    const expected = ['2026-03-07 02:30:00|2026-03-07 07:30:00', '2026-03-08 03:30:00|2026-03-08 07:30:00', '2026-03-09 02:30:00|2026-03-09 06:30:00'];
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;COUNT=3'], first), expected);
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;UNTIL=20260309T063000Z'], first), expected);
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;UNTIL=20260309T062959Z'], first), expected.slice(0, 2));
    assert.deepEqual(starts(['RRULE:FREQ=DAILY;UNTIL=20260309'], first), expected);
  });

  it('EXDATE removes (COUNT counts before it, RFC 5545); RDATE adds; both in any of their forms', () => {
    const first = timed('2026-03-03 19:00:00', '2026-03-03 20:00:00', 'Europe/London');
    assert.deepEqual(
      starts(
        ['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE:20260310T190000', 'RDATE:20260312T190000', 'EXDATE:20260317T190000Z', 'EXDATE;VALUE=DATE:20260324', 'RDATE;TZID=America/New_York:20260401T140000'],
        first,
      ),
      ['2026-03-03 19:00:00|2026-03-03 19:00:00', '2026-03-12 19:00:00|2026-03-12 19:00:00', '2026-03-31 19:00:00|2026-03-31 18:00:00', '2026-04-01 19:00:00|2026-04-01 18:00:00'],
    );
  });

  it('RDATE-only sets, and BYSETPOS (last weekday of the month)', () => {
    const first = timed('2026-03-03 19:00:00', '2026-03-03 20:00:00', 'UTC');
    assert.deepEqual(
      starts(['RDATE;VALUE=DATE:20260305,20260301'], first).map((s) => s.slice(0, 16)),
      ['2026-03-01 19:00', '2026-03-03 19:00', '2026-03-05 19:00'],
    );
    assert.deepEqual(
      starts(['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3'], timed('2026-03-31 19:00:00', '2026-03-31 20:00:00', 'UTC')).map((s) => s.slice(0, 10)),
      ['2026-03-31', '2026-04-30', '2026-05-29'],
    );
  });

  it('WKST changes which weeks INTERVAL=2 picks (RFC 5545 example)', () => {
    const first = timed('1997-08-05 09:00:00', '1997-08-05 10:00:00', 'UTC');
    assert.deepEqual(
      starts(['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO'], first).map((s) => s.slice(0, 10)),
      ['1997-08-05', '1997-08-10', '1997-08-19', '1997-08-24'],
    );
    assert.deepEqual(
      starts(['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU'], first).map((s) => s.slice(0, 10)),
      ['1997-08-05', '1997-08-17', '1997-08-19', '1997-08-31'],
    );
  });

  it('timed occurrences last as many seconds as the first, across a change', () => {
    const out = expandOccurrences(parseRecurrence(['RRULE:FREQ=WEEKLY;COUNT=2']), timed('2026-03-07 23:00:00', '2026-03-08 01:00:00', 'America/New_York'), FAR);
    assert.deepEqual(
      out.map((o) => [o.start_local, o.end_local]),
      [
        ['2026-03-07 23:00:00', '2026-03-08 01:00:00'],
        ['2026-03-14 23:00:00', '2026-03-15 01:00:00'],
      ],
    );
    const across = expandOccurrences(parseRecurrence(['RRULE:FREQ=WEEKLY;COUNT=2']), timed('2026-02-28 01:00:00', '2026-02-28 04:00:00', 'America/New_York'), FAR);
    assert.deepEqual(
      across.map((o) => o.end_local),
      ['2026-02-28 04:00:00', '2026-03-07 04:00:00'],
    );
    const gapNight = expandOccurrences(parseRecurrence(['RRULE:FREQ=DAILY;COUNT=2']), timed('2026-03-07 01:00:00', '2026-03-07 02:00:00', 'America/New_York'), FAR);
    assert.deepEqual(
      gapNight.map((o) => [o.start_local, o.end_local]),
      [
        ['2026-03-07 01:00:00', '2026-03-07 02:00:00'],
        ['2026-03-08 01:00:00', '2026-03-08 03:00:00'],
      ],
    );
  });

  it('rules without an end stop at the horizon (exclusive)', () => {
    const out = expandOccurrences(parseRecurrence(['RRULE:FREQ=WEEKLY']), timed('2026-03-03 19:00:00', '2026-03-03 20:00:00', 'UTC'), '2026-03-24 19:00:00');
    assert.deepEqual(
      out.map((o) => o.start_local.slice(0, 10)),
      ['2026-03-03', '2026-03-10', '2026-03-17'],
    );
    assert.equal(horizonWall('Europe/London', 60, DateTime.fromISO('2026-11-23T10:00:00Z')), '2031-11-23 00:00:00');
  });
});

describe('recurrence validation', () => {
  const problem = (lines: unknown): { params: string; line: unknown } => {
    try {
      parseRecurrence(lines);
    } catch (err) {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'rest_invalid_param');
      assert.equal(err.status, 400);
      const data = err.data as { params: Record<string, string>; details: Record<string, { data: { line: number } }> };
      return { params: data.params.recurrence!, line: (data.details as Record<string, { data: { line: number } }>).recurrence?.data.line };
    }
    assert.fail(`accepted ${JSON.stringify(lines)}`);
  };

  it('names the line and the problem', () => {
    assert.match(problem(['RRULE:COUNT=3']).params, /^Line 1 .*FREQ is required/);
    assert.match(problem(['RRULE:FREQ=HOURLY']).params, /FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY/);
    assert.match(problem(['RRULE:FREQ=WEEKLY;BYDAY=1MO']).params, /ordinals .* only allowed with FREQ=MONTHLY or FREQ=YEARLY/);
    assert.match(problem(['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20270101']).params, /COUNT and UNTIL must not both be given/);
    assert.match(problem(['RRULE:FREQ=DAILY;BYHOUR=3']).params, /BYHOUR is not supported/);
    assert.match(problem(['RRULE:FREQ=MONTHLY;BYMONTHDAY=32']).params, /BYMONTHDAY value 32 is out of range/);
    assert.match(problem(['RRULE:FREQ=WEEKLY;BYDAY=XX']).params, /BYDAY value "XX" is not a weekday/);
    assert.match(problem(['RRULE:FREQ=WEEKLY;INTERVAL=0']).params, /INTERVAL value 0 is out of range/);
    assert.match(problem(['RRULE:FREQ=WEEKLY;WKST=XY']).params, /WKST must be a weekday/);
    assert.match(problem(['RRULE:FREQ=WEEKLY;BYSETPOS=1']).params, /BYSETPOS needs/);
    assert.match(problem(['DTSTART:20270101T100000']).params, /DTSTART is not accepted/);
    assert.match(problem(['EXDATE:20270230']).params, /not a valid date/);
    assert.match(problem(['RDATE;TZID=Mars/Olympus:20270101T100000']).params, /not a known time zone/);
    assert.match(problem(['FOO:BAR']).params, /unknown line "FOO"/);
    const second = problem(['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=DAILY']);
    assert.match(second.params, /^Line 2 \("RRULE:FREQ=DAILY"\): only one RRULE is allowed/);
    assert.equal(second.line, 2);
    assert.match(problem(['EXDATE:20270101']).params, /must hold an RRULE or RDATE/);
    assert.match(problem([42]).params, /list of RRULE, RDATE and EXDATE lines/);
  });

  it('normalises the lines it keeps; clearing values', () => {
    assert.deepEqual(parseRecurrence(['rrule:freq=weekly;byday=tu,th', ' EXDATE;TZID=Europe/Paris:20270105T190000 ']).lines, [
      'RRULE:FREQ=WEEKLY;BYDAY=TU,TH',
      'EXDATE;TZID=Europe/Paris:20270105T190000',
    ]);
    assert.deepEqual(parseRecurrence('RRULE:FREQ=DAILY;COUNT=2\nEXDATE:20270102').lines, ['RRULE:FREQ=DAILY;COUNT=2', 'EXDATE:20270102']);
    assert.equal(isClearingRecurrence([]), true);
    assert.equal(isClearingRecurrence(''), true);
    assert.equal(isClearingRecurrence(['RRULE:FREQ=DAILY']), false);
  });
});

describe('recurrence under another process time zone', () => {
  it('a process with TZ=Pacific/Auckland computes the same instants', () => {
    const cases: Array<[string[], SeriesStart]> = [
      [['RRULE:FREQ=WEEKLY;COUNT=3'], timed('2026-03-01 02:30:00', '2026-03-01 03:00:00', 'America/New_York')],
      [['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4'], timed('2026-01-30 19:00:00', '2026-01-30 21:00:00', 'Europe/London')],
      [['RRULE:FREQ=DAILY;COUNT=4'], timed('2026-04-03 09:00:00', '2026-04-03 10:00:00', 'Australia/Sydney')],
      [['RRULE:FREQ=WEEKLY;COUNT=3'], { start_local: '2026-03-07 00:00:00', end_local: '2026-03-07 23:59:59', timezone: 'America/New_York', all_day: true }],
    ];
    const here = cases.map(([lines, first]) => expandOccurrences(parseRecurrence(lines), first, FAR));
    const module = fileURLToPath(new URL('../../src/domain/recurrence.ts', import.meta.url));
    const script = `import { expandOccurrences, parseRecurrence } from ${JSON.stringify(module)};
      const cases = ${JSON.stringify(cases)};
      process.stdout.write(JSON.stringify({ offset: new Date(2026, 0, 1).getTimezoneOffset(), out: cases.map(([l, f]) => expandOccurrences(parseRecurrence(l), f, ${JSON.stringify(FAR)})) }));`;
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TZ: 'Pacific/Auckland' },
      encoding: 'utf8',
    });
    const there = JSON.parse(stdout) as { offset: number; out: unknown };
    assert.equal(there.offset, -780, 'the child runs in Auckland summer time (UTC+13)');
    assert.deepEqual(there.out, here);
  });
});
