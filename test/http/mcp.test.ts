/**
 * The MCP face (docs/mcp.md) through the official SDK's client over Streamable HTTP, against a real
 * server: the tools listed, public reads for anonymous callers (a draft never appears: search, read
 * by id, the feed resource), anonymous writes refused with REST's message, an editor's writes (with
 * an application password) seen in the legacy API, its tribe alias, the event's page and a webhook
 * delivery; update, trash, restore; a contributor's limits; paging; wrong credentials; MCP=false.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, startServer, startTwoInstances, STORES } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { appPasswordUser, call, connect } from '../support/mcp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const ADMIN_BASE = '/api/calendar/admin/v1';

const ev = (title: string, extra: Record<string, unknown> = {}) => ({ title, start_date: '2032-03-01 10:00:00', end_date: '2032-03-01 12:00:00', status: 'publish', ...extra });

forEachStore(
  'mcp',
  (t) => {
    let anon: Client;
    let editor: Client;
    let editorCred: string;
    let publicId: number;
    let draftId: number;
    let r: Receiver;

    before(async () => {
      r = await startReceiver();
      anon = await connect(t);
      editorCred = await appPasswordUser(t, 'editor', 'eddie');
      editor = await connect(t, editorCred);
      const pub = await t.api.post('/events', { as: 'admin', json: ev('Public harbour concert', { start_date: '2032-03-02 18:00:00', end_date: '2032-03-02 20:00:00' }) });
      assert.equal(pub.status, 201, pub.text);
      publicId = pub.body.id;
      const draft = await t.api.post('/events', { as: 'admin', json: ev('Secret harbour draft', { status: 'draft', start_date: '2032-03-02 19:00:00', end_date: '2032-03-02 21:00:00' }) });
      draftId = draft.body.id;
    });
    after(async () => {
      await anon?.close();
      await editor?.close();
      await r?.close();
    });

    it('lists the tools, resources and prompts, each tool with a described input schema', async () => {
      const { tools } = await anon.listTools();
      const names = tools.map((x) => x.name);
      for (const n of [
        'about_calendar',
        'search_events',
        'get_event',
        'list_categories',
        'list_tags',
        'list_venues',
        'list_organizers',
        'create_event',
        'update_event',
        'trash_event',
        'restore_event',
        'create_venue',
        'restore_organizer',
      ]) {
        assert.ok(names.includes(n), n);
      }
      // SUBMISSIONS=off (the default): no proposal or moderation tool, as the REST routes answer 404.
      assert.ok(!names.includes('propose_event'));
      assert.ok(!names.includes('list_submissions'));
      const search = tools.find((x) => x.name === 'search_events')!;
      const props = search.inputSchema.properties as Record<string, { description?: string }>;
      assert.match(props.start_date!.description!, /ISO 8601/);
      assert.deepEqual((props.start_date as { examples?: unknown[] }).examples, ['2026-12-01']);
      const create = tools.find((x) => x.name === 'create_event')!;
      assert.deepEqual(create.inputSchema.required, ['title', 'start_date', 'end_date']);
      assert.deepEqual((create.inputSchema.properties as Record<string, { examples?: unknown[] }>).categories!.examples, [['Music']]);
      assert.equal(search.annotations?.readOnlyHint, true);
      const { resources } = await anon.listResources();
      assert.ok(resources.some((x) => x.uri === `${t.config.siteUrl}/events.ics`));
      const { resourceTemplates } = await anon.listResourceTemplates();
      assert.ok(resourceTemplates.some((x) => x.uriTemplate.endsWith('/events/category/{slug}/ical/')));
      const { prompts } = await anon.listPrompts();
      assert.deepEqual(
        prompts.map((p) => p.name),
        ['plan_my_week'],
      );
      const plan = await anon.getPrompt({ name: 'plan_my_week', arguments: { interests: 'jazz' } });
      assert.match((plan.messages[0]!.content as { text: string }).text, /search_events.*jazz/s);
      const about = await call(anon, 'about_calendar');
      assert.equal(about.json.timezone, t.config.timezone);
      assert.equal(about.json.signed_in_as, null);
    });

    it('anonymous callers read public events; a draft never appears (search, read by id, the feed)', async () => {
      const found = await call(anon, 'search_events', { search: 'harbour', start_date: '2032-03-01', end_date: '2032-03-31' });
      assert.equal(found.isError, false, found.text);
      assert.deepEqual(
        found.json.events.map((e: any) => e.id),
        [publicId],
      );
      assert.equal(found.json.total, 1);
      const one = await call(anon, 'get_event', { id: publicId });
      assert.equal(one.json.title, 'Public harbour concert');
      const draft = await call(anon, 'get_event', { id: draftId });
      assert.equal(draft.isError, true);
      const rest = await t.api.get(`/events/${draftId}`);
      assert.ok(draft.text.startsWith(rest.body.message), draft.text);
      const drafts = await call(anon, 'search_events', { search: 'harbour', start_date: '2032-03-01', status: 'draft' });
      assert.ok(drafts.isError || !drafts.text.includes('Secret'), drafts.text);
      const feed = await anon.readResource({ uri: `${t.config.siteUrl}/events.ics` });
      const ics = (feed.contents[0] as { text: string }).text;
      assert.match(ics, /BEGIN:VCALENDAR/);
      assert.match(ics, /Public harbour concert/);
      assert.ok(!ics.includes('Secret harbour draft'));
      // The editor sees the draft.
      const asEditor = await call(editor, 'get_event', { id: draftId });
      assert.equal(asEditor.json.title, 'Secret harbour draft');
    });

    it('anonymous write tools are refused with the REST message', async () => {
      const rest = await t.api.post('/events', { json: ev('Nope') });
      assert.equal(rest.status, 401);
      const made = await call(anon, 'create_event', ev('Nope'));
      assert.equal(made.isError, true);
      assert.ok(made.text.startsWith(rest.body.message), made.text);
      assert.match(made.text, /HTTP 401/);
      const trash = await call(anon, 'trash_event', { id: publicId });
      assert.equal(trash.isError, true);
      const restTrash = await t.api.delete(`/events/${publicId}`);
      assert.ok(trash.text.startsWith(restTrash.body.message), trash.text);
      assert.equal((await t.api.get(`/events/${publicId}`)).body.status, 'publish');
    });

    it('an editor creates an event seen in the legacy API, its tribe alias, the event page and a webhook delivery; updates, trashes, restores', async () => {
      const hook = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url: r.url.replace('/hook', '/hook/mcp'), events: ['event.created'] } });
      assert.equal(hook.status, 201, hook.text);
      r.secret = hook.body.secret;
      const venue = await call(editor, 'create_venue', { venue: 'Quay Hall', city: 'Brest', country: 'France', geo_lat: 48.39, geo_lng: -4.49 });
      assert.equal(venue.isError, false, venue.text);
      const made = await call(editor, 'create_event', {
        title: 'Assistant made',
        start_date: '2032-04-10T19:30:00',
        end_date: '2032-04-10 22:00',
        venue: venue.json.id,
        categories: ['Music'],
        status: 'publish',
      });
      assert.equal(made.isError, false, made.text);
      const id = made.json.id;
      assert.equal(made.json.start_date, '2032-04-10 19:30:00');
      assert.deepEqual(made.json.categories, ['Music']);
      const legacy = await t.api.get(`/api/calendar/events/v1/events/${id}`);
      assert.equal(legacy.status, 200);
      assert.equal(legacy.body.title, 'Assistant made');
      assert.equal(legacy.body.venue.venue, 'Quay Hall');
      const tribe = await t.api.get(`/api/tribe/events/v1/events/${id}`);
      assert.equal(tribe.status, 200);
      assert.equal(tribe.body.id, id);
      const pageRes = await fetch(made.json.url);
      assert.equal(pageRes.status, 200);
      assert.match(await pageRes.text(), /Assistant made/);
      const [delivery] = await r.waitFor((m) => m.path === '/hook/mcp' && m.body.type === 'event.created' && m.body.data?.id === id);
      assert.equal(delivery!.verified, true);
      // Near the venue's point.
      const near = await call(anon, 'search_events', { start_date: '2032-04-01', end_date: '2032-05-01', near: { lat: 48.4, lng: -4.5, radius: 10, unit: 'km' } });
      assert.deepEqual(
        near.json.events.map((e: any) => e.id),
        [id],
      );

      const updated = await call(editor, 'update_event', { id, title: 'Assistant made (moved)', end_date: '2032-04-10 23:00' });
      assert.equal(updated.isError, false, updated.text);
      assert.equal((await t.api.get(`/events/${id}`)).body.title, 'Assistant made (moved)');
      assert.equal((await t.api.get(`/events/${id}`)).body.start_date, '2032-04-10 19:30:00');
      const bad = await call(editor, 'update_event', { id, start_date: 'not a date at all' });
      const restBad = await t.api.post(`/events/${id}`, { as: editorCred, json: { start_date: 'not a date at all' } });
      assert.equal(restBad.status, 400);
      assert.equal(bad.isError, true);
      assert.ok(bad.text.startsWith(restBad.body.message), bad.text);
      assert.match(bad.text, /start_date/);

      const trashed = await call(editor, 'trash_event', { id });
      assert.equal(trashed.json.status, 'trash');
      assert.equal((await t.api.get(`/events/${id}`)).status, 403);
      const restored = await call(editor, 'restore_event', { id });
      assert.equal(restored.isError, false, restored.text);
      assert.equal(restored.json.status, 'publish');
      assert.equal((await t.api.get(`/events/${id}`)).status, 200);

      const trashedVenue = await call(editor, 'trash_venue', { id: venue.json.id });
      assert.equal(trashedVenue.json.status, 'trash');
      const restoredVenue = await call(editor, 'restore_venue', { id: venue.json.id });
      assert.equal(restoredVenue.json.status, 'publish', restoredVenue.text);
      const org = await call(editor, 'create_organizer', { organizer: 'Harbour Society', email: 'hello@example.org' });
      assert.equal(org.isError, false, org.text);
      const orgUpdated = await call(editor, 'update_organizer', { id: org.json.id, phone: '+33 1 23 45 67 89' });
      assert.equal(orgUpdated.isError, false, orgUpdated.text);
      assert.equal((await t.api.get(`/organizers/${org.json.id}`)).body.phone, '+33 1 23 45 67 89');
    });

    it("a contributor's limits: their event is not published, others' events are not theirs to change", async () => {
      const cred = await appPasswordUser(t, 'contributor', 'connie');
      const connie = await connect(t, cred);
      try {
        const mine = await call(connie, 'create_event', ev('Contributed', { status: 'draft' }));
        assert.equal(mine.isError, false, mine.text);
        assert.equal(mine.json.status, 'draft');
        assert.equal((await call(anon, 'get_event', { id: mine.json.id })).isError, true);
        const publish = await call(connie, 'update_event', { id: mine.json.id, status: 'publish' });
        const restPublish = await t.api.post(`/events/${mine.json.id}`, { as: cred, json: { status: 'publish' } });
        if (restPublish.status >= 400) {
          assert.equal(publish.isError, true);
          assert.ok(publish.text.startsWith(restPublish.body.message), publish.text);
        } else assert.notEqual(restPublish.body.status, 'publish');
        const others = await call(connie, 'update_event', { id: publicId, title: 'Hijacked' });
        const restOthers = await t.api.post(`/events/${publicId}`, { as: cred, json: { title: 'Hijacked' } });
        assert.equal(restOthers.status, 403);
        assert.equal(others.isError, true);
        assert.ok(others.text.startsWith(restOthers.body.message), others.text);
        const trash = await call(connie, 'trash_event', { id: publicId });
        assert.equal(trash.isError, true);
        assert.equal((await t.api.get(`/events/${publicId}`)).body.title, 'Public harbour concert');
      } finally {
        await connie.close();
      }
    });

    it('pages large results: page and per_page, with total, total_pages and next_page', async () => {
      for (let i = 1; i <= 5; i++)
        assert.equal((await t.api.post('/events', { as: 'admin', json: ev(`Paged ${i}`, { start_date: `2033-01-0${i} 10:00:00`, end_date: `2033-01-0${i} 11:00:00` }) })).status, 201);
      const first = await call(anon, 'search_events', { search: 'Paged', start_date: '2033-01-01', end_date: '2033-02-01', per_page: 2 });
      assert.equal(first.json.total, 5);
      assert.equal(first.json.total_pages, 3);
      assert.equal(first.json.next_page, 2);
      assert.deepEqual(
        first.json.events.map((e: any) => e.title),
        ['Paged 1', 'Paged 2'],
      );
      const last = await call(anon, 'search_events', { search: 'Paged', start_date: '2033-01-01', end_date: '2033-02-01', per_page: 2, page: 3 });
      assert.deepEqual(
        last.json.events.map((e: any) => e.title),
        ['Paged 5'],
      );
      assert.equal(last.json.next_page, null);
      const tooMany = await call(anon, 'search_events', { per_page: 500 });
      assert.equal(tooMany.isError, true);
    });

    it('wrong credentials answer 401 before any MCP message; a body over the limit 413; GET /mcp is 405 (stateless)', async () => {
      const res = await fetch(`${t.origin}/mcp`, {
        method: 'POST',
        headers: { authorization: 'Basic ' + Buffer.from('eddie:wrong').toString('base64'), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /);
      const refusal = await res.json();
      assert.equal(refusal.jsonrpc, '2.0');
      assert.equal(refusal.error.data.code, 'rest_invalid_credentials');
      assert.match(refusal.error.message, /wrong password/);
      // A body that is not JSON: JSON-RPC's parse error.
      const garbled = await fetch(`${t.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":' });
      assert.equal(garbled.status, 400);
      assert.equal((await garbled.json()).error.code, -32700);
      // The body limit (256 KB): a larger request is refused before it is read as MCP.
      const big = await fetch(`${t.origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_events', arguments: { search: 'x'.repeat(300 * 1024) } } }),
      });
      assert.equal(big.status, 413);
      await big.text();
      const get = await fetch(`${t.origin}/mcp`, { headers: { accept: 'text/event-stream' } });
      assert.equal(get.status, 405);
      await get.text();
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms', WEBHOOKS_TIMEOUT: '2s' },
);

describe('mcp: MCP=false', () => {
  for (const kind of STORES.slice(0, 1)) {
    it('answers 404 at /mcp', async () => {
      const t = await startServer(kind, { MCP: 'false' });
      try {
        const res = await fetch(`${t.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        assert.equal(res.status, 404);
      } finally {
        await t.close();
      }
    });
  }
});

describe('mcp: stateless behind several instances', () => {
  for (const kind of STORES) {
    it(`[${kind.name}] a call needs no session: an event created through one instance is read through the other`, async () => {
      const { a, b, close } = await startTwoInstances(kind, 'mcp-two');
      try {
        const editor = await connect(a, 'admin:admin-password');
        const made = await call(editor, 'create_event', { title: 'Made on A', start_date: '2032-08-01 10:00', end_date: '2032-08-01 11:00', status: 'publish' });
        assert.equal(made.isError, false, made.text);
        await editor.close();
        // No initialize, no session id: a bare tools/call to the other instance is answered.
        const res = await fetch(`${b.origin}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_event', arguments: { id: made.json.id } } }),
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('mcp-session-id'), null);
        const answer = await res.json();
        assert.equal(answer.id, 7);
        assert.equal(JSON.parse(answer.result.content[0].text).title, 'Made on A');
      } finally {
        await close();
      }
    });
  }
});
