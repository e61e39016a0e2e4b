/**
 * `{REST_ROOT}/calendar/admin/v1/changes` and `/changes/stream`: the change log for the
 * admin app (domain/change-stream.ts), one event per committed write with the records it changed
 * (type, id, action; `user` records for administrators only).
 *
 * - `GET /changes?after=SEQ&limit=N`: the writes after SEQ (`events`), `last_seq` (where to go on
 *   from) and `head`; 410 `rest_changes_pruned` when the log no longer holds them all.
 * - `GET /changes/stream`: server-sent events from `Last-Event-ID` (the header a reconnecting
 *   `EventSource` sends), else `after`, else the head: `id: SEQ`, `event: change`, `data: {seq,
 *   time, changes}`; `event: reset` when the history after the cursor was pruned (read the data
 *   again); a comment every `heartbeat` seconds (default 15) keeps proxies from closing it; the
 *   stream ends when the server closes. A browser authenticates it with its cookie and `_wpnonce`
 *   in the URL (EventSource sends no header).
 *
 * - `?editing=ID` also sends `event: editors` (data: `{id, editors, last_editor, heartbeat}`, as
 *   `GET events/{id}/editors`) at once and whenever someone opens or leaves that event in the
 *   editor (this instance's changes at once, other instances' within two seconds).
 * - `&hold=1` (the admin app's editor) also holds the caller's lock on that event while the stream
 *   is open: taken at once, released when the stream ends (a browser killed or closed before its
 *   `pagehide` request left frees its lock at once rather than after 150 s). A caller who may not
 *   edit that event follows it without a lock.
 *
 * Editors and administrators (401 without credentials, 403 otherwise).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Services } from '../../domain/services.js';
import { canEditPost, typeCan, type Viewer } from '../../domain/permissions.js';
import { type ChangeEvent } from '../../domain/change-stream.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type EndpointContext, type RouteDecl } from '../route.js';
import { holderArg } from './common.js';

const mayFollow = (viewer: Viewer) => typeCan(viewer, 'edit_others', 'tribe_events');
const isEditor = (ctx: EndpointContext) => mayFollow(ctx.viewer);
const nonNegative = (v: unknown) => /^\d{1,15}$/.test(String(v));

/** How often a stream looks for lock changes made on other instances (ms); this instance's come at once. */
const EDITORS_POLL_MS = 2000;

/**
 * Send the editors of an event (JSON) now and whenever they change; answers what stops it.
 */
function followEditors(services: Services, id: number, send: (json: string) => void): () => void {
  let last = '';
  let looking = false;
  let again = false;
  let stopped = false;
  const look = async (): Promise<void> => {
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    try {
      do {
        again = false;
        const state = await services.editLocks.state(id);
        // A refreshed lock moves only its expiry: no event for that.
        const text = JSON.stringify({ id, ...state, editors: state.editors.map(({ expires: _, ...e }) => e) });
        if (text !== last && !stopped) send((last = text));
      } while (again && !stopped);
    } catch {
      // the next poll looks again
    } finally {
      looking = false;
    }
  };
  // A lock's change is told in the request that made it, which may be another calendar's: the look
  // runs in this stream's calendar, whose statements show that calendar's locks only.
  const here = AsyncLocalStorage.snapshot();
  const stopLocal = services.editLocks.onChange((changed) => {
    if (changed === id) here(() => void look());
  });
  const poll = setInterval(() => void look(), EDITORS_POLL_MS);
  poll.unref();
  void look();
  return () => {
    stopped = true;
    clearInterval(poll);
    stopLocal();
  };
}

