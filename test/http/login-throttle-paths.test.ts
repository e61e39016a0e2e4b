/**
 * One authentication path (issue 24): every credential check goes through the failed-login
 * throttle whatever the spelling of the URL the router accepts (duplicate slashes, percent-encoding,
 * `/wp-json` and namespace aliases, `rest_route`), and `_jsonp` is decided from the route that
 * matched. Failures count per user (login and e-mail alike), block per (user, client) only, IPv6
 * clients by /64; a user without a password, an unknown login and a wrong password cost the same
 * scrypt work (counted, not timed); a refused attempt costs none.
 *
 * Clients are told apart by `X-Forwarded-For` (TRUST_PROXY=true); each test uses clients and users
 * of its own, since the counts live as long as the database. Two instances on one database share
 * the counts (table `login_failures`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { passwordWork } from '../../src/domain/users.js';
import { forEachStore, startTwoInstances, STORES, type TestServer } from '../support/harness.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A GET of this exact request target (no URL normalisation on the way). */
function rawGet(t: TestServer, target: string, options: { as?: string; from?: string } = {}): Promise<RawResponse> {
  const url = new URL(t.origin);
  const headers: Record<string, string> = {};
  if (options.as !== undefined) headers.authorization = 'Basic ' + Buffer.from(options.as).toString('base64');
  if (options.from !== undefined) headers['x-forwarded-for'] = options.from;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: target, method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether the answer was for an authenticated viewer (WordPress' `Expires` in the past is only sent to them). */
const authenticated = (res: RawResponse) => res.headers.expires === 'Wed, 11 Jan 1984 05:00:00 GMT';

const EVENTS_SPELLINGS = [
  '//api/calendar/events/v1/events',
  '/%61pi/calendar/events/v1/events',
  '//wp-json/tribe/events/v1/events',
  '/?rest_route=/calendar/events/v1/events',
  '/api//calendar/events/v1//events',
];

forEachStore(
  'login throttle: one authentication path',
  (t) => {
    let n = 0;
    /** A new user (login `u<n>`, e-mail `u<n>@example.com`, password `u<n>-pw`). */
    const newUser = async (options: { noPassword?: boolean } = {}) => {
      const login = `u${++n}`;
      await t.built.services.users.add({ login, role: 'author', password: `${login}-pw`, email: `${login}@example.com`, ...options });
      return { login, email: `${login}@example.com`, right: `${login}:${login}-pw` };
    };
    let c = 0;
    /** A new client address. */
    const newClient = () => `198.51.100.${++c}`;

    it('every spelling of an API path reaches the route, and the right password authenticates there', async () => {
      const user = await newUser();
      const from = newClient();
      for (const target of EVENTS_SPELLINGS) {
        const res = await rawGet(t, target, { as: user.right, from });
        assert.equal(res.status, 200, target);
        assert.ok(Array.isArray(JSON.parse(res.text).events), target);
        assert.ok(authenticated(res), `${target} is authenticated`);
      }
    });

    for (const target of EVENTS_SPELLINGS) {
      it(`wrong passwords sent to ${target} are counted: then the right one from that client is 429`, async () => {
        const user = await newUser();
        const from = newClient();
        for (let i = 0; i < 5; i++) {
          const res = await rawGet(t, target, { as: `${user.login}:wrong-${i}`, from });
          assert.equal(res.status, 200, `failure ${i + 1}: an anonymous read`);
          assert.ok(!authenticated(res));
        }
        const blocked = await rawGet(t, target, { as: user.right, from });
        assert.equal(blocked.status, 429, target);
        assert.equal(JSON.parse(blocked.text).code, 'rest_too_many_requests');
        assert.ok(Number(blocked.headers['retry-after']) >= 1);
        // The count is the user's, whatever the spelling: the plain path is blocked too.
        assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from })).status, 429);
      });
    }

    it('40 parallel guesses from one client: at most 5 are checked, the rest are 429 (and cost no scrypt)', async () => {
      const user = await newUser();
      const from = newClient();
      const before = passwordWork.verifications;
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => rawGet(t, EVENTS_SPELLINGS[i % EVENTS_SPELLINGS.length]!, { as: `${user.login}:guess-${i}`, from })));
      const checked = answers.filter((r) => r.status === 200).length;
      const refused = answers.filter((r) => r.status === 429).length;
      assert.equal(checked + refused, 40);
      assert.ok(checked <= 5, `${checked} guesses were checked`);
      assert.ok(passwordWork.verifications - before <= 5, `${passwordWork.verifications - before} scrypt verifications`);
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from })).status, 429);
    });

    it('parallel requests with the same right credentials share one check: none is refused', async () => {
      const user = await newUser();
      const from = newClient();
      const answers = await Promise.all(Array.from({ length: 12 }, () => rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from })));
      assert.deepEqual(
        answers.map((r) => r.status),
        answers.map(() => 200),
      );
      assert.ok(answers.every(authenticated));
    });

    it('the login and the e-mail share one count', async () => {
      const user = await newUser();
      const from = newClient();
      for (let i = 0; i < 3; i++) assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: `${user.login}:wrong-${i}`, from })).status, 200);
      for (let i = 0; i < 2; i++) assert.equal((await rawGet(t, '//api/calendar/events/v1/events', { as: `${user.email}:wrong-${i}`, from })).status, 200);
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from })).status, 429, 'by login');
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: `${user.email}:${user.login}-pw`, from })).status, 429, 'by e-mail');
    });

    it('a stranger cannot lock a user out: the right password from another client still works', async () => {
      const user = await newUser();
      const attacker = newClient();
      for (let i = 0; i < 12; i++) await rawGet(t, '/api/calendar/events/v1/events', { as: `${user.login}:guess-${i}`, from: attacker });
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from: attacker })).status, 429, 'the guessing client is blocked');
      const other = await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from: newClient() });
      assert.equal(other.status, 200);
      assert.ok(authenticated(other), 'another client logs in');
      // And a write works from there too.
      const write = await t.api.post('/events', {
        as: user.right,
        headers: { 'x-forwarded-for': newClient() },
        json: { title: 'Still here', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00' },
      });
      assert.equal(write.status, 201);
    });

    it('IPv6 clients in one /64 share a count; the next /64 and IPv4-mapped addresses are told apart', async () => {
      const user = await newUser();
      for (let i = 1; i <= 5; i++) assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: `${user.login}:wrong-${i}`, from: `2001:db8:24:1::${i.toString(16)}` })).status, 200);
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from: '2001:db8:24:1:ffff:ffff:ffff:ffff' })).status, 429, 'same /64');
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: user.right, from: '2001:db8:24:2::1' })).status, 200, 'next /64');

      const other = await newUser();
      for (let i = 1; i <= 5; i++) await rawGet(t, '/api/calendar/events/v1/events', { as: `${other.login}:wrong-${i}`, from: '203.0.113.24' });
      assert.equal((await rawGet(t, '/api/calendar/events/v1/events', { as: other.right, from: '::ffff:203.0.113.24' })).status, 429, 'IPv4-mapped is the IPv4 client');
    });

    it('`_jsonp` is decided from the matched route: odd spellings answer JSONP, anonymously, and check no password', async () => {
      const user = await newUser();
      const from = newClient();
      const before = passwordWork.verifications;
      for (const target of EVENTS_SPELLINGS) {
        const res = await rawGet(t, `${target}${target.includes('?') ? '&' : '?'}_jsonp=cb`, { as: user.right, from });
        assert.equal(res.status, 200, target);
        assert.match(String(res.headers['content-type']), /^application\/javascript/, target);
        assert.ok(res.text.startsWith('/**/cb('), target);
        assert.ok(!authenticated(res), `${target}: a JSONP request is anonymous`);
      }
      assert.equal(passwordWork.verifications, before, 'no password was checked');
      // A bad callback name is refused for odd spellings too.
      assert.equal((await rawGet(t, '//api/calendar/events/v1/events?_jsonp=a(b)', { from })).status, 400);
    });

    it('pages, /metrics and health routes are not API requests (no JSONP, no credential check)', async () => {
      const before = passwordWork.verifications;
      for (const target of ['/events/?_jsonp=cb', '//events/?_jsonp=cb', '/livez?_jsonp=cb', '//healthz?_jsonp=cb', '/metrics?_jsonp=cb', '//metrics?_jsonp=cb']) {
        const res = await rawGet(t, target, { as: 'nobody:x', from: newClient() });
        assert.ok(!String(res.headers['content-type'] ?? '').startsWith('application/javascript'), target);
      }
      assert.equal(passwordWork.verifications, before);
    });

    it('a user without a password, an unknown login and a wrong password cost the same scrypt work', async () => {
      const imported = await newUser({ noPassword: true });
      const known = await newUser();
      const cost = async (as: string) => {
        const before = passwordWork.verifications;
        const res = await rawGet(t, '//api/calendar/events/v1/events', { as, from: newClient() });
        assert.equal(res.status, 200);
        assert.ok(!authenticated(res));
        return passwordWork.verifications - before;
      };
      const app = 'abcd efgh ijkl mnop qrst uvwx';
      assert.deepEqual(
        [await cost(`${imported.login}:anything`), await cost('nobody-at-all:anything'), await cost(`${known.login}:wrong`), await cost(`${imported.email}:anything`)],
        [1, 1, 1, 1],
        'one verification each',
      );
      assert.deepEqual([await cost(`${imported.login}:${app}`), await cost(`nobody-at-all:${app}`), await cost(`${known.login}:${app}`)], [2, 2, 2], 'application-password-shaped: two each');
      // Over the domain API too (no HTTP).
      const before = passwordWork.verifications;
      assert.equal((await t.built.services.users.authenticate('Basic ' + Buffer.from(`${imported.login}:`).toString('base64'))).id, 0);
      assert.equal(passwordWork.verifications - before, 1, 'even an empty password');
    });
  },
  { TRUST_PROXY: 'true' },
);

