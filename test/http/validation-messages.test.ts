/**
 * Issue 25, "Validation messages that help": whitespace-only titles and names are refused like
 * empty ones (PHP's trim: not NBSP), and refused dates and time zones keep the original's
 * `rest_invalid_param` shape while `data.details` names the accepted forms.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse } from '../support/harness.js';

const WHEN = { start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 12:00:00' };
/** Whitespace PHP's trim() removes (NUL is refused earlier, as a hostile character). */
const BLANKS = ['   ', '\t', '\n', ' \r\n\t ', '\u000b'];

/** The original's answer to an empty title (`is_string` failing): plain "Invalid parameter.", `details: []`. */
function assertEmptyAnswer(res: ApiResponse, name: string, label: string): void {
  assert.equal(res.status, 400, label);
  assert.deepEqual(res.body, { code: 'rest_invalid_param', message: `Invalid parameter(s): ${name}`, data: { status: 400, params: { [name]: 'Invalid parameter.' }, details: [] } }, label);
}

/** `rest_invalid_param` as the original sends it, with our hint in `details[name]`. */
function assertHinted(res: ApiResponse, names: string[], code: 'rest_invalid_date' | 'rest_invalid_timezone', label: string, zones: string[] = []): string[] {
  assert.equal(res.status, 400, label);
  assert.equal(res.body.code, 'rest_invalid_param', label);
  assert.equal(res.body.message, `Invalid parameter(s): ${names.join(', ')}`, label);
  assert.deepEqual(Object.keys(res.body.data), ['status', 'params', 'details'], label);
  assert.equal(res.body.data.status, 400, label);
  assert.deepEqual(res.body.data.params, Object.fromEntries(names.map((n) => [n, 'Invalid parameter.'])), label);
  return names.map((n) => {
    const detail = res.body.data.details[n];
    assert.deepEqual(Object.keys(detail), ['code', 'message', 'data'], label);
    assert.equal(detail.code, zones.includes(n) ? 'rest_invalid_timezone' : code, `${label}: ${n}`);
    assert.deepEqual(detail.data, { param: n }, label);
    return detail.message as string;
  });
}

/** The date hint names every accepted form, with examples, and the years. */
function assertDateHint(message: string, zone: RegExp, label: string): void {
  for (const part of ['Y-m-d H:i:s', 'Y-m-d H:i', 'Y-m-d', 'ISO 8601', 'strtotime', 'relative', 'tomorrow 9am', 'next monday', 'Unix timestamp', '1800000000', 'years 1 to 9999'])
    assert.ok(message.includes(part), `${label}: "${part}" in ${message}`);
  assert.match(message, zone, label);
}

