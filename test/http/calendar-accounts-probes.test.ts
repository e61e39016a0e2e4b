/**
 * Accounts across calendars, probed as a hostile reviewer would (each probe failed before its fix):
 * an account is one login across the service with a role per calendar, and
 * - removing it counts and reassigns its records in every calendar, each calendar's change log
 *   telling its author change, to an heir with a role in each of them (docs/calendars.md, People);
 * - ADMIN_REQUIRE_2FA holds by the role in the calendar asked, for sign-in sessions as over Basic;
 * - the service's own accounts' logins (`community-submissions`, `calendar-network`) are nobody's
 *   to take, and a person's account under one is never written as (docs/security.md);
 * - a display name longer than its column is a 400 on both stores, not PostgreSQL's 500;
 * - a calendar's own administrator is not told the installation's administrator's address.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { writeTransaction } from '../../src/store/changes.js';
import { insertUser } from '../../src/store/users.js';
import { hashPassword } from '../../src/domain/users.js';

const EVENT = { title: 'North fair', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', status: 'publish' };

const formNonce = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';
const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

/** Sign in through the admin face's form (its pre-session cookie and login nonce); the session cookie. */
async function signIn(t: TestServer, login: string, password: string, prefix = ''): Promise<string> {
  const form0 = await fetch(`${t.origin}${prefix}/admin/login`, { redirect: 'manual' });
  const res = await fetch(`${t.origin}${prefix}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(form0) },
    body: new URLSearchParams({ log: login, pwd: password, _wpnonce: formNonce(await form0.text()) }).toString(),
  });
  assert.equal(res.status, 303, await res.text());
  return cookieOf(res);
}

forEachStore('probes: accounts across calendars', (t) => {
  const admin = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
  const events = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;
  let ann: { id: number };
  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
    ann = await t.user('subscriber', 'ann');
    await t.built.services.calendars.setRole('ann', 'north', 'author');
  });

  it('refuses to delete an account that authored records in another calendar (no orphaned records)', async () => {
    const made = await t.api.post(events('/c/north', '/events'), { as: 'ann', json: EVENT });
    assert.equal(made.status, 201, made.text);
    const removed = await t.api.delete(admin('', `/users/${ann.id}`), { as: 'admin', query: { force: 'true' } });
    // Ann authored an event in north: as in the default calendar, 409 rest_user_has_content unless reassigned.
    assert.equal(removed.status, 409, `deleted an author of north's records: ${removed.status} ${removed.text}`);
  });

  it('moves every calendar’s records of a removed account to the heir, not only the default calendar’s', async () => {
    const bea = await t.user('subscriber', 'bea');
    const heir = await t.user('editor', 'heir');
    await t.built.services.calendars.setRole('bea', 'north', 'author');
    const made = await t.api.post(events('/c/north', '/events'), { as: 'bea', json: { ...EVENT, status: 'draft' } });
    assert.equal(made.status, 201, made.text);
    // An heir with no role in north would become the author of records of a calendar it is not in: refused, nothing removed.
    const outside = await t.api.delete(admin('', `/users/${bea.id}`), { as: 'admin', query: { reassign: heir.id, force: 'true' } });
    assert.equal(outside.status, 400, `reassigned north's records to an account with no role there: ${outside.text}`);
    assert.equal(outside.body.code, 'rest_invalid_param');
    assert.match(outside.body.data.params.reassign, /heir has no role in the calendar north, where bea authored records/);
    assert.equal((await t.api.get(admin('', `/users/${bea.id}`), { as: 'admin' })).status, 200, 'the refused removal removed the account');
    assert.equal((await t.api.get(events('/c/north', `/events/${made.body.id}`), { as: 'admin' })).body.author, String(bea.id));
    await t.built.services.calendars.setRole('heir', 'north', 'editor');
    const head = (await t.api.get(admin('/c/north', '/changes'), { as: 'admin', query: { after: 0, limit: 1000 } })).body.head as number;
    const removed = await t.api.delete(admin('', `/users/${bea.id}`), { as: 'admin', query: { reassign: heir.id, force: 'true' } });
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.reassigned, 1, `reassigned: ${removed.text}`);
    const event = await t.api.get(events('/c/north', `/events/${made.body.id}`), { as: 'admin' });
    assert.equal(event.body.author, String(heir.id), `north's event is still the removed account's: author ${event.body.author}`);
    // North's change log tells its event's new author (its sync clients and webhooks follow it).
    const log = await t.api.get(admin('/c/north', '/changes'), { as: 'admin', query: { after: head } });
    assert.equal(log.status, 200, log.text);
    const noted = log.body.events.flatMap((e: { changes: Array<{ type: string; id: number }> }) => e.changes.map((c) => `${c.type}:${c.id}`));
    assert.ok(noted.includes(`event:${made.body.id}`), `north's log does not tell the reassignment: ${log.text}`);
  });

  it('lets a network administrator inherit records of any calendar, and the command line refuses an heir outside one', async () => {
    const cleo = await t.user('subscriber', 'cleo');
    await t.built.services.calendars.setRole('cleo', 'north', 'author');
    const made = await t.api.post(events('/c/north', '/events'), { as: 'cleo', json: EVENT });
    assert.equal(made.status, 201, made.text);
    await t.user('author', 'dan');
    await assert.rejects(t.built.services.users.remove('cleo', { reassignTo: 'dan' }), /dan has no role in the calendar north, where cleo authored records/);
    const removed = await t.api.delete(admin('', `/users/${cleo.id}`), { as: 'admin', query: { reassign: 1, force: 'true' } });
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.reassigned, 1);
  });

  it('refuses a display name longer than its column (250) on every way in, with the same 400 on both stores', async () => {
    const long = 'n'.repeat(251);
    const created = await t.api.post(admin('', '/users'), { as: 'admin', json: { username: 'dora', password: 'dora-pw-123456', name: long } });
    assert.equal(created.status, 400, created.text);
    assert.equal(created.body.code, 'rest_invalid_param');
    assert.equal(created.body.data.status, 400);
    const fits = await t.api.post(admin('', '/users'), { as: 'admin', json: { username: 'dora', password: 'dora-pw-123456', name: 'n'.repeat(250) } });
    assert.equal(fits.status, 201, fits.text);
    const updated = await t.api.post(admin('', `/users/${fits.body.id}`), { as: 'admin', json: { name: long } });
    assert.equal(updated.status, 400, updated.text);
    assert.equal(updated.body.code, 'rest_invalid_param');
    const invited = await t.api.post(admin('', '/invitations'), { as: 'admin', json: { email: 'long@example.org', name: long, role: 'subscriber' } });
    assert.equal(invited.status, 400, invited.text);
    assert.equal(invited.body.code, 'rest_invalid_param');
    const listed = await t.api.get(admin('', '/users'), { as: 'admin', query: { search: 'long@example.org' } });
    assert.equal(listed.body.length, 0, 'the refused invitation made no account');
    // The other limited columns: a login of at most 60 characters, an address of at most 100.
    const login = await t.api.post(admin('', '/users'), { as: 'admin', json: { username: 'l'.repeat(61), password: 'x-pw-123456789' } });
    assert.equal(login.status, 400, login.text);
    const email = await t.api.post(admin('', '/users'), { as: 'admin', json: { username: 'emma', password: 'x-pw-123456789', email: `${'e'.repeat(95)}@example.org` } });
    assert.equal(email.status, 400, email.text);
  });

  it('answers a display name too long for its column with a WordPress error, not a 500 (any signed-in account, PATCH /me)', async () => {
    await t.user('subscriber', 'cora');
    await t.built.services.calendars.setRole('cora', 'north', 'contributor');
    const res = await t.api.post(admin('/c/north', '/me'), { as: 'cora', json: { name: 'x'.repeat(300) } });
    // Neither a 500 (PostgreSQL) nor the name stored (SQLite): the WordPress error, on both stores.
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'rest_invalid_param', res.text);
    assert.equal(res.body.data?.status, 400, res.text);
    assert.notEqual((await t.api.get(admin('/c/north', '/me'), { as: 'cora' })).body.name, 'x'.repeat(300));
  });
});

