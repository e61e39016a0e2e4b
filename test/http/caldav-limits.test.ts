/**
 * No CalDAV request can stall the server: the request body's limits (128 KiB, from Content-Length
 * or while a chunked body arrives; 10,000 elements; 32 attributes per element, namespace
 * declarations included; nesting 32 deep; 1,000 properties; 5,000 hrefs) answer a DAV error
 * quickly, never a 500; a body of many namespace declarations and many elements under those limits
 * is parsed in linear time (the scope was copied per element: 115 KiB held the loop about a
 * second); and multistatus answers over thousands of events are built in steps. Meanwhile a
 * `/livez` ping is answered within 100 ms and the server's own loop watch sees no hold of 100 ms
 * (CPU time, so that a busy host does not count).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses, withDoc, type DavAnswer } from '../support/caldav.js';
import { BAR_MS, pinged, receive, type Received } from '../support/stall.js';
import { seedCalendar } from '../../src/seed/calendar.js';
import { keptCountersOf } from '../../src/metrics.js';
import { BODY_LIMIT, MAX_HREFS, MAX_PROPERTIES } from '../../src/caldav/answers.js';
import { MAX_ATTRIBUTES, MAX_DEPTH, MAX_ELEMENTS } from '../../src/caldav/xml.js';

const CAL = '/dav/public/calendars/events/';

/** `n` namespace declarations (distinct prefixes, each with its own namespace). */
const decls = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ` xmlns:${tag}${i}="urn:example:${tag}:${i}"`).join('');

/**
 * A body of many namespace declarations and many elements, within every limit: 31 nested elements
 * of 31 declarations each, and 9,000 empty elements inside the innermost (about 80 KiB). Its one
 * property is unknown (a 404 propstat).
 */
function namespaceHeavy(): string {
  let open = '';
  let close = '';
  for (let level = 0; level < MAX_DEPTH - 3; level++) {
    open += `<x:n${decls(MAX_ATTRIBUTES - 1, `l${level}p`)}>`;
    close = `</x:n>${close}`;
  }
  return `<d:propfind xmlns:d="DAV:"><d:prop xmlns:x="urn:example:x">${open}${'<x:e/>'.repeat(9000)}${close}</d:prop></d:propfind>`;
}

/**
 * An answer as it arrived: its body's bytes, decoded and parsed only after the measurement (the
 * test client runs in the server's process; reading a large answer at once here would hold the
 * loop the server is measured on).
 */
function send(t: TestServer, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Received> {
  return receive(t.origin + path, { method, headers: { 'content-type': 'application/xml; charset=utf-8', ...headers }, body });
}

const answerOf = (r: Received): DavAnswer => withDoc({ status: r.status, headers: r.headers, text: Buffer.concat(r.chunks).toString('utf8') });

/**
 * The request does not hold the loop BAR_MS or more: of three tries, one at least saw the /livez
 * ping answered and the server's loop watch see no hold within the bar, both in CPU time. A
 * busy host (several test runs on two cores) delays pings by seconds of wall-clock time without
 * any hold, and a first compilation or a garbage collection can fall into one try; a request whose
 * own work holds the loop does so every time. Each try's answer is checked.
 */
async function assertNoStall(t: TestServer, label: string, request: () => Promise<Received | Received[]>, check: (answers: DavAnswer[]) => void): Promise<void> {
  const tries: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await pinged(t, request);
    check([r.result].flat().map(answerOf));
    tries.push(`/livez ${Math.round(r.pingMs)} ms (${Math.round(r.pingCpuMs)} ms CPU), loop held ${Math.round(r.heldCpuMs)} ms CPU`);
    if (r.pingCpuMs < BAR_MS && r.heldCpuMs < BAR_MS) return;
  }
  assert.fail(`${label}: ${BAR_MS} ms or more on every try: ${tries.join('; ')}`);
}

