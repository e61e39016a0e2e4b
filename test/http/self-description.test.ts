/**
 * The API describes itself: the namespace index (`GET {ns}`) and the REST root index compared with
 * the recorded index (examples/01), the OpenAPI document (`GET {ns}/doc`) compared with the
 * recorded one (examples/02) and validated, the Swagger UI page, and, for every declared route,
 * endpoint, method and argument (`apiRoutes(services)`, so routes added later are covered), its
 * presence in all three descriptions.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { example, forEachStore, keysOf } from '../support/harness.js';
import { recordedOnly } from '../support/added-args.js';
import { apiRoutes } from '../../src/http/routes/index.js';
import { openApiPath } from '../../src/http/openapi.js';
import { routeKey } from '../../src/http/self-description.js';

const NS = 'calendar/events/v1';
/** The recorded namespace → ours. */
const ours = (s: string) => s.replaceAll('tribe/events/v1', NS);
const WALL_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** Recorded response descriptions our routes word differently, on purpose (the original's slips). */
const CORRECTED: Record<string, string> = {
  'An organizer with the specified event does not exist.': 'An organizer with the specified post ID does not exist.',
};
const isUpdate = (routeKeyName: string, methods: string[]) => routeKeyName.includes('(?P<') && methods.includes('POST');

forEachStore('self-description: namespace and root index', (t) => {
  it('the namespace index has the recorded routes, methods, endpoints, args and arg keys, in order', async () => {
    const recorded = (await example('01-get-namespace-index.json')).body;
    const res = await t.api.get('');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('allow'), 'GET');
    assert.deepEqual(keysOf(res.body), ['namespace', 'routes', '_links']);
    assert.equal(res.body.namespace, NS);
    assert.deepEqual(res.body._links, { up: [{ href: `${t.origin}/api/` }] });
    assert.deepEqual(Object.keys(res.body.routes), Object.keys(recorded.routes).map(ours), 'route keys and order');

    for (const [key, rec] of Object.entries<any>(recorded.routes)) {
      const got = res.body.routes[ours(key)];
      assert.deepEqual(keysOf(got), keysOf(rec), `${key}: entry keys`);
      assert.equal(got.namespace, NS);
      assert.deepEqual(got.methods, rec.methods, `${key}: methods`);
      assert.deepEqual(
        got.endpoints.map((e: any) => e.methods),
        rec.endpoints.map((e: any) => e.methods),
        `${key}: endpoint order`,
      );
      if (rec._links) assert.deepEqual(got._links, { self: [{ href: `${t.base}${key.replace('/tribe/events/v1', '')}` }] }, `${key}: _links`);

      rec.endpoints.forEach((recEndpoint: any, i: number) => {
        const where = `${key} ${recEndpoint.methods.join(',')}`;
        const gotArgs = got.endpoints[i].args;
        if (Array.isArray(recEndpoint.args)) return assert.deepEqual(gotArgs, [], `${where}: no args`);
        assert.deepEqual(recordedOnly(Object.keys(gotArgs), Object.keys(recEndpoint.args)), Object.keys(recEndpoint.args), `${where}: arg names and order`);
        if ('sync_token' in gotArgs) assert.equal(Object.keys(gotArgs).at(-1), 'sync_token', `${where}: sync_token comes last`);
        for (const [name, recArg] of Object.entries<any>(recEndpoint.args)) {
          const gotArg = { ...gotArgs[name] };
          const expected = { ...recArg };
          // COMPAT 1: updates are partial, so update args declare no value defaults (the original's
          // all_day default false reset the flag on every update).
          if (isUpdate(key, recEndpoint.methods) && expected.default !== undefined && expected.default !== null && gotArg.default === undefined) delete expected.default;
          assert.deepEqual(Object.keys(gotArg), Object.keys(expected), `${where} ${name}: keys and their order`);
          for (const k of Object.keys(expected)) {
            if (k === 'default' && (name === 'start_date' || name === 'end_date')) assert.match(String(gotArg.default), WALL_TIME, `${where} ${name}: computed default`);
            else if (k === 'default' && typeof expected.default === 'string') assert.equal(gotArg.default, ours(expected.default), `${where} ${name}.default`);
            else assert.deepEqual(gotArg[k], expected[k], `${where} ${name}.${k}`);
          }
        }
      });
    }
  });

  it('the REST root index lists the namespace and the same routes after its own', async () => {
    const res = await t.api.get('/api/');
    assert.equal(res.status, 200);
    const index = (await t.api.get('')).body;
    // Our namespace first, then the original's as an alias (NAMESPACE_ALIASES), each with its routes.
    assert.deepEqual(res.body.namespaces, [NS, 'tribe/events/v1', 'tec/v1', 'wp/v2']);
    const aliasKeys = Object.keys(index.routes).map((key) => key.replace(`/${NS}`, '/tribe/events/v1'));
    // Then tec/v1 and the WordPress core routes its clients read (wp/v2), each with its own routes.
    const others = Object.keys(res.body.routes).filter((key) => key.startsWith('/tec/v1') || key.startsWith('/wp/v2'));
    assert.deepEqual(Object.keys(res.body.routes), ['/', ...Object.keys(index.routes), ...aliasKeys, ...others]);
    assert.ok(others.includes('/tec/v1/events') && others.includes('/wp/v2/users/me'));
    for (const [key, entry] of Object.entries<any>(index.routes)) {
      const rootEntry = res.body.routes[key];
      assert.deepEqual(rootEntry.methods, entry.methods, key);
      assert.deepEqual(
        rootEntry.endpoints.map((e: any) => [e.methods, Array.isArray(e.args) ? [] : Object.keys(e.args)]),
        entry.endpoints.map((e: any) => [e.methods, Array.isArray(e.args) ? [] : Object.keys(e.args)]),
        key,
      );
    }
    assert.equal(typeof res.body.gmt_offset, 'number');
    assert.equal(res.body.timezone_string, 'UTC');
  });
});

