/**
 * Issue 44: an iCalendar file's parse grows linearly with its events. ical.js' `Event` looked
 * through every VEVENT of the calendar for its exceptions each time one was made (quadratic: 1 MiB,
 * 2,600 events, held the loop over a second of CPU time, 10 MiB would have held it minutes); the
 * importer relates overrides by UID itself and makes each `Event` without that scan. Counted,
 * not timed: the calendar's VEVENTs are listed a fixed number of times, whatever their number.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { parseIcs } from '../../src/import/ics-parse.js';

const vevent = (i: number, extra: string[] = []) => ['BEGIN:VEVENT', `UID:e${i}@test`, `SUMMARY:Event ${i}`, 'DTSTART:20310101T100000Z', 'DTEND:20310101T110000Z', ...extra, 'END:VEVENT'];
const calendar = (events: string[][]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flat(), 'END:VCALENDAR', ''].join('\r\n');

it('lists the VEVENTs of a calendar a fixed number of times, not once per VEVENT; overrides still apply', () => {
  const listed = { vevent: 0 };
  const original = ICAL.Component.prototype.getAllSubcomponents;
  ICAL.Component.prototype.getAllSubcomponents = function (this: ICAL.Component, name?: string) {
    if (name === 'vevent') listed.vevent++;
    return original.call(this, name);
  } as typeof original;
  try {
    const events = Array.from({ length: 500 }, (_, i) => vevent(i));
    // A weekly series and a changed occurrence of it (RECURRENCE-ID): still related, by UID.
    events.push(vevent(1000, ['RRULE:FREQ=WEEKLY;COUNT=4']));
    events.push(['BEGIN:VEVENT', 'UID:e1000@test', 'SUMMARY:Moved', 'RECURRENCE-ID:20310108T100000Z', 'DTSTART:20310108T120000Z', 'DTEND:20310108T130000Z', 'END:VEVENT']);
    const parsed = parseIcs(calendar(events), 'UTC', 'publish', 'linear.ics');
    assert.equal(parsed.events.length, 501);
    const series = parsed.events.find((e) => e.uid === 'e1000@test')!;
    assert.equal(series.recurring, true);
    assert.equal(series.overrides.length, 1);
    assert.ok(listed.vevent <= 5, `the VEVENTs were listed ${listed.vevent} times for 502 of them`);
  } finally {
    ICAL.Component.prototype.getAllSubcomponents = original;
  }
});
