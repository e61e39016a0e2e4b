/**
 * The iCalendar writer's own folding and calendar text (`domain/ical.ts`) are byte for byte what
 * ical-generator writes (its `foldLines` encodes every character with a new TextEncoder: about half
 * the CPU time of a CalDAV answer's calendar-data): random lines of ASCII, accents, CJK, emoji and
 * lone surrogates, and whole calendars of events with long Unicode texts, zones and organizers, for
 * feeds (METHOD, refresh interval) and calendar object resources.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ical, { foldLines as libraryFold, ICalCalendarMethod } from 'ical-generator';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import { DateTime } from 'luxon';
import { calendarToString, foldLines } from '../../src/domain/ical.js';

const piece = fc.constantFrom('a', 'Z', ' ', ';', ',', 'é', 'ß', '€', '漢', '字', '😀', '👍🏽', '\ud800', '\udc00', '\ud83d', 'x'.repeat(70), '"', '\\');
const text = fc.array(piece, { maxLength: 120 }).map((p) => p.join(''));

it('folds lines exactly as ical-generator does', () => {
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), (lines) => {
      const input = lines.join('\r\n');
      assert.equal(foldLines(input), libraryFold(input));
    }),
    { numRuns: 500, seed: 45 },
  );
});

it('writes a calendar exactly as ical-generator does', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ summary: text, description: text, zone: fc.constantFrom('Europe/Rome', 'America/New_York', 'UTC', 'Asia/Tokyo'), allDay: fc.boolean(), day: fc.integer({ min: 1, max: 28 }) }),
        { maxLength: 4 },
      ),
      text,
      fc.boolean(),
      (events, name, feed) => {
        const cal = ical({
          name: name || 'Calendar',
          description: name || 'Calendar',
          prodId: { company: 'example.org', product: 'events-calendar', language: 'EN' },
          ...(feed ? { method: ICalCalendarMethod.PUBLISH, ttl: 3600 } : {}),
          timezone: { name: null, generator: getVtimezoneComponent },
        });
        for (const [i, e] of events.entries()) {
          const start = DateTime.fromObject({ year: 2031, month: 3, day: e.day, hour: 10 }, { zone: e.zone });
          cal.createEvent({
            id: `${i}@example.org`,
            start,
            end: start.plus({ hours: 2 }),
            allDay: e.allDay,
            ...(e.zone !== 'UTC' && !e.allDay ? { timezone: e.zone } : {}),
            stamp: start,
            summary: e.summary,
            description: e.description,
            location: { title: e.summary || 'Venue', ...(e.description ? { address: e.description } : {}) },
            categories: [{ name: e.summary || 'Music' }],
            organizer: { name: e.summary || 'x', email: 'o@example.org' },
          });
        }
        assert.equal(calendarToString(cal, getVtimezoneComponent), cal.toString());
      },
    ),
    { numRuns: 200, seed: 45 },
  );
});