forEachStore(
  'self-description: gmt_offset follows the site zone',
  (t) => {
    it('a fixed-offset zone gives its offset in hours', async () => {
      const res = await t.api.get('/api/');
      assert.equal(res.body.gmt_offset, 5.5);
    });
  },
  { CALENDAR_TIMEZONE: 'Asia/Kolkata' },
);

forEachStore('self-description: the OpenAPI document', (t) => {
  it('is a valid OpenAPI 3.0 document (swagger-parser), and the validator does catch a broken one', async () => {
    const res = await t.api.get('/doc');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('allow'), 'GET');
    await SwaggerParser.validate(structuredClone(res.body));

    const broken = structuredClone(res.body);
    broken.paths['/events'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    await assert.rejects(SwaggerParser.validate(broken));
    const wrongType = structuredClone(res.body);
    wrongType.paths['/events'].get.parameters[0].in = 'body';
    await assert.rejects(SwaggerParser.validate(wrongType));
  });

  it("has the reference's top-level structure, info, schemas (verbatim, in order) and servers", async () => {
    const recorded = (await example('02-get-doc.json')).body;
    const doc = (await t.api.get('/doc')).body;
    assert.deepEqual(keysOf(doc), ['openapi', 'info', 'components', 'servers', 'paths']);
    assert.equal(doc.openapi, '3.0.0');
    assert.deepEqual(doc.info, recorded.info);
    const recordedSchemas = Object.keys(recorded.components.schemas);
    assert.deepEqual(Object.keys(doc.components.schemas).slice(0, recordedSchemas.length), recordedSchemas);
    for (const name of recordedSchemas) assert.deepEqual(doc.components.schemas[name], recorded.components.schemas[name], name);
    assert.deepEqual(doc.servers, [{ url: t.base }]);
    assert.deepEqual(doc.components.securitySchemes.basic, { type: 'http', scheme: 'basic', description: "HTTP Basic with a user's password or one of their application passwords" });
  });

  it('documents every recorded path, method, parameter, request body field and response', async () => {
    const recorded = (await example('02-get-doc.json')).body;
    const doc = (await t.api.get('/doc')).body;
    const paths = Object.keys(doc.paths);
    const recordedPaths = Object.keys(recorded.paths);
    assert.deepEqual(
      paths.filter((p) => recordedPaths.includes(p)),
      recordedPaths,
      'recorded paths, in order',
    );

    for (const [path, item] of Object.entries<any>(recorded.paths)) {
      for (const [method, rec] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const got = doc.paths[path][method];
        assert.ok(got, `${where} is documented`);
        const pathParams = (rec.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        // `style` defaults to form for query parameters: the original spelled it out for CSV lists only.
        const simplify = (p: any) => ({
          in: p.in,
          name: p.name,
          required: p.required,
          description: p.description,
          type: p.schema.type,
          items: p.schema.items,
          style: p.style ?? (p.in === 'query' ? 'form' : undefined),
        });
        const recordedNames = (rec.parameters ?? []).map((p: any) => p.name);
        const gotParameters = (got.parameters ?? []).filter((p: any) => recordedOnly([p.name], recordedNames).length === 1);
        assert.deepEqual(gotParameters.map(simplify), (rec.parameters ?? []).map(simplify), `${where}: parameters`);

        if (rec.requestBody) {
          for (const type of ['application/x-www-form-urlencoded', 'application/json']) {
            const props = got.requestBody.content[type].schema.properties;
            const recProps = rec.requestBody.content['application/x-www-form-urlencoded'].schema.properties;
            // The original repeated the path parameter in the body; we document it once, in the path.
            const names = Object.keys(recProps).filter((n) => !pathParams.includes(n) || (n === 'slug' && path === '/events/by-slug/{slug}'));
            // (Compared as sets: property order means nothing in a schema; the index test checks the order.)
            assert.deepEqual(recordedOnly(Object.keys(props), names).sort(), [...names].sort(), `${where} ${type}: body fields`);
            for (const n of names) {
              assert.deepEqual({ description: props[n].description, type: props[n].type, items: props[n].items }, { items: undefined, ...recProps[n] }, `${where} ${n}`);
            }
          }
        }

        for (const [code, response] of Object.entries<any>(rec.responses)) {
          if (method === 'post' && code === '201' && path !== '/doc') {
            // Creates are documented on the collection's own POST (the original folded them in here).
            const collection = doc.paths[path.replace(/\/(by-slug\/)?\{\w+\}$/, '')].post;
            assert.ok(collection.responses['201'], `${where}: 201 on the collection`);
            continue;
          }
          assert.ok(got.responses[code], `${where}: response ${code}`);
          if (method !== 'post') assert.equal(got.responses[code].description, CORRECTED[response.description] ?? response.description, `${where} ${code}: description`);
          const recSchema = response.content?.['application/json']?.schema;
          if (!recSchema) continue;
          const schema = got.responses[code].content['application/json'].schema;
          if (recSchema.type === 'array') {
            // Lists: the envelope they really are, with the recorded items under the recorded title.
            const envelope = doc.components.schemas[schema.$ref.split('/').pop()];
            assert.deepEqual(envelope.properties[recSchema.title].items, recSchema.items, `${where} ${code}: list items`);
            // The original's totals, then what we send beyond it for generic WordPress clients (issue 17).
            assert.deepEqual(Object.keys(got.responses[code].headers), ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages', 'Link', 'X-Sync-Token', 'X-Sync-More']);
          } else assert.deepEqual(schema, recSchema, `${where} ${code}: schema`);
        }
      }
    }
  });

  it('marks the create fields required, write routes as needing authentication, errors as Error', async () => {
    const doc = (await t.api.get('/doc')).body;
    const create = doc.paths['/events'].post;
    assert.deepEqual(create.requestBody.content['application/json'].schema.required, ['title', 'start_date', 'end_date']);
    assert.deepEqual(create.security, [{ basic: [] }]);
    assert.equal(create.responses['401'].content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.deepEqual(doc.paths['/events'].get.security, [{}, { basic: [] }]);
    assert.equal(doc.paths['/events/{id}'].patch.requestBody.content['application/json'].schema.required, undefined);
    assert.deepEqual(doc.paths['/events'].get.parameters.find((p: any) => p.name === 'page').schema, { type: 'integer', default: 1 });
    assert.deepEqual(doc.paths['/events'].get.parameters.find((p: any) => p.name === 'geoloc_lat').schema, { type: 'number', format: 'double' });
  });
});

forEachStore('self-description: every declared route and argument is described', (t) => {
  it('in the namespace index, the REST root index and the OpenAPI document', async () => {
    const routes = apiRoutes(t.built.services);
    const index = (await t.api.get('')).body;
    const root = (await t.api.get('/api/')).body;
    const doc = (await t.api.get('/doc')).body;
    assert.ok(routes.length >= 15);
    for (const decl of routes) {
      const key = routeKey(decl);
      for (const [name, described] of [
        ['namespace index', index.routes[key]],
        ['root index', root.routes[key]],
      ] as const) {
        assert.ok(described, `${name}: ${key}`);
        assert.equal(described.endpoints.length, decl.endpoints.length, `${name}: ${key} endpoints`);
        decl.endpoints.forEach((e, i) => {
          assert.deepEqual(described.endpoints[i].methods, e.methods, `${name}: ${key} endpoint ${i}`);
          const args = described.endpoints[i].args;
          assert.deepEqual(Array.isArray(args) ? [] : Object.keys(args), Object.keys(e.args), `${name}: ${key} ${e.methods} args`);
        });
      }
      const item = doc.paths[openApiPath(decl.path)];
      assert.ok(item, `doc: ${decl.path}`);
      for (const e of decl.endpoints) {
        for (const method of e.methods) {
          const op = item[method.toLowerCase()];
          assert.ok(op, `doc: ${method} ${decl.path}`);
          assert.ok(Object.keys(op.responses).length > 0, `doc: ${method} ${decl.path} responses`);
          const params = new Set((op.parameters ?? []).map((p: any) => p.name));
          const body = new Set(Object.keys(op.requestBody?.content['application/json'].schema.properties ?? {}));
          const form = new Set(Object.keys(op.requestBody?.content['application/x-www-form-urlencoded'].schema.properties ?? {}));
          for (const [arg, spec] of Object.entries(e.args)) {
            const found = spec.in === 'path' ? params.has(arg) : params.has(arg) || (body.has(arg) && form.has(arg));
            assert.ok(found, `doc: ${method} ${decl.path} argument ${arg}`);
          }
        }
      }
    }
  });
});

forEachStore(
  'self-description: the human-readable page',
  (t) => {
    it('GET /docs serves Swagger UI, from local files, over the OpenAPI document of this REST root', async () => {
      const page = await fetch(`${t.origin}/docs`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const html = await page.text();
      assert.match(html, /<div id="swagger-ui"><\/div>/);
      assert.doesNotMatch(html, /https?:\/\//, 'no CDN');
      for (const asset of ['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js']) {
        assert.ok(html.includes(asset), asset);
        const res = await fetch(t.origin + asset);
        assert.equal(res.status, 200, asset);
        assert.ok((await res.arrayBuffer()).byteLength > 100, asset);
      }
      const init = await (await fetch(`${t.origin}/docs/init.js`)).text();
      assert.ok(init.includes('"/wp-json/calendar/events/v1/doc"'), init);
      // Bodies are read to the end: an unread large answer keeps its connection busy, and closing
      // the server then waits for that connection's timeout (70 s in a loaded run).
      const doc = await fetch(`${t.origin}/wp-json/calendar/events/v1/doc`);
      assert.equal(doc.status, 200);
      await doc.arrayBuffer();
      const missing = await fetch(`${t.origin}/docs/package.json`);
      assert.equal(missing.status, 404);
      await missing.arrayBuffer();
    });
  },
  { REST_ROOT: '/wp-json' },
);
