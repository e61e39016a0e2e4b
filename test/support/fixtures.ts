/**
 * Fixtures created through the API as admin, shared by the HTTP tests.
 *
 * @example const id = await createTerm(t, 'categories', { name: 'Jazz' });
 */
import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

/** Create a category or tag as admin; returns its id. */
export async function createTerm(t: TestServer, base: 'categories' | 'tags', json: Record<string, unknown>): Promise<number> {
  const res = await t.api.post(`/${base}`, { as: 'admin', json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

/** Create an event as admin (published unless told otherwise); returns its id. */
export async function createEvent(t: TestServer, json: Record<string, unknown>): Promise<number> {
  const res = await t.api.post('/events', { as: 'admin', json: { title: 'E', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00', ...json } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}
