/**
 * The iCalendar text written in steps (`icalendarInSteps`, the feeds) is the text written in one
 * piece (`icalendar`): the same calendar properties, VTIMEZONEs in the same order, the same VEVENTs
 * folded the same way; and `foldLines` folds as ical-generator's own (non-ASCII text, surrogate
 * pairs, lone surrogates).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldLines as libraryFoldLines } from 'ical-generator';
import { foldLines, icalendar, icalendarInSteps, type FeedOptions } from '../../src/domain/ical.js';
import type { PublicEvent } from '../../src/domain/public-records.js';

const ZONES = ['Europe/Paris', 'UTC', 'America/New_York', 'UTC+2', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Paris'];
const TITLES = ['Concert', 'Fête de la musique 🎶 日本語のタイトル très longue avec des accents éèà et des emoji 🎉 pour plier', 'A "quoted" title, with; separators\\ and a long tail '.repeat(3)];

function event(i: number): PublicEvent {
  const day = String(1 + (i % 28)).padStart(2, '0');
  const hour = String(i % 24).padStart(2, '0');
  return {
    id: 100 + i,
    url: `https://cal.example/event/e-${i}/`,
    title: TITLES[i % TITLES.length]!,
    description: i % 2 ? `<p>${'Ünïcödé текст 日本 '.repeat(i % 9)}</p>` : '',
    excerpt: '',
    slug: `e-${i}`,
    status: 'publish',
    date_utc: '2027-01-01 00:00:00',
    modified_utc: `2027-01-${day} 10:00:00`,
    image: false,
    all_day: i % 11 === 0,
    start_date: `2027-03-${day} ${hour}:00:00`,
    end_date: `2027-03-${day} ${hour}:30:00`,
    utc_start_date: `2027-03-${day} ${hour}:00:00`,
    utc_end_date: `2027-03-${day} ${hour}:30:00`,
    timezone: ZONES[i % ZONES.length]!,
    timezone_abbr: '',
    cost: '',
    website: '',
    featured: false,
    categories: i % 3 ? [{ id: 1, name: 'Musique & fêtes', slug: 'musique' }] : [],
    tags: [],
    venue: i % 4 ? { id: 7, url: '', venue: 'Salle — Öst', slug: 'salle', address: '252 rue du Faubourg Saint-Honoré', city: 'Paris', country: 'France' } : [],
    organizer: i % 5 ? [{ id: 9, url: '', organizer: 'Zoë “Org” ^caret', slug: 'zoe', email: 'zoe@example.org' }] : [],
  } as unknown as PublicEvent;
}

const options: FeedOptions = { name: 'Événements – Site', timezone: 'Europe/Paris', siteUrl: 'https://cal.example', description: 'Events of the site' };

describe('iCalendar text in steps', () => {
  it('is the text written in one piece (calendar object resources: the same bytes)', async () => {
    for (const n of [0, 1, 7, 450]) {
      const events = Array.from({ length: n }, (_, i) => event(i));
      assert.equal(await icalendarInSteps(events, { ...options, resource: true }), icalendar(events, { ...options, resource: true }), `${n} events`);
    }
  });

  it('is the text written in one piece (feeds: the same but for the time of writing)', async () => {
    const events = Array.from({ length: 450 }, (_, i) => event(i));
    const stampless = (text: string) => text.replace(/\r\nDTSTAMP:\d{8}T\d{6}Z/g, '');
    const steps = await icalendarInSteps(events, options);
    assert.match(steps, /\r\nMETHOD:PUBLISH\r\n/);
    assert.equal(stampless(steps), stampless(icalendar(events, options)));
  });

  it('folds lines as ical-generator does', () => {
    const pieces = ['a', 'é', '日', '🎶', '\ud83c', '\udfb6', ';', ' ', 'текст', '\\n'];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 500; n++) {
      const lines = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => Array.from({ length: Math.floor(rand() * 120) }, () => pieces[Math.floor(rand() * pieces.length)]).join(''));
      const text = lines.join('\r\n');
      assert.equal(foldLines(text), libraryFoldLines(text), JSON.stringify(text));
    }
  });
});
