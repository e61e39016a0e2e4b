/** The rule editor's model: lines in and out, and the browser preview's semantics (docs/recurrence.md). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nthWeekdayOf, parseLines, preview, toLines } from '../src/lib/recurrence';

describe('admin app recurrence model', () => {
  it('reads and writes the common cases, keeps other lines raw', () => {
    const rule = parseLines(['RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TU', 'EXDATE;VALUE=DATE:20270309', 'RDATE:20270401', 'RRULE:FREQ=DAILY;BYSETPOS=1']);
    assert.equal(rule.freq, 'WEEKLY');
    assert.deepEqual(rule.byDay, ['TU']);
    assert.equal(rule.end, 'count');
    assert.deepEqual(rule.exdates, ['2027-03-09']);
    assert.deepEqual(rule.rdates, ['2027-04-01']);
    assert.deepEqual(rule.raw, ['RRULE:FREQ=DAILY;BYSETPOS=1']);
    assert.deepEqual(toLines(rule, '2027-03-02'), ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6', 'EXDATE;VALUE=DATE:20270309', 'RDATE;VALUE=DATE:20270401', 'RRULE:FREQ=DAILY;BYSETPOS=1']);
  });

  it('previews: the start first and counted, EXDATE removes a day, RDATE adds one; monthly nth weekday', () => {
    const weekly = parseLines(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4', 'EXDATE:20270309', 'RDATE:20270401']);
    assert.deepEqual(preview(weekly, '2027-03-02'), ['2027-03-02', '2027-03-16', '2027-03-23', '2027-04-01']);
    assert.equal(nthWeekdayOf('2027-03-09'), '2TU');
    assert.equal(nthWeekdayOf('2027-03-30'), '-1TU');
    const monthly = parseLines(['RRULE:FREQ=MONTHLY;BYDAY=2TU;UNTIL=20270601']);
    assert.deepEqual(preview(monthly, '2027-03-09'), ['2027-03-09', '2027-04-13', '2027-05-11']);
    const yearly = parseLines(['RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=3']);
    assert.deepEqual(preview(yearly, '2027-02-01'), ['2027-02-01', '2029-02-01', '2031-02-01']);
  });
});