forEachStore(
  'probes: ADMIN_REQUIRE_2FA and a calendar’s own administrators',
  (t) => {
    const admin = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      await t.user('subscriber', 'nadia');
      await t.built.services.calendars.setRole('nadia', 'north', 'administrator');
    });

    it('gives a calendar administrator who never enrolled no administrator session in that calendar', async () => {
      // Over Basic, north's administrator is refused the account password (the rule holds by the role in north).
      const basic = await t.api.get(admin('/c/north', '/webhooks'), { as: 'nadia' });
      assert.equal(basic.status, 401, basic.text);
      // The same account signs in on the form, and its session acts as north's administrator without a second factor.
      const cookie = await signIn(t, 'nadia', 'nadia-pw', '/c/north');
      const nonceRes = await fetch(`${t.origin}/c/north/admin/rest-nonce`, { headers: { cookie } });
      const nonce = await nonceRes.text();
      const res = await fetch(admin('/c/north', '/webhooks'), { headers: { cookie, 'x-wp-nonce': nonce } });
      const text = await res.text();
      assert.notEqual(res.status, 200, `north's administrator acted without enrolling a second factor: ${res.status} ${text}`);
      // In the default calendar, where the same account is a subscriber, the rule requires nothing (as over Basic).
      const home = await signIn(t, 'nadia', 'nadia-pw');
      const homeNonce = await (await fetch(`${t.origin}/admin/rest-nonce`, { headers: { cookie: home } })).text();
      const me = await fetch(admin('', '/me'), { headers: { cookie: home, 'x-wp-nonce': homeNonce } });
      assert.equal(me.status, 200, await me.text());
    });
  },
  { ADMIN_REQUIRE_2FA: 'administrators' },
);

