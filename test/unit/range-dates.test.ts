/**
 * The plain date arithmetic of the answers of many events (month pages, the embed's month view,
 * the FullCalendar source) gives what Luxon gives: days added across months, leap years and the
 * years 0 to 99; UTC wall times written in IANA zones across their offset changes (half-hour and
 * 45-minute offsets, a 30-minute daylight saving, a change at midnight, offsets with seconds
 * before 1900).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { plusDays, toWallTime, utcMsAsWall, wallAsUtcMs } from '../../src/domain/dates/wall.js';
import { fullCalendarEvent } from '../../src/http/routes/embed.js';

describe('plain date arithmetic', () => {
  it('adds days as Luxon does', () => {
    const days = ['2027-02-27', '2028-02-28', '2027-12-31', '1900-02-28', '2000-02-28', '0050-03-01', '0099-12-31', '0001-01-01', '9999-12-30'];
    for (const day of days)
      for (const n of [-400, -31, -1, 0, 1, 2, 29, 366]) {
        const expected = DateTime.fromISO(day, { zone: 'utc' }).plus({ days: n }).toFormat('yyyy-MM-dd');
        if (expected.startsWith('-') || expected.length > 10) continue;
        assert.equal(plusDays(day, n), expected, `${day} ${n}`);
      }
  });

  it('reads and writes wall times as UTC as Luxon does', () => {
    for (const wall of ['2027-06-15 19:00:00', '0050-01-02 03:04:05', '1969-12-31 23:59:59', '2031-03-01 00:00:00']) {
      const ms = DateTime.fromFormat(wall, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' }).toMillis();
      assert.equal(wallAsUtcMs(wall), ms, wall);
      assert.equal(utcMsAsWall(ms), wall);
    }
    assert.equal(wallAsUtcMs('2027-06-15'), DateTime.fromISO('2027-06-15', { zone: 'utc' }).toMillis());
  });

  it('writes FullCalendar dates in IANA zones as Luxon does, across offset changes', () => {
    const zones = ['Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Sao_Paulo', 'America/St_Johns', 'Pacific/Apia', 'Europe/Amsterdam'];
    const starts = ['2027-03-28T00:00:00Z', '2027-10-30T12:00:00Z', '2018-11-03T00:00:00Z', '2011-12-29T00:00:00Z', '1890-01-01T00:00:00Z', '1937-06-30T20:00:00Z'];
    for (const name of zones)
      for (const first of starts) {
        const t0 = DateTime.fromISO(first, { zone: 'utc' });
        for (let m = 0; m < 48 * 60; m += 15) {
          const utc = toWallTime(t0.plus({ minutes: m }));
          const e = {
            id: 1,
            title: 't',
            url: '',
            all_day: false,
            start_date: utc,
            end_date: utc,
            utc_start_date: utc,
            utc_end_date: utc,
            timezone: 'UTC',
            timezone_abbr: 'UTC',
            cost: '',
            featured: false,
            image: false as const,
            venue: [] as [],
            organizer: [],
            categories: [],
            tags: [],
          };
          const expected = toWallTime(DateTime.fromFormat(utc, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' }).setZone(name)).replace(' ', 'T');
          assert.equal(fullCalendarEvent(e, { kind: 'named', name }).start, expected, `${name} ${utc}`);
        }
      }
  });
});
