/**
 * Issue 10: the pages' template helpers: every interpolated value escaped, JSON-LD safe inside a
 * script element, plain text of stored HTML, only http(s) links from stored data, dates from wall
 * times, the days an event covers, and the subscribe links' shapes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntities, html, jsonLdScript, plainText, trusted } from '../../src/pages/html.js';
import { dayText, daysCovered, safeUrl, subscribeLinks, timeText, whenText } from '../../src/pages/views.js';
import type { PublicEvent } from '../../src/pages/calendar.js';

describe('page templates', () => {
  it('escapes every interpolated value, joins arrays, drops null/undefined/false, keeps trusted markup', () => {
    const evil = `<script>alert("x")</script>&'`;
    assert.equal(html`<p title="${evil}">${evil}</p>`.value, '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>');
    assert.equal(html`<ul>${['a<', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`.value, '<ul><li>a&lt;</li><li>b</li></ul>');
    assert.equal(html`${null}${undefined}${false}${0}`.value, '0');
    assert.equal(html`${trusted('<b>ok</b>')}`.value, '<b>ok</b>');
  });

  it('writes JSON-LD that cannot close its script element', () => {
    const out = jsonLdScript({ name: '</script><script>alert(1)</script>', amp: 'a & b' }).value;
    assert.doesNotMatch(out.slice('<script type="application/ld+json">'.length, -'</script>'.length), /<|>|&/);
    const json = out.slice('<script type="application/ld+json">'.length, -'</script>'.length);
    assert.deepEqual(JSON.parse(json), { name: '</script><script>alert(1)</script>', amp: 'a & b' });
  });

  it('turns stored HTML into plain text', () => {
    assert.equal(plainText('<p>One, <strong>two</strong> &amp; three</p>\n<p>Four&#8217;s<br>five</p><script>x()</script>'), 'One, two & three\n\nFour’s\nfive');
    assert.equal(decodeEntities('&lt;&#x41;&#66;&nbsp;&unknown;'), '<AB\u00a0&unknown;');
  });

  it('links only to http(s) URLs from stored data', () => {
    assert.equal(safeUrl('https://example.org/a?b=c'), 'https://example.org/a?b=c');
    assert.equal(safeUrl(' http://example.org '), 'http://example.org');
    for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', '//evil.example', 'vbscript:x', '', undefined]) assert.equal(safeUrl(bad), undefined, String(bad));
  });

  it('formats dates from wall times', () => {
    assert.equal(dayText('2027-03-27 09:00:00'), 'Saturday 27 March 2027');
    assert.equal(timeText('2027-03-27 00:05:00'), '12:05 AM');
    assert.equal(timeText('2027-03-27 12:30:00'), '12:30 PM');
    assert.equal(timeText('2027-03-27 21:45:00'), '9:45 PM');
    const e = { start_date: '2027-03-27 21:00:00', end_date: '2027-03-28 01:00:00', all_day: false, timezone: 'Europe/Rome', timezone_abbr: 'CET' } as PublicEvent;
    assert.equal(whenText(e), 'Saturday 27 March 2027, 9:00 PM – Sunday 28 March 2027, 1:00 AM CET');
    assert.equal(whenText({ ...e, all_day: true, end_date: '2027-03-29 23:59:59' }), 'Saturday 27 March 2027 – Monday 29 March 2027 (all day)');
  });

  it('knows the days an event covers (an end at midnight does not cover its day)', () => {
    assert.deepEqual(daysCovered({ start_date: '2031-03-30 00:00:00', end_date: '2031-04-02 23:59:59' }), ['2031-03-30', '2031-03-31', '2031-04-01', '2031-04-02']);
    assert.deepEqual(daysCovered({ start_date: '2031-03-30 20:00:00', end_date: '2031-03-31 00:00:00' }), ['2031-03-30']);
    assert.deepEqual(daysCovered({ start_date: '2031-03-30 20:00:00', end_date: '2031-03-30 22:00:00' }), ['2031-03-30']);
  });

  it('offers the original subscribe links', () => {
    const links = Object.fromEntries(subscribeLinks({ feed: 'https://cal.example/events.ics?categories=jazz', name: 'Cal & Co' }).map((l) => [l.label, l.href]));
    assert.equal(links['iCalendar (Apple Calendar and others)'], 'webcal://cal.example/events.ics?categories=jazz');
    assert.equal(links['Google Calendar'], `https://www.google.com/calendar/render?cid=${encodeURIComponent('webcal://cal.example/events.ics?categories=jazz')}`);
    const outlook = new URL(links['Outlook 365']!);
    assert.equal(outlook.origin + outlook.pathname, 'https://outlook.office.com/owa');
    assert.equal(outlook.searchParams.get('rru'), 'addsubscription');
    assert.equal(outlook.searchParams.get('url'), 'webcal://cal.example/events.ics?categories=jazz');
    assert.equal(outlook.searchParams.get('name'), 'Cal & Co');
    assert.equal(links['Export .ics file'], 'https://cal.example/events.ics?categories=jazz');
  });
});
