/**
 * A recurring event's rules in words, English and French: weekly with and without BYDAY, intervals,
 * ordinals, day of month, UNTIL and COUNT, and the fallback for rules not said simply.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeRecurrence } from '../../src/domain/recurrence-words.js';

const TUESDAY = '2027-03-02 19:00:00';

it('says weekly rules in English and French', () => {
  assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY;UNTIL=20270330T225959Z'], TUESDAY, 'en'), 'every Tuesday until March 30, 2027');
  assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY;UNTIL=20270330T225959Z'], TUESDAY, 'fr'), 'chaque mardi jusqu’au 30 mars 2027');
  assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=6'], TUESDAY, 'en'), 'every 2 weeks on Tuesday and Thursday, 6 times');
  assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=6'], TUESDAY, 'fr'), 'toutes les 2 semaines le mardi et jeudi, 6 fois');
  assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR'], TUESDAY, 'en'), 'every Monday, Wednesday and Friday');
});

it('says daily, monthly and yearly rules', () => {
  assert.equal(describeRecurrence(['RRULE:FREQ=DAILY;COUNT=1'], TUESDAY, 'en'), 'every day, once');
  assert.equal(describeRecurrence(['RRULE:FREQ=MONTHLY;BYDAY=2TU'], TUESDAY, 'en'), 'every month on the second Tuesday');
  assert.equal(describeRecurrence(['RRULE:FREQ=MONTHLY;BYDAY=-1FR'], TUESDAY, 'fr'), 'chaque mois le dernier vendredi');
  assert.equal(describeRecurrence(['RRULE:FREQ=MONTHLY'], TUESDAY, 'en'), 'every month on day 2');
  assert.equal(describeRecurrence(['RRULE:FREQ=MONTHLY;BYMONTHDAY=1'], TUESDAY, 'fr'), 'chaque mois le 1er');
  assert.equal(describeRecurrence(['RRULE:FREQ=YEARLY;INTERVAL=3'], TUESDAY, 'fr'), 'tous les 3 ans');
});

it('falls back for rules not said simply, and for RDATE-only sets', () => {
  assert.equal(describeRecurrence(['RRULE:FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=1'], TUESDAY, 'en'), 'on a custom schedule');
  assert.equal(describeRecurrence(['RDATE:20270401T190000'], TUESDAY, 'fr'), 'selon un calendrier particulier');
});