forEachStore(
  'probes: the service’s own accounts',
  (t) => {
    const admin = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
    });

    it('gives no invited person the login of the submissions account (they would author, and read, every calendar’s pending submissions)', async () => {
      // A network administrator invites an outside address; its login comes from the address's local part.
      const invited = await t.api.post(admin('', '/invitations'), { as: 'admin', json: { email: 'community-submissions@example.org', role: 'subscriber' } });
      assert.equal(invited.status, 201, invited.text);
      const token = new URL(invited.body.link as string).searchParams.get('token')!;
      assert.ok(await t.built.services.people.useLink('invite', token, 'outsider-pw-123456'));
      const login = invited.body.user.username as string;
      // Someone sends a submission to north, anonymously.
      const sent = await t.api.post(`${t.origin}/c/north${t.config.restRoot}/calendar/submissions/v1/submissions`, {
        json: { title: 'Secret gala (pending)', start_date: '2031-07-01 19:00', end_date: '2031-07-01 22:00', name: 'Sam', email: 'sam@example.net' },
      });
      assert.equal(sent.status, 201, sent.text);
      // Its event's id (ids are the service's: the invited person may as well count up to it).
      const queue = await t.api.get(admin('/c/north', '/submissions'), { as: 'admin' });
      const eventId = queue.body[0].event_id as number;
      // The invited person has no role in north, yet reads its pending submission as its author.
      const read = await t.api.get(`${t.origin}/c/north${t.config.restRoot}/calendar/events/v1/events/${eventId}`, { as: `${login}:outsider-pw-123456` });
      assert.notEqual(read.status, 200, `${login} (invited from outside) reads north's pending submission: ${read.text.slice(0, 200)}`);
      assert.equal(login, 'community-submissions-2', 'a login derived from the address is another one');
    });

    it('refuses the service’s own accounts’ logins when asked for, and gives them no credential', async () => {
      const invited = await t.api.post(admin('', '/invitations'), { as: 'admin', json: { email: 'net@example.org', username: 'calendar-network', role: 'subscriber' } });
      assert.equal(invited.status, 400, invited.text);
      assert.equal(invited.body.code, 'rest_user_invalid_username');
      assert.equal(invited.body.data.status, 400);
      const created = await t.api.post(admin('', '/users'), { as: 'admin', json: { username: 'Community-Submissions', password: 'squatter-pw-123456' } });
      assert.equal(created.status, 400, created.text);
      assert.equal(created.body.code, 'rest_user_invalid_username');
      // The submissions account (made by the submission above) gets no password nor application password.
      const system = (await t.api.get(admin('', '/users'), { as: 'admin', query: { search: 'community-submissions' } })).body.find((u: { username: string }) => u.username === 'community-submissions');
      assert.ok(system, 'the submissions account exists');
      const password = await t.api.post(admin('', `/users/${system.id}`), { as: 'admin', json: { password: 'given-pw-123456789' } });
      assert.equal(password.status, 400, password.text);
      const app = await t.api.post(admin('', `/users/${system.id}/application-passwords`), { as: 'admin', json: { name: 'key' } });
      assert.equal(app.status, 400, app.text);
    });
  },
  { SUBMISSIONS: 'anyone', SUBMISSIONS_MIN_FILL: '0' },
);

