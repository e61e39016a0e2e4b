/**
 * Helpers of the community-submission tests (issue 29): the namespaces, a sample submission,
 * settings that keep the abuse defences out of the way, and the form as a browser without
 * JavaScript posts it.
 *
 * @example const res = await submit(t, { ...EVENT, title: 'Fair' }); // 201, res.body.token
 */
import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

export const SUB = '/api/calendar/submissions/v1';
export const MOD = '/api/calendar/admin/v1';

export const EVENT = {
  title: 'Street party',
  description: '<p>Music <strong>all night</strong></p><script>alert(1)</script><img src="x">',
  start_date: '2031-06-21 18:00',
  end_date: '2031-06-21 23:00',
  timezone: 'Europe/Paris',
  name: 'Ann Submitter',
  email: 'ann@example.org',
};

/** Settings that keep the defences out of the way of tests that do not test them. */
export const OPEN = { SUBMISSIONS: 'anyone', SUBMISSIONS_MIN_FILL: '0', SUBMISSIONS_MAX_PER_ADDRESS: '0', SUBMISSIONS_MAX_PER_EMAIL: '0' };

export async function form(t: TestServer, path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<{ status: number; text: string; res: Response }> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) params.append(k, x);
  const res = await fetch(t.origin + path, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: params.toString() });
  return { status: res.status, text: await res.text(), res };
}

export async function page(t: TestServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; res: Response }> {
  const res = await fetch(t.origin + path, { redirect: 'manual', headers });
  return { status: res.status, text: await res.text(), res };
}

/** The form's fields as a browser would send them (the stamp from the page itself). */
export async function formFields(t: TestServer, extra: Record<string, string | string[]> = {}): Promise<Record<string, string | string[]>> {
  const p = await page(t, '/events/submit/');
  assert.equal(p.status, 200, p.text);
  const stamp = /name="_started" value="([^"]*)"/.exec(p.text)![1]!;
  return {
    title: 'Jazz by the river',
    description: 'Bring a chair.',
    start_date: '2031-07-14',
    start_time: '20:00',
    end_date: '2031-07-14',
    end_time: '22:30',
    timezone: 'Europe/Paris',
    'venue[venue]': 'River Stage',
    'venue[city]': 'Lyon',
    'organizer[organizer]': 'River Jazz Club',
    'organizer[email]': 'club@example.org',
    name: 'Bob Form',
    email: 'bob@example.org',
    homepage: '',
    _started: stamp,
    ...extra,
  };
}

export async function submit(t: TestServer, body: Record<string, unknown> = EVENT, headers: Record<string, string> = {}) {
  return t.api.post(`${SUB}/submissions`, { json: body, headers });
}
