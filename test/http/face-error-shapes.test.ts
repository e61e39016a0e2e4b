/**
 * Issue 44: errors raised outside a face's own handlers (a URL the router cannot read, a query
 * string or a form body over the limits, a method the face's paths do not take, a form's expired
 * nonce) are answered in the face's own shape (web/error-shapes.ts): CalDAV a DAV error document,
 * the admin face, the submission pages and the embed's views an HTML page, the embed's component
 * file text; the REST API keeps its JSON. Before, every one of them was the REST API's JSON. Found
 * by the robustness suite over the faces (test/robustness/fuzz-faces.test.ts). On both stores.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { OPEN, SUB, submit } from '../support/submissions.js';

interface Answer {
  status: number;
  type: string;
  text: string;
  headers: Headers;
}

async function send(t: TestServer, method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const res = await fetch(t.origin + path, { method, redirect: 'manual', ...init });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), headers: res.headers };
}

function assertPage(res: Answer, status: number, text?: RegExp) {
  assert.equal(res.status, status, res.text.slice(0, 300));
  assert.match(res.type, /^text\/html/, res.text.slice(0, 300));
  assert.match(res.text, /^<!DOCTYPE html>/i);
  if (text) assert.match(res.text, text);
}

function assertDav(res: Answer, status: number, condition: RegExp) {
  assert.equal(res.status, status, res.text.slice(0, 300));
  assert.match(res.type, /^application\/xml/);
  assert.match(res.text, /<d:error[\s>]/);
  assert.match(res.text, condition);
}

/** A form body nested deeper than the query-string limits allow (5 levels). */
const TOO_DEEP = 'title=x&a[b][c][d][e][f][g]=1';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

forEachStore(
  "errors outside the faces' handlers are answered in each face's shape",
  (t) => {
    it('CalDAV: a method no route takes is 405 with Allow, a URL the router cannot read 400, a path under the well-known URI 404: DAV error documents', async () => {
      const search = await send(t, 'SEARCH', '/dav/calendars/events/');
      assertDav(search, 405, /method-not-allowed/);
      assert.match(search.headers.get('allow') ?? '', /PROPFIND/);
      assertDav(await send(t, 'PROPFIND', '/dav/calendars/category-%zz/', { headers: { depth: '0' } }), 400, /malformed percent-encoding/);
      assertDav(await send(t, 'GET', '/dav/%E0%A4%A'), 400, /malformed percent-encoding/);
      assertDav(await send(t, 'PROPFIND', '/.well-known/caldav/deeper', { headers: { depth: '0' } }), 404, /resource-not-found/);
    });

    it('the admin face: an expired form nonce is a 403 page (as WordPress says it: the link has expired), a bad URL a 400 page', async () => {
      for (const path of ['/admin/sign-out', '/admin/two-factor/start', '/admin/login/code']) {
        const res = await send(t, 'POST', path, { headers: FORM, body: '_wpnonce=stale' });
        assertPage(res, 403, /The link you followed has expired/);
        assert.equal(res.headers.get('x-frame-options'), 'DENY');
      }
      assertPage(await send(t, 'POST', '/admin/sign-out', { headers: { ...FORM, 'accept-language': 'fr' }, body: '_wpnonce=stale' }), 403, /Le lien que vous avez suivi a expiré/);
      assertPage(await send(t, 'GET', '/admin/%zz'), 400, /malformed percent-encoding/);
      assertPage(await send(t, 'PUT', '/admin/login'), 404);
    });

    it('the submission pages: a form over the limits, a bad URL, a method they do not take: pages', async () => {
      const sub = await submit(t);
      assert.equal(sub.status, 201, sub.text);
      assertPage(await send(t, 'POST', `/events/submit/status/${sub.body.token}`, { headers: FORM, body: TOO_DEEP }), 400, /nested deeper/);
      assertPage(await send(t, 'POST', '/events/submit/', { headers: { ...FORM, 'accept-language': 'fr' }, body: TOO_DEEP }), 400, /Le formulaire n’a pas pu être lu/);
      assertPage(await send(t, 'GET', '/events/submit/status/%zz'), 400);
      assertPage(await send(t, 'DELETE', '/events/submit/'), 404);
      // The REST routes of submissions stay JSON.
      const api = await send(t, 'POST', `${SUB}/submissions`, { headers: FORM, body: TOO_DEEP });
      assert.equal(api.status, 400);
      assert.match(api.type, /^application\/json/);
    });

    it("the embeds: the views' errors are pages, the component file's text; the embedding namespace stays JSON", async () => {
      const many = Array.from({ length: 1001 }, (_, i) => `category=c${i}`).join('&');
      assertPage(await send(t, 'GET', `/embed/?${many}`), 400, /more than 1000 parameters/);
      assertPage(await send(t, 'GET', `/embed/snippet?${many}`), 400);
      assertPage(await send(t, 'POST', '/embed/snippet'), 404);
      const script = await send(t, 'GET', '/embed/events-calendar.%zz.js');
      assert.equal(script.status, 400);
      assert.match(script.type, /^text\/plain/);
      const api = await send(t, 'GET', `/api/calendar/embed/v1/fullcalendar?${many}`);
      assert.equal(api.status, 400);
      assert.match(api.type, /^application\/json/);
    });

    it('the REST API and unknown paths keep the JSON shape', async () => {
      for (const path of ['/api/calendar/events/v1/events/%zz', '/nowhere/%zz']) {
        const res = await send(t, 'GET', path);
        assert.equal(res.status, 400);
        assert.match(res.type, /^application\/json/);
        assert.equal(JSON.parse(res.text).code, 'rest_bad_url');
      }
      const missing = await send(t, 'GET', '/nowhere');
      assert.equal(missing.status, 404);
      assert.equal(JSON.parse(missing.text).code, 'rest_no_route');
    });
  },
  OPEN,
);