for (const kind of STORES) {
  describe(`login throttle: two instances on one database share the counts [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: () => Promise<void>;
    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'login-throttle', { TRUST_PROXY: 'true' }));
    });
    after(() => closeBoth());
    let n = 0;
    const newUser = async () => {
      const login = `two${++n}`;
      await a.built.services.users.add({ login, role: 'author', password: `${login}-pw` });
      return { login, right: `${login}:${login}-pw` };
    };
    const PATH = '/api/calendar/events/v1/events';

    it('failures on either instance add up: after LOGIN_MAX_FAILURES (5) in all, the client is refused on both', async () => {
      const user = await newUser();
      const from = '198.51.100.201';
      for (let i = 0; i < 5; i++) {
        const res = await rawGet(i % 2 ? b : a, PATH, { as: `${user.login}:wrong-${i}`, from });
        assert.equal(res.status, 200, `failure ${i + 1} is checked`);
      }
      for (const t of [a, b]) {
        const blocked = await rawGet(t, PATH, { as: user.right, from });
        assert.equal(blocked.status, 429);
        assert.equal(JSON.parse(blocked.text).message, `Too many failed login attempts. Try again in ${blocked.headers['retry-after']} seconds.`);
      }
      // Another client is not refused, on either instance.
      assert.ok(authenticated(await rawGet(b, PATH, { as: user.right, from: '198.51.100.202' })));
    });

    it('40 parallel guesses from one client split over both instances: at most 5 are checked', async () => {
      const user = await newUser();
      const from = '198.51.100.203';
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => rawGet(i % 2 ? b : a, PATH, { as: `${user.login}:guess-${i}`, from })));
      const checked = answers.filter((r) => r.status === 200).length;
      assert.equal(checked + answers.filter((r) => r.status === 429).length, 40);
      assert.ok(checked <= 5, `${checked} guesses were checked`);
      assert.ok(checked >= 1);
      for (const t of [a, b]) assert.equal((await rawGet(t, PATH, { as: user.right, from })).status, 429);
    });
  });
}
