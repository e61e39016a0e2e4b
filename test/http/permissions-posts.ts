/**
 * The permission matrix of one post-type resource (events, venues, organizers), run inside a
 * `forEachStore` block: every caller (five roles and anonymous) × every write route (create;
 * update and delete by id and by slug) × own/other users' record × status, and every caller ×
 * every read path (by id, by slug, list, list `status` values) × status. Expected answers come
 * from `permissions-table.ts` (behavior.md §3 as data), never from the production code.
 *
 * @example forEachStore('permission matrix: events', (t) => postMatrix(t, EVENTS));
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiResponse, TestServer } from '../support/harness.js';
import {
  CALLERS,
  FORBIDDEN,
  FORBIDDEN_MESSAGE,
  ROLE_NAMES,
  STATUSES,
  expectCreate,
  expectListStatusParam,
  expectListed,
  expectRead,
  expectStoredStatus,
  expectWrite,
  has,
  mayRead,
  mayWrite,
  denied,
  type Caller,
  type Expected,
} from './permissions-table.js';

export interface PostResource {
  kind: 'event' | 'venue' | 'organizer';
  plural: 'events' | 'venues' | 'organizers';
  /** A minimal valid create body. */
  body(title: string): Record<string, unknown>;
  /** An update body that changes nothing but the name. */
  rename(title: string): Record<string, unknown>;
  /** The name of the required create field (for the missing-field case). */
  requiredField: string;
  /** Extra list query (the event list's date window). */
  listQuery?: Record<string, string | number>;
}