forEachStore('validation messages (issue 25)', (t) => {
  it('refuses whitespace-only event titles on create like an empty one', async () => {
    const empty = await t.api.post('/events', { as: 'admin', json: { title: '', ...WHEN } });
    assertEmptyAnswer(empty, 'title', 'empty');
    for (const title of BLANKS) {
      const res = await t.api.post('/events', { as: 'admin', json: { title, ...WHEN } });
      assertEmptyAnswer(res, 'title', JSON.stringify(title));
      assert.deepEqual(res.body, empty.body);
    }
    const form = await t.api.post('/events', { as: 'admin', form: { title: ' \t ', ...WHEN } });
    assertEmptyAnswer(form, 'title', 'form-encoded');
    // Validation before permission, as for the empty title.
    const anon = await t.api.post('/events', { json: { title: '   ', ...WHEN } });
    assertEmptyAnswer(anon, 'title', 'anonymous');
    const list = await t.api.get('/events', { as: 'admin', query: { status: 'publish,draft,pending' } });
    assert.equal(list.body.total ?? 0, 0, 'nothing was created');
  });

  it('keeps titles PHP trim keeps (NBSP) and stores titles trimmed', async () => {
    const nbsp = await t.api.post('/events', { as: 'admin', json: { title: '\u00a0', ...WHEN } });
    assert.equal(nbsp.status, 201, 'NBSP is not whitespace to PHP trim');
    assert.equal(nbsp.body.title, '\u00a0', 'and the title answers as sent, as the original (PHP trim) shows it');
    const nbspVenue = await t.api.post('/venues', { as: 'admin', json: { venue: '\u00a0Hall\u00a0 ' } });
    assert.equal(nbspVenue.body.venue, '\u00a0Hall\u00a0');
    const padded = await t.api.post('/events', { as: 'admin', json: { title: ' \t Jazz night \n', ...WHEN } });
    assert.equal(padded.status, 201);
    assert.equal(padded.body.title, 'Jazz night');
    assert.equal(padded.body.slug, 'jazz-night');
    const read = await t.api.get(`/events/${padded.body.id}`);
    assert.equal(read.body.title, 'Jazz night');
    assert.equal(read.body.json_ld.name, 'Jazz night', 'stored trimmed, so JSON-LD has no padding either');
    const zero = await t.api.post('/events', { as: 'admin', json: { title: '0', ...WHEN } });
    assertEmptyAnswer(zero, 'title', '"0" stays refused (PHP empty)');
  });

  it('refuses whitespace-only titles on update, by id and by slug, and leaves the event alone', async () => {
    const created = await t.api.post('/events', { as: 'admin', json: { title: 'Keep me', ...WHEN } });
    assert.equal(created.status, 201);
    const { id, slug } = created.body;
    const empty = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: '' } });
    assertEmptyAnswer(empty, 'title', 'empty on update');
    for (const title of BLANKS) {
      for (const method of ['POST', 'PUT', 'PATCH']) {
        const res = await t.api.request(method, `/events/${id}`, { as: 'admin', json: { title } });
        assertEmptyAnswer(res, 'title', `${method} ${JSON.stringify(title)}`);
      }
      const bySlug = await t.api.post(`/events/by-slug/${slug}`, { as: 'admin', json: { title } });
      assertEmptyAnswer(bySlug, 'title', `by slug ${JSON.stringify(title)}`);
    }
    const read = await t.api.get(`/events/${id}`);
    assert.equal(read.body.title, 'Keep me');
    const renamed = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: '  Kept  ' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.title, 'Kept');
  });

  it('refuses whitespace-only venue and organizer names, on create, update and inline in an event', async () => {
    for (const [plural, field] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const empty = await t.api.post(`/${plural}`, { as: 'admin', json: { [field]: '' } });
      assertEmptyAnswer(empty, field, `${plural} empty`);
      for (const name of BLANKS) {
        const res = await t.api.post(`/${plural}`, { as: 'admin', json: { [field]: name } });
        assertEmptyAnswer(res, field, `${plural} ${JSON.stringify(name)}`);
      }
      const created = await t.api.post(`/${plural}`, { as: 'admin', json: { [field]: `  Padded ${field}\t` } });
      assert.equal(created.status, 201);
      assert.equal(created.body[field], `Padded ${field}`);
      for (const name of BLANKS) {
        const res = await t.api.post(`/${plural}/${created.body.id}`, { as: 'admin', json: { [field]: name } });
        assertEmptyAnswer(res, field, `${plural} update ${JSON.stringify(name)}`);
      }
      const again = await t.api.post(`/${plural}`, { as: 'admin', json: { [field]: `Padded ${field}  ` } });
      assert.equal(again.body.id, created.body.id, 'a padded name finds the record stored trimmed (duplicate avoidance)');
    }
    const inlineVenue = await t.api.post('/events', { as: 'admin', json: { title: 'x', ...WHEN, venue: { venue: ' \t ' } } });
    assertEmptyAnswer(inlineVenue, 'venue', 'inline venue');
    const inlineOrganizer = await t.api.post('/events', { as: 'admin', json: { title: 'x', ...WHEN, organizer: [{ organizer: '\n' }] } });
    assertEmptyAnswer(inlineOrganizer, 'organizer', 'inline organizer');
  });

  it('answers empty_term_name for whitespace-only term names, as WordPress does', async () => {
    for (const plural of ['categories', 'tags']) {
      for (const name of BLANKS) {
        const res = await t.api.post(`/${plural}`, { as: 'admin', json: { name } });
        assert.equal(res.status, 400, `${plural} ${JSON.stringify(name)}`);
        assert.equal(res.body.code, 'empty_term_name');
      }
      const created = await t.api.post(`/${plural}`, { as: 'admin', json: { name: `Term of ${plural}` } });
      assert.equal(created.status, 201);
      const update = await t.api.post(`/${plural}/${created.body.id}`, { as: 'admin', json: { name: ' \t ' } });
      assert.equal(update.status, 400);
      assert.equal(update.body.code, 'empty_term_name');
    }
  });

  it('names the accepted date forms in details on event create, keeping the original top-level answer', async () => {
    // The recorded exchange (examples/10c): the same code, message, status and params.
    const res = await t.api.post('/events', { as: 'admin', json: { title: 'Bad date', start_date: 'not a date', end_date: '2030-06-15 20:00' } });
    const [hint] = assertHinted(res, ['start_date'], 'rest_invalid_date', 'start_date');
    assertDateHint(hint!, /the event's time zone \(its timezone, else the site's: UTC\)/, 'start_date');

    const all = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'x', date: 'before my birthday', date_utc: 'foo', start_date: 'soon', end_date: '2027-13-45', timezone: 'Mars/Olympus' },
    });
    // Every failure at once, in declaration order as before.
    const hints = assertHinted(all, ['date', 'date_utc', 'timezone', 'start_date', 'end_date'], 'rest_invalid_date', 'all', ['timezone']);
    const [date, dateUtc, zoneHint, start, end] = hints;
    assertDateHint(date!, /the site time zone \(UTC\)/, 'date');
    assertDateHint(dateUtc!, /read in UTC\./, 'date_utc');
    assertDateHint(start!, /event's time zone/, 'start_date');
    assertDateHint(end!, /event's time zone/, 'end_date');
    for (const example of ['Europe/Berlin', 'UTC', 'UTC+2']) assert.ok(zoneHint!.includes(example), `${example} in ${zoneHint}`);
  });

  it('names the accepted forms on event updates, zones included', async () => {
    const created = await t.api.post('/events', { as: 'admin', json: { title: 'Dated', ...WHEN } });
    const { id, slug } = created.body;
    for (const path of [`/events/${id}`, `/events/by-slug/${slug}`]) {
      const bad = await t.api.post(path, { as: 'admin', json: { end_date: 'whenever' } });
      const [hint] = assertHinted(bad, ['end_date'], 'rest_invalid_date', path);
      assertDateHint(hint!, /event's time zone/, path);
      const zone = await t.api.patch(path, { as: 'admin', json: { timezone: 'Europe/Atlantis' } });
      const [zoneHint] = assertHinted(zone, ['timezone'], 'rest_invalid_timezone', path);
      assert.match(zoneHint!, /Europe\/Berlin/);
      assert.match(zoneHint!, /UTC\+2/);
    }
    // The zones the message offers are accepted.
    for (const timezone of ['Europe/Berlin', 'America/New_York', 'UTC', 'UTC+2', 'UTC-3:30', 'UTC+5.5']) {
      const ok = await t.api.post(`/events/${id}`, { as: 'admin', json: { timezone } });
      assert.equal(ok.status, 200, timezone);
      assert.equal(ok.body.timezone, timezone);
    }
    // The forms the message offers are accepted.
    for (const start_date of ['2027-01-15 19:00:00', '2027-01-15 19:00', '2027-01-15', '2027-01-15T19:00:00+01:00', 'January 15 2027 7pm', '01/15/2027', '1800000000']) {
      const ok = await t.api.post(`/events/${id}`, { as: 'admin', json: { start_date, end_date: '2027-02-01' } });
      assert.equal(ok.status, 200, start_date);
    }
    for (const start_date of ['tomorrow 9am', 'next monday', '+2 days']) {
      const ok = await t.api.post(`/events/${id}`, { as: 'admin', json: { start_date, end_date: '+1 year' } });
      assert.equal(ok.status, 200, start_date);
    }
  });

  it('hints on a date the event zone moves past the year 9999', async () => {
    const res = await t.api.post('/events', { as: 'admin', json: { title: 'Late', start_date: '9999-12-31 20:00', end_date: '9999-12-31 23:00', timezone: 'UTC-5' } });
    const [hint] = assertHinted(res, ['start_date'], 'rest_invalid_date', 'year 9999 in UTC-5');
    assertDateHint(hint!, /the event's time zone \(UTC-5\)/, 'year 9999');
  });

  it('names the accepted forms for the list filters', async () => {
    const res = await t.api.get('/events', { query: { start_date: 'someday', end_date: 'never' } });
    const [start, end] = assertHinted(res, ['start_date', 'end_date'], 'rest_invalid_date', 'list');
    assertDateHint(start!, /the site time zone \(UTC\)/, 'list start_date');
    assertDateHint(end!, /the site time zone \(UTC\)/, 'list end_date');
    const ok = await t.api.get('/events', { query: { start_date: 'next monday', end_date: '2030-01-01' } });
    assert.equal(ok.status, 200);
  });

  it('names the accepted forms for venue and organizer publication dates', async () => {
    for (const [plural, field] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const res = await t.api.post(`/${plural}`, { as: 'admin', json: { [field]: `Dated ${field}`, date: 'foo', date_utc: 'bar' } });
      const [date, dateUtc] = assertHinted(res, ['date', 'date_utc'], 'rest_invalid_date', plural);
      assertDateHint(date!, /the site time zone \(UTC\)/, `${plural} date`);
      assertDateHint(dateUtc!, /read in UTC\./, `${plural} date_utc`);
      const created = await t.api.post(`/${plural}`, { as: 'admin', json: { [field]: `Dated ${field}` } });
      const update = await t.api.post(`/${plural}/${created.body.id}`, { as: 'admin', json: { date: 'the day after' } });
      assertHinted(update, ['date'], 'rest_invalid_date', `${plural} update`);
    }
  });
});