/** Raw bytes on a fresh connection: what the server answered, and when (the connection may stay open). */
function raw(
  t: TestServer,
  head: string,
  body: { chunk: Buffer; count: number; pauseMs: number } | undefined,
  timeoutMs = 20_000,
): Promise<{ text: string; answeredAfterMs: number; bodyBytesSent: number }> {
  const { port } = new URL(t.origin);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    let sent = 0;
    let answered: number | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, answeredAfterMs: answered ?? Date.now() - started, bodyBytesSent: sent });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms; got ${JSON.stringify(text.slice(0, 300))}`));
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      answered ??= Date.now() - started;
      text += d;
      // The whole answer (a DAV error document ends with its root's end tag).
      if (/<\/d:error>\n$/.test(text)) finish();
    });
    socket.on('error', () => {
      /* the server may reset a connection whose body it refused */
    });
    socket.on('close', finish);
    socket.on('connect', async () => {
      socket.write(head);
      if (!body) return;
      for (let i = 0; i < body.count && answered === undefined && !socket.destroyed; i++) {
        socket.write(`${body.chunk.length.toString(16)}\r\n`);
        socket.write(body.chunk);
        socket.write('\r\n');
        sent += body.chunk.length;
        await new Promise((r) => setTimeout(r, body.pauseMs));
      }
      if (answered === undefined && !socket.destroyed) socket.write('0\r\n\r\n');
    });
  });
}

function assertDavError(res: DavAnswer, status: number, message: RegExp): void {
  assert.equal(res.status, status, res.text.slice(0, 300));
  assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
  assert.match(String(res.doc?.error?.['bad-request'] ?? ''), message, res.text.slice(0, 300));
}

forEachStore('CalDAV: request limits and the event loop', (t: TestServer) => {
  before(async () => {
    const res = await t.api.post('/events', { as: 'admin', json: { title: 'One', start_date: '2031-03-10 20:00', end_date: '2031-03-10 22:00' } });
    assert.equal(res.status, 201, res.text);
  });

  it('parses a body of many namespace declarations and many elements in linear time (no stall, anonymously)', async () => {
    const body = namespaceHeavy();
    assert.ok(body.length < BODY_LIMIT, `${body.length} bytes`);
    await assertNoStall(
      t,
      'namespace-heavy PROPFIND',
      // A new body each time: parsed bodies are kept by text.
      () => send(t, 'PROPFIND', CAL, `${body}<!-- ${Math.random()} -->`, { depth: '0' }),
      ([res]) => {
        assert.equal(res.status, 207, res.text.slice(0, 300));
        assert.deepEqual(responses(res.doc).get(CAL)!.missing, ['n']);
      },
    );
  });

  it('refuses more attributes (namespace declarations included) on one element than the limit, before parsing', async () => {
    const ok = `<d:propfind xmlns:d="DAV:"${decls(MAX_ATTRIBUTES - 1, 'p')}><d:prop><d:getetag/></d:prop></d:propfind>`;
    assert.equal((await dav(t, 'PROPFIND', CAL, ok, { depth: '0' })).status, 207);
    const over = `<d:propfind xmlns:d="DAV:"${decls(MAX_ATTRIBUTES, 'p')}><d:prop><d:getetag/></d:prop></d:propfind>`;
    assertDavError(await dav(t, 'PROPFIND', CAL, over, { depth: '0' }), 413, /more than 32 attributes/);
    // Many on one element (the parser's work on them grows faster than their number), with or
    // without values and spaces, or hidden behind a quoted '>': each refused at once.
    const many = (attr: (i: number) => string, sep = ' ') => `<d:propfind xmlns:d="DAV:"><d:prop><d:getetag ${Array.from({ length: 5000 }, (_, i) => attr(i)).join(sep)}/></d:prop></d:propfind>`;
    for (const body of [many((i) => `a${i}="1"`), many((i) => `a${i}`), many((i) => `a${i}='1'`, ''), many((i) => (i === 0 ? 'a=">"' : `xmlns:p${i}="urn:x"`))]) {
      await assertNoStall(
        t,
        'many attributes',
        () => send(t, 'PROPFIND', CAL, body, { depth: '0' }),
        ([res]) => assertDavError(res, 413, /attributes/),
      );
    }
  });

  it('refuses more elements than the limit before parsing, and nesting deeper than the limit', async () => {
    const elements = (n: number) => `<d:propfind xmlns:d="DAV:"><d:prop><d:getetag>${'<d:x/>'.repeat(n - 3)}</d:getetag></d:prop></d:propfind>`;
    assert.equal((await dav(t, 'PROPFIND', CAL, elements(MAX_ELEMENTS), { depth: '0' })).status, 207);
    await assertNoStall(
      t,
      'too many elements',
      () => send(t, 'PROPFIND', CAL, elements(MAX_ELEMENTS + 1), { depth: '0' }),
      ([res]) => assertDavError(res, 413, /more than 10000 elements/),
    );
    // Comments, CDATA and processing instructions are not elements; what they hide is not counted.
    const hidden = `<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><!-- ${'<d:x/>'.repeat(MAX_ELEMENTS)} --><d:prop><d:getetag><![CDATA[${'<d:x/>'.repeat(MAX_ELEMENTS)}]]></d:getetag></d:prop></d:propfind>`;
    assert.equal((await dav(t, 'PROPFIND', CAL, hidden, { depth: '0' })).status, 207);
    // Deep nesting: 400 (a request of the protocol nests about 8 deep), at any depth.
    for (const depth of [MAX_DEPTH + 2, 5000]) {
      const body = `<d:propfind xmlns:d="DAV:">${'<d:a>'.repeat(depth)}${'</d:a>'.repeat(depth)}</d:propfind>`;
      await assertNoStall(
        t,
        `nested ${depth} deep`,
        () => send(t, 'PROPFIND', CAL, body, { depth: '0' }),
        ([res]) => assertDavError(res, 400, /nested deeper than 32/),
      );
    }
  });

  it(`refuses more than ${MAX_PROPERTIES} properties and ${MAX_HREFS} hrefs per request`, async () => {
    const props = (n: number, list = 'prop') =>
      `<d:propfind xmlns:d="DAV:" xmlns:x="urn:example:x"><d:${list === 'prop' ? 'prop' : 'allprop/><d:include'}>${Array.from({ length: n }, (_, i) => `<x:p${i}/>`).join('')}</d:${list === 'prop' ? 'prop' : 'include'}></d:propfind>`;
    const fine = await dav(t, 'PROPFIND', CAL, props(MAX_PROPERTIES), { depth: '0' });
    assert.equal(fine.status, 207);
    assert.equal(responses(fine.doc).get(CAL)!.missing.length, MAX_PROPERTIES);
    assertDavError(await dav(t, 'PROPFIND', CAL, props(MAX_PROPERTIES + 1), { depth: '0' }), 413, /more than 1000 properties/);
    assertDavError(await dav(t, 'PROPFIND', CAL, props(MAX_PROPERTIES + 1, 'include'), { depth: '0' }), 413, /more than 1000 properties/);
    const report = `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:x="urn:example:x"><d:prop>${Array.from({ length: MAX_PROPERTIES + 1 }, (_, i) => `<x:p${i}/>`).join('')}</d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>`;
    assertDavError(await dav(t, 'REPORT', CAL, report, { depth: '1' }), 413, /more than 1000 properties/);

    const multiget = (n: number) =>
      `<c:calendar-multiget xmlns="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><prop><getetag/></prop>${Array.from({ length: n }, (_, i) => `<href>${i}</href>`).join('')}</c:calendar-multiget>`;
    await assertNoStall(
      t,
      `multiget of ${MAX_HREFS} hrefs`,
      () => send(t, 'REPORT', CAL, multiget(MAX_HREFS)),
      ([res]) => {
        assert.equal(res.status, 207);
        assert.equal(responses(res.doc).size, MAX_HREFS);
      },
    );
    assertDavError(await dav(t, 'REPORT', CAL, multiget(MAX_HREFS + 1)), 413, /more than 5000 hrefs/);
  });

  it('refuses a body over 128 KiB with 413: by its Content-Length before reading it, and while a chunked body arrives', async () => {
    const padded = (size: number) => {
      const head = '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop>';
      const tail = '</d:propfind>';
      return head + ' '.repeat(size - head.length - tail.length) + tail;
    };
    assert.equal((await dav(t, 'PROPFIND', CAL, padded(BODY_LIMIT), { depth: '0' })).status, 207);
    assertDavError(await dav(t, 'PROPFIND', CAL, padded(BODY_LIMIT + 1), { depth: '0' }), 413, /request body over 131072 bytes/);
    // Without a content type, and on a write method, the same.
    const untyped = padded(BODY_LIMIT + 1);
    const noType = await raw(t, `PROPFIND ${CAL} HTTP/1.1\r\nHost: x\r\nDepth: 0\r\nContent-Length: ${untyped.length}\r\n\r\n${untyped}`, undefined);
    assert.match(noType.text, /^HTTP\/1\.1 413 /);
    assert.equal((await dav(t, 'PUT', `${CAL}1.ics`, padded(BODY_LIMIT + 1))).status, 413);

    // A Content-Length of 100 MB and no body: answered at once, nothing read.
    const declared = await raw(t, `PROPFIND ${CAL} HTTP/1.1\r\nHost: x\r\nDepth: 0\r\nContent-Type: application/xml\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`, undefined);
    assert.match(declared.text, /^HTTP\/1\.1 413 /);
    assert.match(declared.text, /request body over 131072 bytes/);
    // Chunked, 32 KiB every 20 ms for up to 10 MB: refused once past the limit, long before the end.
    const chunked = await raw(t, `REPORT ${CAL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n`, {
      chunk: Buffer.alloc(32 * 1024, ' '),
      count: 320,
      pauseMs: 20,
    });
    assert.match(chunked.text, /^HTTP\/1\.1 413 /);
    assert.match(chunked.text, /request body over 131072 bytes/);
    assert.ok(chunked.bodyBytesSent <= 1024 * 1024, `answered after ${chunked.bodyBytesSent} bytes of body`);
  });

  it('refuses 20 hostile bodies sent at once, each quickly', async () => {
    const body = `<d:propfind xmlns:d="DAV:"><d:prop><d:getetag ${Array.from({ length: 8000 }, (_, i) => `a${i}="1"`).join(' ')}/></d:prop></d:propfind>`;
    await assertNoStall(
      t,
      '20 parallel',
      () => Promise.all(Array.from({ length: 20 }, () => send(t, 'PROPFIND', CAL, body, { depth: '0' }))),
      (all) => {
        assert.equal(all.length, 20);
        for (const res of all) assertDavError(res, 413, /attributes/);
      },
    );
  });
});

