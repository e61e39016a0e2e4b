/**
 * `tec/v1/docs` and what its clients read around it: the OpenAPI document (its definitions against
 * the original's Documentation tests' snapshots, every operation as REST_Test_Case's
 * test_get_documentation asks), the namespace and root indexes, `wp/v2/users/me`, `wp/v2/settings`,
 * and the setting that drops the acknowledgement rule.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { forEachStore } from '../support/harness.js';
import { ensureRoles, tecClient } from '../support/tec-v1.js';

const DEFINITIONS: Array<[string, string]> = [
  ['TEC_Post_Entity', 'TEC_Post_Entity_Definition_Test__test_tec_post_entity_definition_json_snapshot__0'],
  ['TEC_Post_Entity_Request_Body', 'TEC_Post_Entity_Request_Body_Definition_Test__test_tec_post_entity_request_body_definition_json_snapshot__0'],
  ['Event', 'Event_Definition_Test__test_event_definition_json_snapshot__0'],
  ['Event_Request_Body', 'Event_Request_Body_Definition_Test__test_event_request_body_definition_json_snapshot__0'],
  ['Organizer_Request_Body', 'Organizer_Request_Body_Definition_Test__test_organizer_request_body_definition_json_snapshot__0'],
  ['Venue_Request_Body', 'Venue_Request_Body_Definition_Test__test_venue_request_body_definition_json_snapshot__0'],
  ['Organizer', 'Organizer_Definition_Test__test_organizer_definition_json_snapshot__0'],
  ['Venue', 'Venue_Definition_Test__test_venue_definition_json_snapshot__0'],
  ['Date', 'Date_Definition_Test__test_date_definition_json_snapshot__0'],
  ['DateDetails', 'Date_Details_Definition_Test__test_date_details_definition_json_snapshot__0'],
  ['OpenApiDocumentation', 'OpenApi_Definition_Test__test_openapi_definition_json_snapshot__0'],
  ['OpenApiPath', 'OpenApi_Path_Definition_Test__test_openapi_path_definition_json_snapshot__0'],
];
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/tec-v1/${name}.snapshot.json`, import.meta.url), 'utf8'));

forEachStore('tec/v1: the OpenAPI document, the indexes and the WordPress core routes', (t) => {
  const tec = tecClient(t);
  before(async () => ensureRoles(t));

  it("answers the OpenAPI document with the original's definitions (the Documentation tests), to anyone, without acknowledgement", async () => {
    const res = await tec.get('/docs', { headers: { 'x-tec-eea': '' } });
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.deepEqual(Object.keys(doc), ['openapi', 'info', 'tags', 'components', 'servers', 'paths']);
    assert.equal(doc.openapi, '3.0.4');
    assert.equal(doc.info.title, 'The Events Calendar REST API');
    assert.equal(doc.info.version, '1.0.0');
    assert.match(doc.info.description, /no ticket/);
    assert.deepEqual(doc.servers, [{ url: `${t.origin}/wp-json/tec/v1` }]);
    assert.deepEqual(doc.components.securitySchemes, { BasicAuth: { type: 'http', scheme: 'basic' } });
    assert.deepEqual(
      Object.keys(doc.components.schemas),
      DEFINITIONS.map(([name]) => name),
    );
    for (const [name, file] of DEFINITIONS) assert.deepEqual(doc.components.schemas[name], fixture(file), name);
  });

  it('documents every operation as the original (REST_Test_Case::test_get_documentation)', async () => {
    const doc = (await tec.get('/docs')).body;
    assert.deepEqual(Object.keys(doc.paths), ['/docs', '/events', '/events/{id}', '/organizers', '/organizers/{id}', '/venues', '/venues/{id}']);
    const operations: Record<string, string> = {};
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        operations[`${method} ${path}`] = op.operationId;
        for (const key of ['summary', 'description', 'operationId']) assert.ok(typeof op[key] === 'string' && op[key] !== '', `${method} ${path} ${key}`);
        assert.ok(Array.isArray(op.security));
        assert.ok(Array.isArray(op.tags) && op.tags.length > 0);
        assert.ok(Object.keys(op.responses).length > 0);
        for (const [code, response] of Object.entries<any>(op.responses)) {
          assert.ok(response.description, `${method} ${path} ${code}`);
          if (Number(code) > 299 || method === 'delete') continue;
          assert.ok(response.content?.['application/json']?.schema, `${method} ${path} ${code} content`);
        }
      }
    }
    assert.deepEqual(operations, {
      'get /docs': 'getOpenApiDocs',
      'get /events': 'getEvents',
      'post /events': 'createEvent',
      'get /events/{id}': 'getEvent',
      'put /events/{id}': 'updateEvent',
      'delete /events/{id}': 'deleteEvent',
      'get /organizers': 'getOrganizers',
      'post /organizers': 'createOrganizer',
      'get /organizers/{id}': 'getOrganizer',
      'put /organizers/{id}': 'updateOrganizer',
      'delete /organizers/{id}': 'deleteOrganizer',
      'get /venues': 'getVenues',
      'post /venues': 'createVenue',
      'get /venues/{id}': 'getVenue',
      'put /venues/{id}': 'updateVenue',
      'delete /venues/{id}': 'deleteVenue',
    });
    const list = doc.paths['/events'].get;
    assert.deepEqual(
      list.parameters.map((p: any) => p.name),
      [
        'page',
        'per_page',
        'start_date',
        'end_date',
        'search',
        'categories',
        'tags',
        'venue',
        'organizer',
        'featured',
        'status',
        'post_parent',
        'starts_before',
        'starts_after',
        'ends_before',
        'ends_after',
        'ticketed',
        'orderby',
        'order',
      ],
    );
    assert.deepEqual(Object.keys(list.responses['200'].headers), ['X-WP-Total', 'X-WP-TotalPages', 'Link']);
    assert.deepEqual(doc.paths['/events'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/Event_Request_Body' });
    assert.deepEqual(doc.paths['/events'].post.security, [{ BasicAuth: [] }]);
    assert.deepEqual(list.security, []);
  });

  it('lists tec/v1 and wp/v2 in the REST root index (both roots), with application passwords in its authentication', async () => {
    for (const root of ['/wp-json/', '/api/']) {
      const res = await t.api.get(`${t.origin}${root}`);
      assert.deepEqual(res.body.namespaces, ['calendar/events/v1', 'tribe/events/v1', 'tec/v1', 'wp/v2']);
      assert.ok(res.body.routes['/tec/v1/events/(?P<id>\\d+)']);
      assert.deepEqual(res.body.routes['/tec/v1/events/(?P<id>\\d+)'].methods, ['GET', 'PUT', 'PATCH', 'DELETE']);
      assert.ok(res.body.routes['/wp/v2/users/me'] && res.body.routes['/wp/v2/settings']);
      assert.ok(res.body.authentication['application-passwords'].endpoints.authorization);
    }
    const ns = await t.api.get(`${t.origin}/wp-json/tec/v1`);
    assert.equal(ns.status, 200);
    assert.equal(ns.body.namespace, 'tec/v1');
    assert.ok(ns.body.routes['/tec/v1/venues']);
    // Plain permalinks reach it too.
    const viaRestRoute = await t.api.get(`${t.origin}/?rest_route=/tec/v1/docs`);
    assert.equal(viaRestRoute.status, 200);
    assert.equal(viaRestRoute.body.openapi, '3.0.4');
  });

  it('answers wp/v2/users/me as WordPress: 401 for guests, the view and edit contexts for the signed-in', async () => {
    const guest = await t.api.get(`${t.origin}/wp-json/wp/v2/users/me`);
    assert.equal(guest.status, 401);
    assert.deepEqual(guest.body, { code: 'rest_not_logged_in', message: 'You are not currently logged in.', data: { status: 401 } });
    const view = await t.api.get(`${t.origin}/wp-json/wp/v2/users/me`, { as: 'editor' });
    assert.equal(view.status, 200);
    assert.deepEqual(Object.keys(view.body), ['id', 'name', 'url', 'description', 'link', 'slug', 'avatar_urls', 'meta', '_links']);
    assert.equal(view.body.slug, 'editor');
    const edit = await t.api.get(`${t.origin}/wp-json/wp/v2/users/me`, { as: 'editor', query: { context: 'edit' } });
    assert.deepEqual(edit.body.roles, ['editor']);
    assert.equal(edit.body.username, 'editor');
    assert.equal(edit.body.capabilities.edit_others_tribe_events, true);
    assert.equal(edit.body.capabilities.editor, true);
    // With an application password, as TEC's MCP server signs in.
    const app = await t.api.post(`${t.origin}/api/calendar/admin/v1/users/1/application-passwords`, { as: 'admin', json: { name: 'mcp' } });
    assert.equal(app.status, 201, app.text);
    const viaApp = await t.api.get(`${t.origin}/wp-json/wp/v2/users/me`, { as: `admin:${app.body.password}` });
    assert.equal(viaApp.status, 200);
    assert.equal(viaApp.body.id, 1);
  });

  it('answers wp/v2/settings to administrators only (manage_options), with what a calendar has', async () => {
    assert.equal((await t.api.get(`${t.origin}/wp-json/wp/v2/settings`)).status, 401);
    assert.equal((await t.api.get(`${t.origin}/wp-json/wp/v2/settings`, { as: 'editor' })).status, 403);
    const res = await t.api.get(`${t.origin}/wp-json/wp/v2/settings`, { as: 'admin' });
    assert.equal(res.status, 200);
    assert.equal(res.body.title, t.config.siteName);
    assert.equal(res.body.timezone, 'UTC');
    assert.equal(res.body.date_format, t.config.dateFormat);
    assert.equal(res.body.time_format, t.config.timeFormat);
    assert.equal(res.body.start_of_week, 1);
    assert.equal(res.body.url, t.origin);
    assert.equal(res.body.posts_per_page, 10);
  });
});

forEachStore(
  'tec/v1 with TEC_V1_ACKNOWLEDGEMENT=false',
  (t) => {
    it('answers without the acknowledgement header', async () => {
      const res = await t.api.get(`${t.origin}/wp-json/tec/v1/events`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, []);
      const created = await t.api.post(`${t.origin}/wp-json/tec/v1/events`, { as: 'admin', json: { title: 'No Header', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' } });
      assert.equal(created.status, 201);
    });
  },
  { TEC_V1_ACKNOWLEDGEMENT: 'false' },
);