export function adminChangeRoutes(services: Services): RouteDecl[] {
  return [
    route('/changes', [
      endpoint({
        methods: ['GET'],
        args: {
          after: { type: 'integer', default: 0, unbounded: true, description: 'The sequence number after which to read (0: from the start of the kept log)', validate: nonNegative },
          limit: { type: 'integer', default: 100, description: 'Log rows to read at most (whole writes; at most 1000)', validate: (v) => isPositiveInt(v) },
        },
        permission: isEditor,
        docs: {
          responses: {
            '200': { description: '{ events: [{ seq, time, changes: [{ type, id, action }] }], last_seq, head }' },
            '410': { description: 'The log no longer holds every write after `after`' },
          },
        },
        handler: async (ctx) => {
          const { events, through, head } = await services.changes.read(ctx.viewer, Number(ctx.args.after), Math.min(1000, Number(ctx.args.limit)));
          return { body: { events, last_seq: through, head }, headers: { 'cache-control': 'no-store' } };
        },
      }),
    ]),
    route('/changes/stream', [
      endpoint({
        methods: ['GET'],
        args: {
          after: { type: 'integer', unbounded: true, description: 'Start after this sequence number (a Last-Event-ID header wins; default: the head)', validate: nonNegative },
          heartbeat: { type: 'integer', default: 15, description: 'Seconds between heartbeat comments (1 to 300)', validate: (v) => isPositiveInt(v) && Number(v) <= 300 },
          editing: {
            type: 'integer',
            description: 'An event whose editors to follow too: `editors` events (as GET events/{id}/editors, with `id`) now and whenever they change',
            validate: (v) => isPositiveInt(v),
          },
          hold: {
            type: 'boolean',
            default: false,
            description: "Hold the caller's lock on `editing` while the stream is open (taken at once, released when it ends); no lock when the caller may not edit that event",
          },
          holder: holderArg("With `hold`: the editor page's token, whose lock the stream holds (letters, digits, '-' and '_'; 1 to 64; default: the lock requests without a holder share)"),
        },
        permission: isEditor,
        docs: {
          responses: {
            '200': {
              description:
                'text/event-stream: `change` events (id: seq, data: { seq, time, changes }), `reset` events, heartbeat comments; with `editing`, `editors` events (data: { id, editors, last_editor, heartbeat })',
            },
          },
        },
        handler: async (ctx) => {
          const viewer = ctx.viewer;
          const heartbeatMs = Number(ctx.args.heartbeat) * 1000;
          const startAfter = ctx.args.after === undefined ? undefined : Number(ctx.args.after);
          const head = await services.changes.head();
          const editing = ctx.args.editing === undefined ? undefined : Number(ctx.args.editing);
          const held = editing !== undefined && ctx.args.hold === true ? await services.events.findById(editing) : undefined;
          const holding = held && held.status !== 'auto-draft' && canEditPost(viewer, 'tribe_events', held) ? editing : undefined;
          return {
            headers: { 'content-type': 'text/event-stream; charset=UTF-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' },
            body: null,
            stream: (res: ServerResponse) => {
              const lastId = res.req.headers['last-event-id'];
              const resumeAt = typeof lastId === 'string' && nonNegative(lastId.trim()) ? Number(lastId.trim()) : startAfter;
              const write = (text: string) => {
                if (!res.destroyed && !res.writableEnded) res.write(text);
              };
              write(`retry: 3000\n: following the change log from ${resumeAt ?? head}\n\n`);
              const send = (e: ChangeEvent) => write(`id: ${e.seq}\nevent: change\ndata: ${JSON.stringify(e)}\n\n`);
              const heartbeat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
              const stopEditors = editing === undefined ? () => {} : followEditors(services, editing, (state) => write(`event: editors\ndata: ${state}\n\n`));
              const unhold = holding === undefined ? () => {} : services.editLocks.hold(viewer, holding, typeof ctx.args.holder === 'string' ? ctx.args.holder : undefined);
              const follower = services.changes.follow(
                viewer,
                resumeAt ?? head,
                {
                  deliver: (events, through) => {
                    for (const e of events) send(e);
                    // The cursor moves past writes the viewer may not see too: a reconnect starts there.
                    if (events.at(-1)?.seq !== through) write(`id: ${through}\n\n`);
                  },
                  reset: (at) => write(`id: ${at}\nevent: reset\ndata: ${JSON.stringify({ seq: at })}\n\n`),
                  closed: () => {
                    clearInterval(heartbeat);
                    stopEditors();
                    unhold();
                    if (!res.writableEnded) res.end();
                  },
                  failed: () => follower.close(),
                },
                // A stream outlives its request's check: a viewer no longer allowed (a role taken away) has it ended.
                mayFollow,
              );
              res.on('close', () => {
                stopEditors();
                unhold();
                follower.close();
              });
            },
          };
        },
      }),
    ]),
  ];
}
