/**
 * Issue 29: what community submissions tell and keep. E-mails as received by an SMTP server the
 * test starts (moderators on each new submission or in a daily digest, the submitter on each
 * decision with their link, English and French, a plain-text and an HTML part), the webhook types
 * (`submission.received`, `.approved`, `.rejected`, `.changes_requested`: never the submitter's
 * identity), retention erasure, an administrator's export and erasure of one submitter, and the
 * proof of work (ALTCHA: challenge, solution, replay, missing).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { solveChallenge } from 'altcha-lib/v1';
import { STORES, startServer, startTwoInstances, type TestServer } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { EVENT, MOD, OPEN, SUB, form, formFields, submit } from '../support/submissions.js';

const WEBHOOKS = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms', WEBHOOKS_TIMEOUT: '2s' };

async function solved(t: TestServer, path = `${SUB}/challenge`): Promise<string> {
  const c = (await t.api.get(path)).body as { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string };
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  assert.ok(solution);
  return Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature })).toString('base64');
}

for (const kind of STORES) {
  describe(`submission e-mails and webhooks [${kind.name}]`, () => {
    let t: TestServer;
    let smtp: TestSmtp;
    let hooks: Receiver;
    before(async () => {
      smtp = await startSmtp();
      hooks = await startReceiver();
      t = await startServer(kind, { ...OPEN, ...WEBHOOKS, SMTP_URL: smtp.url, SMTP_FROM: 'calendar@example.org', SITE_NAME: 'Town Calendar' });
      await t.built.services.users.add({ login: 'mod', role: 'editor', password: 'mod-password', email: 'mod@example.org' });
      const endpoint = await t.api.post(`${MOD}/webhooks`, {
        as: 'admin',
        json: { url: hooks.url + '/submissions', events: ['submission.received', 'submission.approved', 'submission.rejected', 'submission.changes_requested'] },
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      hooks.secret = endpoint.body.secret;
    });
    after(async () => {
      await t.close();
      await smtp.close();
      await hooks.close();
    });

    it('moderators hear of each new submission at once; the submitter gets a receipt with their link, both parts', async () => {
      const made = await submit(t, { ...EVENT, title: 'Mail me' });
      assert.equal(made.status, 201);
      const [toMod] = await smtp.waitFor((m) => m.to.includes('mod@example.org') && m.text.includes('Mail me'));
      assert.equal(toMod!.from, 'calendar@example.org');
      assert.equal(toMod!.subject, '[Town Calendar] 1 new event to moderate');
      assert.match(toMod!.text, /Mail me \(Saturday 21 June 2031, 6:00 PM – 11:00 PM \(Europe\/Paris\)\) — Ann Submitter/);
      assert.match(toMod!.html, /<li>Mail me/);
      const [receipt] = await smtp.waitFor((m) => m.to.includes('ann@example.org') && m.subject.includes('Mail me'));
      assert.equal(receipt!.subject, '[Town Calendar] We received your event: Mail me');
      assert.ok(receipt!.text.includes(made.body.link));
      assert.ok(receipt!.html.includes(`href="${made.body.link}"`));
    });

    it('SUBMISSIONS_NOTIFY_TO changed in the app: the moderation e-mail goes to its addresses instead of the moderators, at once; bad addresses refused', async () => {
      const A = '/api/calendar/admin/v1/settings';
      const res = await t.api.patch(A, { as: 'admin', json: { SUBMISSIONS_NOTIFY_TO: ' desk@example.org,  chief@news.example.org ' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.find((r: { name: string }) => r.name === 'SUBMISSIONS_NOTIFY_TO').value, 'desk@example.org, chief@news.example.org');
      await submit(t, { ...EVENT, title: 'To the desk' });
      const [mail] = await smtp.waitFor((m) => m.text.includes('To the desk') && m.subject.includes('to moderate'));
      assert.deepEqual([...mail!.to].sort(), ['chief@news.example.org', 'desk@example.org']);

      for (const bad of ['desk@example.org, not-an-address', 'a@b', 'x@example.org;y@example.org']) {
        const r = await t.api.patch(A, { as: 'admin', json: { SUBMISSIONS_NOTIFY_TO: bad } });
        assert.equal(r.status, 400, bad);
        assert.equal(r.body.code, 'rest_invalid_param');
        assert.match(r.body.data.params.SUBMISSIONS_NOTIFY_TO, /is not an e-mail address/);
      }
      assert.deepEqual(t.config.submissionsNotifyTo, ['desk@example.org', 'chief@news.example.org']);

      // Back to the default: the editors and administrators with an address.
      assert.equal((await t.api.patch(A, { as: 'admin', json: { SUBMISSIONS_NOTIFY_TO: null } })).status, 200);
      await submit(t, { ...EVENT, title: 'Back to mod' });
      const [again] = await smtp.waitFor((m) => m.text.includes('Back to mod') && m.subject.includes('to moderate'));
      assert.ok(again!.to.includes('mod@example.org'), again!.to.join());
      assert.ok(!again!.to.includes('desk@example.org'));
    });

    it('the submitter hears of each decision, with the reason and their link, in their language', async () => {
      const fr = await submit(t, { ...EVENT, title: 'Fête', email: 'claire@example.org', name: 'Claire' }, { 'accept-language': 'fr-FR,fr;q=0.9' });
      await t.api.post(`${MOD}/submissions/${fr.body.id}/request-changes`, { as: 'mod:mod-password', json: { reason: 'Précisez le lieu' } });
      const [asked] = await smtp.waitFor((m) => m.to.includes('claire@example.org') && m.subject.includes('Modifications demandées'));
      assert.equal(asked!.subject, '[Town Calendar] Modifications demandées pour votre événement : Fête');
      assert.match(asked!.text, /^Bonjour Claire,/);
      assert.match(asked!.text, /Précisez le lieu/);
      assert.ok(asked!.text.includes(fr.body.link));
      assert.match(asked!.html, /<html lang="fr">/);
      await t.api.put(`${SUB}/submissions/${fr.body.token}`, { json: { venue: { venue: 'Salle des fêtes' } } });
      await t.api.post(`${MOD}/submissions/${fr.body.id}/approve`, { as: 'mod:mod-password' });
      const [approved] = await smtp.waitFor((m) => m.to.includes('claire@example.org') && m.subject.includes('approuvé'));
      assert.ok(approved!.text.includes(fr.body.link));

      const en = await submit(t, { ...EVENT, title: 'No thanks', email: 'dan@example.org', name: 'Dan' });
      await t.api.post(`${MOD}/submissions/${en.body.id}/reject`, { as: 'mod:mod-password', json: { reason: 'Outside our area' } });
      const [rejected] = await smtp.waitFor((m) => m.to.includes('dan@example.org') && m.subject.includes('not accepted'));
      assert.equal(rejected!.subject, '[Town Calendar] Your event was not accepted: No thanks');
      assert.match(rejected!.text, /Reason:\r?\nOutside our area/);
      assert.match(rejected!.html, /<blockquote>Outside our area<\/blockquote>/);
    });

    it('webhooks: submission.received, .changes_requested, .approved, .rejected, without the submitter’s identity', async () => {
      const a = await submit(t, { ...EVENT, title: 'Hooked', email: 'eve@example.org', name: 'Eve Private' });
      await t.api.post(`${MOD}/submissions/${a.body.id}/request-changes`, { as: 'mod:mod-password', json: { reason: 'More detail' } });
      await t.api.post(`${MOD}/submissions/${a.body.id}/approve`, { as: 'mod:mod-password' });
      const b = await submit(t, { ...EVENT, title: 'Hooked too', email: 'eve@example.org', name: 'Eve Private' });
      await t.api.post(`${MOD}/submissions/${b.body.id}/reject`, { as: 'mod:mod-password', json: { reason: 'No' } });
      const mine = (m: { body: any }) => m.body.data?.id === a.body.id || m.body.data?.id === b.body.id;
      const got = await hooks.waitFor(mine, 5);
      assert.ok(got.every((m) => m.verified));
      assert.deepEqual(
        got.map((m) => `${m.body.data.id === a.body.id ? 'a' : 'b'}:${m.body.type}`).sort(),
        ['a:submission.approved', 'a:submission.changes_requested', 'a:submission.received', 'b:submission.received', 'b:submission.rejected'].sort(),
      );
      for (const m of got) {
        assert.doesNotMatch(m.raw, /eve@example\.org|Eve Private|127\.0\.0\.1/);
        assert.equal(typeof m.body.data.event_id, 'number');
      }
    });
  });

  describe(`submission digest, retention, privacy and proof of work [${kind.name}]`, () => {
    it('SUBMISSIONS_NOTIFY=daily: one digest for the submissions since the last one, nothing at once', async () => {
      const smtp = await startSmtp();
      const t = await startServer(kind, { ...OPEN, SMTP_URL: smtp.url, SUBMISSIONS_NOTIFY: 'daily' });
      try {
        await t.built.services.users.add({ login: 'mod', role: 'editor', password: 'mod-password', email: 'mod@example.org' });
        await submit(t, { ...EVENT, title: 'Digest one' });
        await submit(t, { ...EVENT, title: 'Digest two' });
        await smtp.waitFor((m) => m.to.includes('ann@example.org'), 2);
        assert.equal(smtp.messages.filter((m) => m.to.includes('mod@example.org')).length, 0);
        const run = await t.built.submissionJobs!.digest!.runOnce();
        assert.equal(run.value, 2);
        const [digest] = await smtp.waitFor((m) => m.to.includes('mod@example.org'));
        assert.equal(digest!.subject, '[Events Calendar] 2 new events to moderate');
        assert.match(digest!.text, /Digest one/);
        assert.match(digest!.text, /Digest two/);
        assert.equal((await t.built.submissionJobs!.digest!.runOnce()).value, 0);
      } finally {
        await t.close();
        await smtp.close();
      }
    });

    it('retention: the submitter’s name, e-mail and address are erased SUBMISSION_RETENTION_DAYS after the decision, by the job', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSION_RETENTION_DAYS: '10' });
      try {
        const decided = await submit(t, { ...EVENT, title: 'Old' });
        const waiting = await submit(t, { ...EVENT, title: 'Still pending' });
        await t.api.post(`${MOD}/submissions/${decided.body.id}/reject`, { as: 'admin', json: { reason: 'No' } });
        assert.equal((await t.built.submissionJobs!.retention.runOnce()).value, 0);
        assert.equal(await t.built.services.submissions.eraseExpired(new Date(Date.now() + 9 * 86_400_000)), 0);
        assert.equal(await t.built.services.submissions.eraseExpired(new Date(Date.now() + 11 * 86_400_000)), 1);
        const gone = (await t.api.get(`${MOD}/submissions/${decided.body.id}`, { as: 'admin' })).body;
        assert.deepEqual([gone.submitter.name, gone.submitter.email, gone.submitter.ip], ['', '', '']);
        assert.ok(gone.submitter.erased);
        assert.equal(gone.log.at(-1).action, 'received');
        const kept = (await t.api.get(`${MOD}/submissions/${waiting.body.id}`, { as: 'admin' })).body;
        assert.equal(kept.submitter.email, 'ann@example.org');
      } finally {
        await t.close();
      }
    });

    it('an administrator exports or erases one submitter’s data; editors may not', async () => {
      const t = await startServer(kind, OPEN);
      try {
        await t.user('editor');
        await submit(t, { ...EVENT, title: 'Mine 1', email: 'Gil@Example.org', name: 'Gil' });
        await submit(t, { ...EVENT, title: 'Mine 2', email: 'gil@example.org', name: 'Gil' });
        await submit(t, { ...EVENT, title: 'Other', email: 'hal@example.org', name: 'Hal' });
        assert.equal((await t.api.get(`${MOD}/submitter-data`, { as: 'editor', query: { email: 'gil@example.org' } })).status, 403);
        const exported = await t.api.get(`${MOD}/submitter-data`, { as: 'admin', query: { email: 'GIL@example.org' } });
        assert.equal(exported.status, 200);
        assert.equal(exported.body.submissions.length, 2);
        assert.deepEqual(exported.body.submissions.map((s: any) => s.event.title).sort(), ['Mine 1', 'Mine 2']);
        assert.ok(exported.body.submissions.every((s: any) => s.submitter.name === 'Gil' && Array.isArray(s.log)));
        assert.equal((await t.api.delete(`${MOD}/submitter-data`, { as: 'editor', query: { email: 'gil@example.org' } })).status, 403);
        const erased = await t.api.delete(`${MOD}/submitter-data`, { as: 'admin', query: { email: 'gil@example.org' } });
        assert.deepEqual(erased.body, { erased: 2 });
        assert.equal((await t.api.get(`${MOD}/submitter-data`, { as: 'admin', query: { email: 'gil@example.org' } })).body.submissions.length, 0);
        const queue = (await t.api.get(`${MOD}/submissions`, { as: 'admin' })).body as any[];
        assert.equal(queue.filter((s) => s.submitter.name === 'Gil').length, 0);
        assert.equal(queue.filter((s) => s.submitter.name === 'Hal').length, 1);
        assert.equal(queue.filter((s) => s.submitter.erased).length, 2);
      } finally {
        await t.close();
      }
    });

    it('SUBMISSIONS_POW=on: a solved challenge is needed (API and form), once; the challenge is declared', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_POW: 'on', SUBMISSIONS_POW_MAX_NUMBER: '2000' });
      try {
        const missing = await submit(t);
        assert.equal(missing.status, 400);
        assert.equal(missing.body.code, 'submission_pow_required');
        const wrong = await submit(t, { ...EVENT, altcha: Buffer.from('{"signature":"x"}').toString('base64') });
        assert.equal(wrong.body.code, 'submission_pow_required');
        const altcha = await solved(t);
        const ok = await submit(t, { ...EVENT, altcha });
        assert.equal(ok.status, 201, ok.text);
        const replay = await submit(t, { ...EVENT, altcha });
        assert.equal(replay.status, 400);
        assert.equal(replay.body.code, 'submission_pow_required');
        const index = await t.api.get(SUB);
        assert.ok(Object.keys(index.body.routes).includes('/calendar/submissions/v1/challenge'));
        // The form: the page carries the script and the challenge path; a post without a solution is refused.
        const page = await fetch(`${t.origin}/events/submit/`).then((r) => r.text());
        assert.match(page, /<script src="\/events\/submit\/pow.js" defer><\/script>/);
        assert.match(page, /data-challenge="\/events\/submit\/challenge"/);
        assert.match(page, /<noscript>/);
        const refused = await form(t, '/events/submit/', await formFields(t));
        assert.equal(refused.status, 400);
        assert.match(refused.text, /proof-of-work/);
        const accepted = await form(t, '/events/submit/', await formFields(t, { altcha: await solved(t, `${t.origin}/events/submit/challenge`) }));
        assert.equal(accepted.status, 303, accepted.text);
      } finally {
        await t.close();
      }
    });
  });
}

for (const kind of STORES) {
  describe(`moderation e-mail recipients on two instances [${kind.name}]`, () => {
    let smtp: TestSmtp;
    let pair: Awaited<ReturnType<typeof startTwoInstances>>;
    before(async () => {
      smtp = await startSmtp();
      pair = await startTwoInstances(kind, 'notify-to', { ...OPEN, SMTP_URL: smtp.url, SMTP_FROM: 'calendar@example.org' });
    });
    after(async () => {
      await pair.close();
      await smtp.close();
    });

    it('addresses set on one instance receive the moderation e-mail of a submission to the other at once', async () => {
      const res = await pair.a.api.patch('/api/calendar/admin/v1/settings', { as: 'admin', json: { SUBMISSIONS_NOTIFY_TO: 'desk@example.org' } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await submit(pair.b, { ...EVENT, title: 'Via b' })).status, 201);
      const [mail] = await smtp.waitFor((m) => m.text.includes('Via b') && m.subject.includes('to moderate'));
      assert.deepEqual(mail!.to, ['desk@example.org']);
    });
  });
}