export const EVENTS: PostResource = {
  kind: 'event',
  plural: 'events',
  body: (title) => ({ title, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 12:00:00' }),
  rename: (title) => ({ title }),
  requiredField: 'title',
  listQuery: { start_date: '2020-01-01', end_date: '2040-01-01' },
};
export const VENUES: PostResource = {
  kind: 'venue',
  plural: 'venues',
  body: (title) => ({ venue: title }),
  rename: (title) => ({ venue: title }),
  requiredField: 'venue',
};
export const ORGANIZERS: PostResource = {
  kind: 'organizer',
  plural: 'organizers',
  body: (title) => ({ organizer: title }),
  rename: (title) => ({ organizer: title }),
  requiredField: 'organizer',
};

const FUTURE_DATE = '2035-01-01 10:00:00';
/**
 * The cases of a group are independent (reads; writes on fresh records or on shared ones they
 * do not change), so they run a few at a time: password checks (scrypt) dominate, and they run
 * on libuv's thread pool.
 */
const PARALLEL = { concurrency: 4 };
const UPDATE_METHODS = ['POST', 'PUT', 'PATCH'] as const;

interface Rec {
  id: number;
  slug: string;
}

/** Whose record: the caller's own, or another user's (an editor called "owner"). */
type Whose = 'own' | 'others';
const whoseLabel = (w: Whose) => (w === 'own' ? 'own' : "others'");

/** Owners a caller has records of: anonymous owns nothing. */
function whoses(caller: Caller): Whose[] {
  return caller === 'anonymous' ? ['others'] : ['own', 'others'];
}

export function describeExpected(e: Expected): string {
  return e.code ? `${e.status} ${e.code}` : String(e.status);
}

/** Assert an answer: status, and for errors the code (and WordPress' message for rest_forbidden). */
export function check(res: ApiResponse, e: Expected): void {
  assert.equal(res.status, e.status, `expected ${describeExpected(e)}, got ${res.status}: ${res.text.slice(0, 300)}`);
  if (e.code) {
    assert.equal(res.body?.code, e.code, res.text.slice(0, 300));
    assert.equal(res.body?.data?.status, e.status);
    if (e.code === FORBIDDEN) assert.equal(res.body.message, FORBIDDEN_MESSAGE);
  }
}

/** `as` for the harness: the role's login, or null for anonymous. */
export const as = (caller: Caller): string | null => (caller === 'anonymous' ? null : caller);

export function postMatrix(t: TestServer, r: PostResource): void {
  const ids: Partial<Record<Caller | 'owner', number>> = {};
  /** The read set: `${owner}:${status}` → record; owner is a role name or 'owner'. */
  const records = new Map<string, Rec>();
  let counter = 0;

  const ownerOf = (caller: Caller, whose: Whose): string => (whose === 'own' ? caller : 'owner');
  const rec = (caller: Caller, whose: Whose, status: string): Rec => {
    const found = records.get(`${ownerOf(caller, whose)}:${status}`);
    assert.ok(found, `no ${whose} ${status} record for ${caller}`);
    return found;
  };

  /** Create a record as admin, owned by `ownerId`, in `status` (future via a future date, trash via DELETE). */
  async function make(ownerId: number, status: string): Promise<Rec> {
    const title = `Matrix ${r.kind} ${++counter}`;
    const body: Record<string, unknown> = { ...r.body(title), author: ownerId, status: status === 'trash' || status === 'future' ? 'publish' : status };
    if (status === 'future') body.date = FUTURE_DATE;
    const res = await t.api.post(`/${r.plural}`, { as: 'admin', json: body });
    assert.equal(res.status, 201, res.text);
    const out: Rec = { id: Number(res.body.id), slug: res.body.slug };
    if (status === 'trash') {
      const del = await t.api.delete(`/${r.plural}/${out.id}`, { as: 'admin' });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.body.status, 'trash');
      out.slug = del.body.slug;
    } else assert.equal(res.body.status, status, `setup: ${status} record got ${res.body.status}`);
    assert.equal(Number(res.body.author), ownerId);
    return out;
  }

  before(async () => {
    for (const role of ROLE_NAMES) ids[role] = (await t.user(role)).id;
    ids.owner = (await t.user('editor', 'owner')).id;
    const jobs: Array<[string, number, string]> = [];
    for (const owner of [...ROLE_NAMES, 'owner'] as const) for (const status of STATUSES) jobs.push([owner, ids[owner]!, status]);
    for (let i = 0; i < jobs.length; i += 6) {
      const batch = jobs.slice(i, i + 6);
      const made = await Promise.all(batch.map(([, id, status]) => make(id, status)));
      batch.forEach(([owner, , status], j) => records.set(`${owner}:${status}`, made[j]));
    }
  });

  const itemPath = (form: 'id' | 'slug', x: Rec) => (form === 'id' ? `/${r.plural}/${x.id}` : `/${r.plural}/by-slug/${encodeURIComponent(x.slug)}`);
  const formLabel = (form: 'id' | 'slug') => (form === 'id' ? `/${r.plural}/{id}` : `/${r.plural}/by-slug/{slug}`);

  describe('reads: single records by id and by slug', PARALLEL, () => {
    for (const caller of CALLERS)
      for (const form of ['id', 'slug'] as const)
        for (const whose of whoses(caller))
          for (const status of STATUSES) {
            const e = expectRead(caller, whose === 'own', status, r.kind);
            it(`${caller} GET ${formLabel(form)} (${whoseLabel(whose)} ${status}) → ${describeExpected(e)}`, async () => {
              const x = rec(caller, whose, status);
              const res = await t.api.get(itemPath(form, x), { as: as(caller) });
              check(res, e);
              if (res.status === 200) assert.equal(res.body.id, x.id);
            });
          }
  });

  describe('reads: lists', PARALLEL, () => {
    const listed = async (caller: Caller, status?: string): Promise<ApiResponse> =>
      t.api.get(`/${r.plural}`, { as: as(caller), query: { per_page: 50, ...(r.listQuery ?? {}), ...(status !== undefined ? { status } : {}) } });
    /** The read-set records of the answer, as 'owner:status' keys, sorted. */
    const keysOf = (res: ApiResponse): string[] => {
      const byId = new Map([...records].map(([k, v]) => [v.id, k]));
      return (res.body[r.plural] as Array<{ id: number }>)
        .map((x) => byId.get(x.id))
        .filter((k): k is string => k !== undefined)
        .sort();
    };
    const expectedKeys = (caller: Caller, asked?: string[]): string[] => {
      const out: string[] = [];
      for (const owner of [...ROLE_NAMES, 'owner']) {
        for (const status of STATUSES) if (expectListed(caller, owner === caller, status, asked)) out.push(`${owner}:${status}`);
      }
      return out.sort();
    };

    for (const caller of CALLERS) {
      it(`${caller} GET /${r.plural} (no status): ${has(caller, 'edit') ? "any: others' published and own, all for editors" : 'published only'}`, async () => {
        const res = await listed(caller);
        check(res, { status: 200 });
        assert.deepEqual(keysOf(res), expectedKeys(caller));
      });
      for (const value of ['publish', 'draft', 'trash', 'publish, private', 'future,pending', 'any', 'foo, publish']) {
        const e = expectListStatusParam(caller, value);
        it(`${caller} GET /${r.plural}?status=${value} → ${describeExpected(e)}`, async () => {
          const res = await listed(caller, value);
          check(res, e);
          if (res.status === 200) {
            // `any` is the default set (the editors' `any`)
            const asked = value === 'any' ? undefined : value.split(',').map((s) => s.trim());
            assert.deepEqual(keysOf(res), expectedKeys(caller, asked));
          }
        });
      }
    }
  });

  describe('writes: create', PARALLEL, () => {
    const sentStatuses: Array<string | undefined> = [undefined, 'publish', 'future', 'draft', 'pending', 'private'];
    for (const caller of CALLERS)
      for (const sent of sentStatuses) {
        const e = expectCreate(caller);
        const stored = e.status === 201 ? ` (${expectStoredStatus(caller, sent, sent === 'future')})` : '';
        it(`${caller} POST /${r.plural} status=${sent ?? '(none)'} → ${describeExpected(e)}${stored}`, async () => {
          const body: Record<string, unknown> = { ...r.body(`Created ${r.kind} ${++counter}`) };
          if (sent !== undefined) body.status = sent;
          if (sent === 'future') body.date = FUTURE_DATE;
          const res = await t.api.post(`/${r.plural}`, { as: as(caller), json: body });
          check(res, e);
          if (res.status === 201) {
            assert.equal(res.body.status, expectStoredStatus(caller, sent, sent === 'future'));
            assert.equal(Number(res.body.author), ids[caller as keyof typeof ids]);
          }
        });
      }

    for (const caller of CALLERS) {
      const e = expectStoredStatus(caller, 'publish', true);
      if (!has(caller, 'edit')) continue;
      it(`${caller} POST /${r.plural} status=publish with a future date → ${e}`, async () => {
        const res = await t.api.post(`/${r.plural}`, { as: as(caller), json: { ...r.body(`Scheduled ${r.kind} ${++counter}`), status: 'publish', date: FUTURE_DATE } });
        check(res, { status: 201 });
        assert.equal(res.body.status, e);
      });
    }

    for (const caller of CALLERS)
      for (const whom of caller === 'anonymous' ? (['others'] as Whose[]) : (['own', 'others'] as Whose[])) {
        const e = expectCreate(caller, whom === 'others');
        it(`${caller} POST /${r.plural} author=${whom === 'own' ? 'self' : 'another user'} → ${describeExpected(e)}`, async () => {
          const author = whom === 'own' ? ids[caller as keyof typeof ids] : ids.owner;
          const res = await t.api.post(`/${r.plural}`, { as: as(caller), json: { ...r.body(`Attributed ${r.kind} ${++counter}`), author } });
          check(res, e);
          if (res.status === 201) assert.equal(Number(res.body.author), author);
        });
      }
  });

  describe('writes: update by id and by slug', PARALLEL, () => {
    let i = 0;
    for (const caller of CALLERS)
      for (const form of ['id', 'slug'] as const)
        for (const whose of whoses(caller))
          for (const status of STATUSES) {
            const method = UPDATE_METHODS[i++ % UPDATE_METHODS.length];
            const e = expectWrite(caller, 'edit', whose === 'own', status, '');
            it(`${caller} ${method} ${formLabel(form)} (${whoseLabel(whose)} ${status}) → ${describeExpected(e)}`, async () => {
              const x = rec(caller, whose, status);
              const res = await t.api.request(method, itemPath(form, x), { as: as(caller), json: r.rename(`Renamed ${r.kind} ${++counter}`) });
              check(res, e);
              if (res.status === 200) {
                assert.equal(res.body.id, x.id);
                assert.equal(res.body.status, status, 'a partial update keeps the status');
              }
            });
          }

    for (const caller of CALLERS) {
      if (caller === 'anonymous') continue;
      const allowed = mayWrite(caller, 'edit', true, 'draft');
      const e: Expected = allowed ? { status: 200 } : denied(caller);
      const stored = allowed ? ` (${expectStoredStatus(caller, 'publish')})` : '';
      it(`${caller} PATCH /${r.plural}/{id} (own draft) status=publish → ${describeExpected(e)}${stored}`, async () => {
        const x = await make(ids[caller]!, 'draft');
        const res = await t.api.patch(`/${r.plural}/${x.id}`, { as: as(caller), json: { status: 'publish' } });
        check(res, e);
        if (res.status === 200) assert.equal(res.body.status, expectStoredStatus(caller, 'publish'));
      });

      const eAuthor: Expected = allowed && has(caller, 'edit_others') ? { status: 200 } : denied(caller);
      it(`${caller} PATCH /${r.plural}/{id} (own draft) author=another user → ${describeExpected(eAuthor)}`, async () => {
        const x = await make(ids[caller]!, 'draft');
        const res = await t.api.patch(`/${r.plural}/${x.id}`, { as: as(caller), json: { author: ids.owner } });
        check(res, eAuthor);
        if (res.status === 200) assert.equal(Number(res.body.author), ids.owner);
      });
    }
  });

  describe('writes: delete by id and by slug', PARALLEL, () => {
    for (const caller of CALLERS)
      for (const form of ['id', 'slug'] as const)
        for (const whose of whoses(caller))
          for (const status of STATUSES) {
            const e = expectWrite(caller, 'delete', whose === 'own', status, `${r.kind}-is-in-trash`);
            it(`${caller} DELETE ${formLabel(form)} (${whoseLabel(whose)} ${status}) → ${describeExpected(e)}`, async () => {
              // A delete that succeeds trashes the record: use a fresh one then.
              const x = e.status === 200 ? await make(ids[ownerOf(caller, whose) as keyof typeof ids]!, status) : rec(caller, whose, status);
              const res = await t.api.delete(itemPath(form, x), { as: as(caller) });
              check(res, e);
              if (res.status === 200) {
                assert.equal(res.body.id, x.id);
                assert.equal(res.body.status, 'trash');
              }
            });
          }
  });

  // Issue 24: an argument naming a record the caller may not read answers as an unknown id.
  describe('reads: filters naming a record', PARALLEL, () => {
    /** The list queries that name a record of this type. */
    const filters: Array<{ path: string; arg: string; query?: Record<string, string | number> }> =
      r.kind === 'event'
        ? [
            { path: '/venues', arg: 'event' },
            { path: '/organizers', arg: 'event' },
            { path: '/categories', arg: 'post' },
            { path: '/tags', arg: 'event' },
            { path: '/events', arg: 'post_parent', query: EVENTS.listQuery },
          ]
        : [{ path: '/events', arg: r.kind, query: EVENTS.listQuery }];
    for (const caller of CALLERS)
      for (const whose of whoses(caller))
        for (const status of STATUSES) {
          const e: Expected = mayRead(caller, whose === 'own', status) ? { status: 200 } : { status: 400, code: 'rest_invalid_param' };
          it(`${caller} ${filters.map((f) => `${f.path}?${f.arg}=`).join(', ')} (${whoseLabel(whose)} ${status}) → ${describeExpected(e)}`, async () => {
            const x = rec(caller, whose, status);
            for (const f of filters) {
              const res = await t.api.get(f.path, { as: as(caller), query: { ...(f.query ?? {}), [f.arg]: x.id } });
              check(res, e);
              if (res.status === 400) assert.deepEqual(res.body.data.params, { [f.arg]: 'Invalid parameter.' }, 'as for an unknown id');
            }
          });
        }
  });

  if (r.kind !== 'event') {
    // Issue 24: an inline entry in an event write obeys the create route's rules.
    describe(`writes: a new ${r.kind} inline in an event write`, PARALLEL, () => {
      const inline = (fields: Record<string, unknown>) => ({ [r.kind]: r.kind === 'venue' ? fields : [fields] });
      const linked = (event: any) => (r.kind === 'venue' ? event.venue : event.organizer[0]);
      for (const caller of CALLERS)
        for (const whom of caller === 'anonymous' ? (['others'] as Whose[]) : (['own', 'others'] as Whose[])) {
          const e = expectCreate(caller, whom === 'others');
          it(`${caller} POST /events with ${r.kind}.author=${whom === 'own' ? 'self' : 'another user'} → ${describeExpected(e)}`, async () => {
            const author = whom === 'own' ? ids[caller as keyof typeof ids] : ids.owner;
            const name = `Inline${++counter}x ${r.kind}`;
            const res = await t.api.post('/events', { as: as(caller), json: { ...EVENTS.body(`Inline event ${counter}`), ...inline({ ...r.body(name), author }) } });
            check(res, e);
            if (res.status === 201) assert.equal(Number(linked(res.body).author), author);
            else {
              const found = await t.api.get(`/${r.plural}`, { as: 'admin', query: { search: name.split(' ')[0]!, status: 'publish,draft,pending,private,future' } });
              // (`total` counts without the search when nothing matches, as in the original)
              assert.deepEqual(found.body[r.plural], [], 'nothing created');
            }
          });
        }
      for (const caller of CALLERS) {
        if (!has(caller, 'edit')) continue;
        for (const sent of [undefined, 'publish', 'draft', 'pending', 'private']) {
          const stored = expectStoredStatus(caller, sent);
          it(`${caller} POST /events with ${r.kind}.status=${sent ?? '(none)'} → ${stored}, as POST /${r.plural}`, async () => {
            const fields: Record<string, unknown> = { ...r.body(`Inline status ${r.kind} ${++counter}`) };
            if (sent !== undefined) fields.status = sent;
            const res = await t.api.post('/events', { as: as(caller), json: { ...EVENTS.body(`Inline status event ${counter}`), ...inline(fields) } });
            check(res, { status: 201 });
            assert.equal(linked(res.body).status, stored);
          });
        }
      }
    });
  }

  describe('validation errors win over permission errors', PARALLEL, () => {
    it(`anonymous POST /${r.plural} without ${r.requiredField} → 400 rest_missing_callback_param`, async () => {
      const body = r.body('x');
      delete body[r.requiredField];
      check(await t.api.post(`/${r.plural}`, { as: null, json: body }), { status: 400, code: 'rest_missing_callback_param' });
    });
    it(`subscriber POST /${r.plural} with an unknown status → 400 rest_invalid_param`, async () => {
      check(await t.api.post(`/${r.plural}`, { as: 'subscriber', json: { ...r.body('x'), status: 'kinda_thinking_about_it' } }), { status: 400, code: 'rest_invalid_param' });
    });
    it(`anonymous POST /${r.plural} with an unknown author → 400 rest_invalid_param`, async () => {
      check(await t.api.post(`/${r.plural}`, { as: null, json: { ...r.body('x'), author: 999999 } }), { status: 400, code: 'rest_invalid_param' });
    });
    it(`contributor PATCH /${r.plural}/{id} (others' publish) with a bad date → 400 rest_invalid_param`, async () => {
      const x = rec('contributor', 'others', 'publish');
      check(await t.api.patch(`/${r.plural}/${x.id}`, { as: 'contributor', json: { date: 'before my birthday' } }), { status: 400, code: 'rest_invalid_param' });
    });
    it(`anonymous PATCH /${r.plural}/by-slug/{slug} (others' draft) with an unknown status → 400 rest_invalid_param`, async () => {
      const x = rec('anonymous', 'others', 'draft');
      check(await t.api.patch(itemPath('slug', x), { as: null, json: { status: 'nope' } }), { status: 400, code: 'rest_invalid_param' });
    });
  });
}