forEachStore('CalDAV: multistatus answers over thousands of events are built in steps', (t: TestServer) => {
  const EVENTS = 3000;
  let ids: number[] = [];
  before(async () => {
    await seedCalendar(t.built.store, { events: EVENTS, authorId: 1, timezone: t.config.timezone, batchSize: 1000 });
    // Warm up (the first reads build the events' kept representations).
    const first = await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '1' });
    assert.equal(first.status, 207);
    ids = [...responses(first.doc).keys()].filter((h) => h.endsWith('.ics')).map((h) => Number(/(\d+)\.ics$/.exec(h)![1]));
    assert.ok(ids.length > EVENTS / 2, `${ids.length} events listed`);
  });

  const members = (res: DavAnswer) => [...responses(res.doc).keys()].filter((h) => h.endsWith('.ics'));

  it('answers PROPFIND Depth 1 and an initial sync without a hold, as a stream of chunks', async () => {
    await assertNoStall(
      t,
      'PROPFIND Depth 1',
      // Not compressed (compression streams any answer): what the face itself sends.
      () => send(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>', { depth: '1', 'accept-encoding': 'identity' }),
      ([res]) => {
        assert.equal(res.status, 207);
        assert.equal(members(res).length, ids.length);
        // Larger than a chunk: streamed (chunked, no Content-Length), and complete.
        assert.equal(res.headers.get('content-length'), null);
        assert.equal(res.headers.get('transfer-encoding'), 'chunked');
        assert.match(res.text, /<\/d:multistatus>\n$/);
      },
    );
    await assertNoStall(
      t,
      'initial sync',
      () => send(t, 'REPORT', CAL, '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>'),
      ([res]) => {
        assert.equal(res.status, 207);
        assert.equal(members(res).length, ids.length);
        assert.match(res.doc.multistatus['sync-token'], /^urn:events-calendar:sync:/);
      },
    );
    // A small answer is still one piece with its length.
    const one = await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>', { depth: '0', 'accept-encoding': 'identity' });
    assert.equal(one.status, 207);
    assert.equal(Number(one.headers.get('content-length')), Buffer.byteLength(one.text));
  });

  it('answers calendar-query and calendar-multiget with calendar-data without a hold', async () => {
    await assertNoStall(
      t,
      'calendar-query with calendar-data',
      () =>
        send(
          t,
          'REPORT',
          CAL,
          '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20000101T000000Z" end="20990101T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>',
          { depth: '1' },
        ),
      ([res]) => {
        assert.equal(res.status, 207);
        assert.equal(members(res).length, ids.length);
        assert.match(res.text, /BEGIN:VCALENDAR/);
      },
    );
    const hrefs = ids.slice(0, 2000).map((id) => `<d:href>${CAL}${id}.ics</d:href>`);
    await assertNoStall(
      t,
      'calendar-multiget of 2,000 with calendar-data',
      () =>
        send(t, 'REPORT', CAL, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs.join('')}</c:calendar-multiget>`),
      ([res]) => {
        assert.equal(res.status, 207);
        assert.equal(members(res).length, 2000);
      },
    );
  });
});

forEachStore('CalDAV: a first sync of a large calendar lists ids and versions, not events', (t: TestServer) => {
  const EVENTS = 3000;
  const SYNC = '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>';
  const ETAGS = '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>';
  before(async () => {
    await seedCalendar(t.built.store, { events: EVENTS, authorId: 1, timezone: t.config.timezone, batchSize: 1000 });
    await t.user('editor');
  });
  const etagsOf = (res: DavAnswer) => new Map([...responses(res.doc)].filter(([h]) => h.endsWith('.ics')).map(([h, r]) => [h, String(r.ok.getetag)]));
  /** Representations of events read for anonymous callers (built or found kept) so far. */
  const representations = () => {
    const c = keptCountersOf(t.built.store.db).publicEvents;
    return c.hits + c.misses;
  };

  it('answers a first sync and a Depth 1 PROPFIND of ETags (cold) without reading events and without a hold', async () => {
    const before = representations();
    await assertNoStall(
      t,
      'first sync-collection',
      () => send(t, 'REPORT', CAL, SYNC),
      ([res]) => {
        assert.equal(res!.status, 207);
        assert.ok(etagsOf(res!).size > EVENTS / 2, `${etagsOf(res!).size} members`);
      },
    );
    await assertNoStall(
      t,
      'PROPFIND Depth 1',
      () => send(t, 'PROPFIND', CAL, ETAGS, { depth: '1', 'accept-encoding': 'identity' }),
      ([res]) => assert.ok(etagsOf(res!).size > EVENTS / 2),
    );
    assert.equal(representations(), before, 'a listing of ETags reads no event');
  });

  it('lists the ETags GET answers, in both trees, and those of a sync with calendar-data', async () => {
    for (const [tree, as] of [
      ['/dav/public/', null],
      ['/dav/', 'editor:editor-pw'],
    ] as const) {
      const cal = `${tree}calendars/events/`;
      const synced = etagsOf(await dav(t, 'REPORT', cal, SYNC, {}, as));
      const listed = etagsOf(await dav(t, 'PROPFIND', cal, ETAGS, { depth: '1' }, as));
      const full = etagsOf(
        await dav(t, 'REPORT', cal, SYNC.replace('<d:getetag/>', '<d:getetag/><c:calendar-data/>').replace('xmlns:d="DAV:"', 'xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"'), {}, as),
      );
      assert.ok(synced.size > EVENTS / 2, tree);
      assert.deepEqual(listed, synced, `${tree}: PROPFIND and sync`);
      assert.deepEqual(full, synced, `${tree}: with and without calendar-data`);
      const hrefs = [...synced.keys()];
      for (const href of hrefs.filter((_, i) => i % Math.ceil(hrefs.length / 25) === 0)) {
        const got = await dav(t, 'GET', href, undefined, {}, as);
        assert.equal(got.status, 200, href);
        assert.equal(got.headers.get('etag'), synced.get(href), href);
      }
    }
  });
});
