/**
 * A large iCalendar text is parsed off the event loop (parseIcsOffLoop: a worker thread), with
 * the same result as on it; a small one on the calling thread; an unreadable one is the same
 * ImportError either way. The loop is watched by its own thread's CPU time (a loaded host delays
 * timers without the loop working).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseIcs, parseIcsOffLoop, PARSE_ON_LOOP_MAX_CHARS } from '../../src/import/ics-parse.js';
import { ImportError } from '../../src/import/source.js';
import { startLoopPing } from '../support/loop-ping.js';

function calendar(events: number): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//off-loop//EN'];
  for (let i = 0; i < events; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    lines.push(
      'BEGIN:VEVENT',
      `UID:event-${i}@example.org`,
      'DTSTAMP:20310101T000000Z',
      `DTSTART;TZID=Europe/Paris:203103${day}T180000`,
      `DTEND;TZID=Europe/Paris:203103${day}T200000`,
      `SUMMARY:Event number ${i} with a title long enough`,
      `DESCRIPTION:${'A description line of an event, repeated. '.repeat(4)}`,
      'LOCATION:Town hall\\, main room',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

describe('parseIcsOffLoop', () => {
  it('parses a large text in a worker thread: the same events, and the loop is not held', async () => {
    const text = calendar(3000);
    assert.ok(text.length > 4 * PARSE_ON_LOOP_MAX_CHARS, String(text.length));
    const onLoop = parseIcs(text, 'UTC', 'publish', 'big.ics');
    const ping = startLoopPing();
    const offLoop = await parseIcsOffLoop(text, 'UTC', 'publish', 'big.ics', false, Number(process.env.ICS_ON_LOOP_MAX_CHARS ?? PARSE_ON_LOOP_MAX_CHARS));
    const { cpuHeldMs } = ping.stop();
    assert.equal(offLoop.events.length, 3000);
    assert.deepEqual(offLoop, onLoop);
    // On the loop this parse costs seconds of CPU; off it, only the copy of the result back.
    assert.ok(cpuHeldMs < 100, `the loop was held ${cpuHeldMs.toFixed(0)} ms of CPU`);
  });

  it('says a large text that is not iCalendar is not, as the parse on the loop does', async () => {
    const text = 'not a calendar\n'.repeat(PARSE_ON_LOOP_MAX_CHARS / 10);
    await assert.rejects(parseIcsOffLoop(text, 'UTC', 'publish', 'junk.ics'), (err: unknown) => err instanceof ImportError && /junk\.ics is not a valid iCalendar file/.test((err as Error).message));
    assert.throws(() => parseIcs(text, 'UTC', 'publish', 'junk.ics'), ImportError);
  });

  it('parses a small text on the calling thread', async () => {
    const parsed = await parseIcsOffLoop(calendar(3), 'UTC', 'publish', 'small.ics');
    assert.equal(parsed.events.length, 3);
  });
});