forEachStore(
  'probes: a person’s account under the submissions account’s login',
  (t) => {
    it('is never made the author of anonymous submissions: they are refused (503) until it is removed', async () => {
      // Taken before the logins were reserved (written straight into the store, as the old code allowed).
      const squatter = await writeTransaction(t.built.services.store.db, async (trx) =>
        insertUser(trx, {
          login: 'community-submissions',
          role: 'subscriber',
          email: '',
          display_name: 'Squatter',
          password_hash: await hashPassword('squatter-pw-123456'),
          registered_gmt: '2030-01-01 00:00:00',
        }),
      );
      const body = { title: 'Pending gala', start_date: '2031-07-01 19:00', end_date: '2031-07-01 22:00', name: 'Sam', email: 'sam@example.net' };
      const sent = await t.api.post(`${t.origin}${t.config.restRoot}/calendar/submissions/v1/submissions`, { json: body });
      assert.equal(sent.status, 503, sent.text);
      assert.equal(sent.body.code, 'rest_system_account_taken');
      const removed = await t.api.delete(`${t.origin}${t.config.restRoot}/calendar/admin/v1/users/${squatter}`, { as: 'admin', query: { force: 'true' } });
      assert.equal(removed.status, 200, removed.text);
      const again = await t.api.post(`${t.origin}${t.config.restRoot}/calendar/submissions/v1/submissions`, { json: body });
      assert.equal(again.status, 201, again.text);
    });
  },
  { SUBMISSIONS: 'anyone', SUBMISSIONS_MIN_FILL: '0' },
);

forEachStore(
  'probes: a calendar’s administrators and the network administrator’s address',
  (t) => {
    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      await t.user('subscriber', 'nadia');
      await t.built.services.calendars.setRole('nadia', 'north', 'administrator');
    });

    it('does not show a calendar’s own administrator the network administrator’s e-mail (wp/v2/settings)', async () => {
      const res = await t.api.get(`${t.origin}/c/north/wp-json/wp/v2/settings`, { as: 'nadia' });
      assert.equal(res.status, 200, res.text);
      assert.notEqual(res.body.email, 'root@network.example', `north's administrator is told the network administrator's address: ${res.body.email}`);
      assert.equal(res.body.email, '', 'told none, as when CALENDAR_ADMIN_EMAIL is unset');
      // A network administrator is told it, in any calendar.
      for (const prefix of ['', '/c/north']) {
        const network = await t.api.get(`${t.origin}${prefix}/wp-json/wp/v2/settings`, { as: 'admin' });
        assert.equal(network.body.email, 'root@network.example', network.text);
      }
    });
  },
  { CALENDAR_ADMIN_EMAIL: 'root@network.example' },
);
