/**
 * WordPress' date and time formats on wall times (domain/php-date.ts), the letters as PHP's
 * `date()` writes them, and the formats the pages refuse.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { formatWall, phpFormatProblem } from '../../src/domain/php-date.js';

it('writes the PHP date letters as PHP does', () => {
  const w = '2028-02-29 00:07:09';
  assert.equal(formatWall(w, 'd D j l N S w z'), '29 Tue 29 Tuesday 2 th 2 59');
  assert.equal(formatWall(w, 'F M m n t L Y y'), 'February Feb 02 2 29 1 2028 28');
  assert.equal(formatWall(w, 'a A g G h H i s'), 'am AM 12 0 12 00 07 09');
  assert.equal(formatWall('2027-03-21 13:30:00', 'jS F, g:i a'), '21st March, 1:30 pm');
  assert.equal(formatWall('2027-03-22 23:30:00', 'jS \\o\\f F, h:i A'), '22nd of March, 11:30 PM');
  assert.equal(formatWall('2027-03-13 12:00:00', 'jS g a'), '13th 12 pm');
  assert.equal(formatWall('2027-12-31 08:00:00', 'z N'), '364 5');
});

it('refuses the letters needing a zone or an instant, and formats without a letter', () => {
  for (const f of ['F j, Y', 'g:i a', 'H\\hi', 'l j F Y', 'd/m/Y']) assert.equal(phpFormatProblem(f), undefined, f);
  for (const f of ['T', 'j M Y e', 'c', 'U', 'H:i O']) assert.match(phpFormatProblem(f) ?? '', /needs a time zone/, f);
  assert.match(phpFormatProblem('--') ?? '', /no date or time letter/);
  assert.equal(phpFormatProblem('\\T H:i'), undefined);
});
