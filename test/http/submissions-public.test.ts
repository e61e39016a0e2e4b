/**
 * The public side of community submissions: the "Propose an event" link in the calendar pages'
 * header (only when SUBMISSIONS is on), the form under the same header, every error reported at
 * once with a summary linking to each field, the time zone picker defaulting to the site's, the
 * new venue's postal code stored, what the form says of the organizer's public fields; the status
 * page and the e-mails (as received by an SMTP server) with dates in the reader's language, the
 * resubmission marked, the event's public address once approved.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { EVENT, MOD, OPEN, SUB, form, formFields, page, submit } from '../support/submissions.js';

const FR = { 'accept-language': 'fr-FR,fr;q=0.9' };

/** The status page's address from the form's 303. */
function statusPath(res: Response): string {
  const location = res.headers.get('location') ?? '';
  assert.match(location, /^\/events\/submit\/status\/[A-Za-z0-9_-]{43}\?sent=1$/);
  return location.replace(/\?sent=1$/, '');
}

for (const kind of STORES) {
  describe(`the public side of submissions [${kind.name}]`, () => {
    let t: TestServer;
    let off: TestServer;
    let smtp: TestSmtp;
    let eventPath: string;
    before(async () => {
      smtp = await startSmtp();
      t = await startServer(kind, { ...OPEN, CALENDAR_TIMEZONE: 'America/Toronto', SMTP_URL: smtp.url, SMTP_FROM: 'calendar@example.org', SITE_NAME: 'Town Calendar' });
      await t.built.services.users.add({ login: 'mod', role: 'editor', password: 'mod-password', email: 'mod@example.org' });
      off = await startServer(kind, { SUBMISSIONS: 'off' });
      const today = new Date().toISOString().slice(0, 10);
      for (const s of [t, off]) {
        const made = await s.api.post('/events', { as: 'admin', json: { title: 'Town fair', start_date: `${today} 10:00`, end_date: `${today} 12:00` } });
        assert.equal(made.status, 201, made.text);
        eventPath = new URL(made.body.url).pathname;
      }
    });
    after(async () => {
      await t.close();
      await off.close();
      await smtp.close();
    });

    it('the calendar pages link to the form in their header when submissions are on, and not when off', async () => {
      const today = new Date().toISOString().slice(0, 10);
      for (const path of ['/events/', '/events/list/', '/events/month/', `/events/month/${today.slice(0, 7)}/`, '/events/today/', `/events/${today}/`, eventPath]) {
        const on = await page(t, path);
        assert.equal(on.status, 200, `${path}: ${on.text.slice(0, 200)}`);
        const header = /<header class="site-header">[\s\S]*?<\/header>/.exec(on.text)?.[0] ?? '';
        assert.ok(header.includes(`<a class="propose" href="${t.config.siteUrl}/events/submit/">Propose an event</a>`), `${path}: ${header}`);
        const without = await page(off, path);
        assert.equal(without.status, 200, path);
        assert.ok(without.text.includes('<header class="site-header">'), path);
        assert.doesNotMatch(without.text, /Propose an event|\/events\/submit\//, path);
      }
    });

    it('the form has the site header (in its language), the zone picker on the site zone, the postal code and what is public of an organizer', async () => {
      const en = await page(t, '/events/submit/');
      assert.equal(en.status, 200);
      const header = /<header class="site-header">[\s\S]*?<\/header>/.exec(en.text)?.[0] ?? '';
      assert.ok(header.includes('<a href="' + t.config.siteUrl + '/events/">Town Calendar</a>'), header);
      assert.ok(header.includes(`href="${t.config.siteUrl}/events/month/">Month</a>`), header);
      assert.ok(header.includes(`<a class="propose" href="${t.config.siteUrl}/events/submit/" aria-current="page">Propose an event</a>`), header);
      assert.match(en.text, /<title>Propose an event – Town Calendar<\/title>/);
      // The zone: a list of IANA zones, the site's first and chosen.
      const picker = /<select id="f-timezone" name="timezone"[^>]*>([\s\S]*?)<\/select>/.exec(en.text);
      assert.ok(picker, 'the zone is a list');
      const options = [...picker[1]!.matchAll(/<option value="([^"]+)"( selected)?>/g)];
      assert.equal(options[0]![1], 'America/Toronto');
      assert.equal(options[0]![2], ' selected');
      assert.ok(options.length > 300, `${options.length} zones`);
      assert.ok(options.some((o) => o[1] === 'Europe/Paris'));
      assert.equal(options.filter((o) => o[2]).length, 1);
      assert.match(en.text, /<input type="text" id="f-venue-zip-" name="venue\[zip\]"/);
      assert.match(en.text, /<label for="f-venue-zip-">Postal code<\/label>/);
      assert.ok(en.text.includes('The organizer’s name, e-mail address, phone and website are shown to everyone on the event’s page'));
      const fr = await page(t, '/events/submit/', FR);
      const frHeader = /<header class="site-header">[\s\S]*?<\/header>/.exec(fr.text)?.[0] ?? '';
      assert.ok(frHeader.includes('aria-label="Vues du calendrier"'), frHeader);
      assert.ok(frHeader.includes('Proposer un événement</a>'), frHeader);
      assert.match(fr.text, /<label for="f-venue-zip-">Code postal<\/label>/);
      assert.ok(fr.text.includes('Le nom, l’adresse électronique, le téléphone et le site web de l’organisateur sont visibles par tous'));
    });

    it('what the form says of an organizer is what the event page shows', async () => {
      const said = await page(t, '/events/submit/');
      assert.ok(said.text.includes('<p class="help" id="organizer-public">The organizer’s name, e-mail address, phone and website are shown to everyone'), 'the form says it');
      const made = await submit(t, {
        ...EVENT,
        title: 'Shown org',
        organizer: { organizer: 'Shown Org', email: 'shown@example.org', phone: '+33 1 23 45 67 89', website: 'https://org.example.org/' },
      });
      assert.equal(made.status, 201, made.text);
      const ok = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'mod:mod-password' });
      assert.equal(ok.status, 200, ok.text);
      const seen = await t.api.get(`${SUB}/submissions/${made.body.token}`);
      const shown = await page(t, new URL(seen.body.url).pathname);
      const block = /<div class="organizer">[\s\S]*?<\/div>/.exec(shown.text)?.[0] ?? '';
      assert.match(block, /Shown Org/);
      assert.match(block, /\+33 1 23 45 67 89/);
      assert.match(block, /Website/);
      assert.match(block, /E-mail:/);
      assert.doesNotMatch(shown.text, /Ann Submitter|ann@example\.org/);
    });

    it('every error is reported at once, summed up at the top with a link to each field', async () => {
      const api = await submit(t, { title: '', start_date: '', end_date: 'not a date', email: 'nope', name: '' });
      assert.equal(api.status, 400);
      assert.deepEqual(Object.keys(api.body.data.params).sort(), ['email', 'end_date', 'name', 'start_date', 'title']);
      const fields = await formFields(t, {
        title: '',
        start_date: '',
        name: '',
        email: 'nope',
        'venue[venue]': '',
        'venue[city]': 'Lyon',
        'organizer[email]': 'not-an-address',
        website: 'ftp://example.org',
      });
      const res = await form(t, '/events/submit/', fields);
      assert.equal(res.status, 400, res.text.slice(0, 300));
      const summary = /<div class="summary"[^>]*>([\s\S]*?)<\/div>/.exec(res.text)?.[1] ?? '';
      const links = [...summary.matchAll(/<a href="#([^"]+)">/g)].map((m) => m[1]).sort();
      assert.deepEqual(links, ['f-email', 'f-name', 'f-organizer-organizer-', 'f-start-date', 'f-title', 'f-venue-venue-', 'f-website']);
      for (const id of links) {
        const control = new RegExp(`<(input|select|textarea)[^>]* id="${id}"[^>]*>`).exec(res.text)?.[0] ?? '';
        assert.match(control, /aria-invalid="true"/, id);
        const described = /aria-describedby="([^"]+)"/.exec(control)?.[1] ?? '';
        const errorId = described.split(' ').find((d) => d.endsWith('-error'));
        assert.ok(errorId && res.text.includes(`<p class="error" id="${errorId}">`), `${id}: ${control}`);
      }
      // What was typed stays.
      assert.match(res.text, /name="venue\[city\]"[^>]* value="Lyon"/);
      const fr = await form(t, '/events/submit/', fields, FR);
      assert.equal(fr.status, 400);
      assert.ok(fr.text.includes('Votre nom est obligatoire.'));
      assert.ok(fr.text.includes('Le titre est obligatoire'));
    });

    it('the zone sent is kept; the new venue’s postal code is stored on the venue', async () => {
      const res = await form(t, '/events/submit/', await formFields(t, { title: 'Zip fair', timezone: 'Europe/Paris', 'venue[zip]': '69001', 'venue[address]': '1 quai' }));
      assert.equal(res.status, 303, res.text.slice(0, 300));
      const queue = await t.api.get(`${MOD}/submissions`, { as: 'admin' });
      const item = queue.body.find((s: any) => s.event.title === 'Zip fair');
      assert.equal(item.event.timezone, 'Europe/Paris');
      assert.equal(item.event.venue.zip, '69001');
      const venue = await t.api.get(`/venues/${item.event.venue.id}`, { as: 'admin' });
      assert.equal(venue.status, 200, venue.text);
      assert.equal(venue.body.zip, '69001');
      // The status page's edit form gives it back.
      const status = await page(t, statusPath(res.res));
      assert.match(status.text, /name="venue\[zip\]"[^>]* value="69001"/);
      assert.match(status.text, /<option value="Europe\/Paris" selected>/);
    });

    it('the status page and the e-mails give dates in the reader’s language, mark a resubmission and give the public address once approved', async () => {
      const res = await form(t, '/events/submit/', await formFields(t, { title: 'Bal du 14', email: 'lea@example.org', name: 'Léa' }), FR);
      assert.equal(res.status, 303, res.text.slice(0, 300));
      const path = statusPath(res.res);
      const when = 'lundi 14 juillet 2031, 20:00 – 22:30 (Europe/Paris)';
      const status = await page(t, path, FR);
      assert.ok(status.text.includes(`<dd id="submission-when">${when}</dd>`), status.text);
      const [receipt] = await smtp.waitFor((m) => m.to.includes('lea@example.org') && m.subject.includes('Bal du 14'));
      assert.ok(receipt!.text.includes(`Quand : ${when}`), receipt!.text);
      assert.doesNotMatch(receipt!.text, /2031-07-14/);
      const [toMod] = await smtp.waitFor((m) => m.to.includes('mod@example.org') && m.text.includes('Bal du 14'));
      assert.ok(toMod!.text.includes('* Bal du 14 (Monday 14 July 2031, 8:00 PM – 10:30 PM (Europe/Paris)) — Léa'), toMod!.text);
      assert.doesNotMatch(toMod!.text, /sent again/);

      const queue = await t.api.get(`${MOD}/submissions`, { as: 'admin' });
      const id = queue.body.find((s: any) => s.event.title === 'Bal du 14').id;
      const asked = await t.api.post(`${MOD}/submissions/${id}/request-changes`, { as: 'mod:mod-password', json: { reason: 'Précisez le lieu' } });
      assert.equal(asked.status, 200, asked.text);
      assert.doesNotMatch((await page(t, path, FR)).text, /submission-resubmitted/);
      const edited = await form(t, path, { ...(await formFields(t, { title: 'Bal du 14', 'venue[venue]': 'Place du village' })), _action: 'edit' }, FR);
      assert.equal(edited.status, 200, edited.text.slice(0, 300));
      assert.match(edited.text, /<span id="submission-resubmitted">Renvoyée après la demande de modifications du modérateur\.<\/span>/);
      const [again] = await smtp.waitFor((m) => m.to.includes('mod@example.org') && m.text.includes('Bal du 14') && m.text.includes('sent again'));
      assert.ok(again!.text.includes('— Léa [sent again after changes were requested]'), again!.text);
      assert.ok(again!.html.includes('[sent again after changes were requested]'));
      const en = await page(t, path);
      assert.match(en.text, /<span id="submission-resubmitted">Sent again after the moderator asked for changes\.<\/span>/);
      assert.ok(en.text.includes('<dd id="submission-when">Monday 14 July 2031, 8:00 PM – 10:30 PM (Europe/Paris)</dd>'));

      const approved = await t.api.post(`${MOD}/submissions/${id}/approve`, { as: 'mod:mod-password' });
      assert.equal(approved.status, 200, approved.text);
      const url = (await t.api.get(`/events/${approved.body.event_id}`)).body.url as string;
      assert.ok(url.startsWith(t.config.siteUrl), url);
      const [ok] = await smtp.waitFor((m) => m.to.includes('lea@example.org') && m.subject.includes('approuvé'));
      assert.ok(ok!.text.replace(/\r\n/g, '\n').includes(`Voyez-le sur le calendrier :\n${url}\n`), ok!.text);
      assert.ok(ok!.html.includes(`<a href="${url}">${url}</a>`));
      const done = await page(t, path, FR);
      assert.ok(done.text.includes(`<p id="submission-url">L’événement sur le calendrier : <a href="${url}">${url}</a></p>`), done.text);
      assert.doesNotMatch(done.text, /submission-resubmitted/);
    });

    it('a scheduled approval is told in the site zone, in the reader’s language, with the address the event will have', async () => {
      const made = await submit(t, { ...EVENT, title: 'Later', email: 'sam@example.org', name: 'Sam' });
      const approved = await t.api.post(`${MOD}/submissions/${made.body.id}/approve`, { as: 'mod:mod-password', json: { publish_at: '2031-03-01 09:00' } });
      assert.equal(approved.status, 200, approved.text);
      const [ok] = await smtp.waitFor((m) => m.to.includes('sam@example.org') && m.subject.includes('approved'));
      assert.ok(ok!.text.includes('It will be published on Saturday 1 March 2031, 9:00 AM (America/Toronto).'), ok!.text);
      assert.ok(ok!.text.includes('Its address on the calendar, once published:'), ok!.text);
      const status = await page(t, `/events/submit/status/${made.body.token}`);
      assert.ok(status.text.includes('<p id="submission-scheduled">It will be published on Saturday 1 March 2031, 9:00 AM (America/Toronto).</p>'), status.text);
    });
  });
}
