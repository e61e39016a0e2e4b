/**
 * Fair sharing of one instance between calendars: while more than one calendar is asking, each
 * has at most `share` requests at work at once, and its others wait their turn in its own queue
 * (first come, first served). One calendar's load (a closed loop of readers and writers) then
 * puts at most `share` of its requests ahead of another calendar's request, instead of all of
 * them; without it, a calendar quiet at 2 ms waited behind every request the busy one had sent.
 *
 * Work-conserving: a calendar alone (the single-calendar installation, or a night with one
 * active calendar) is never held back, and a waiting request starts as soon as its calendar has a
 * free place or the others have gone quiet. "Asking" means a request at work, waiting, or started
 * within the last `windowMs` (a client's next request arrives a moment after its last answer).
 *
 * A request holds its place until its answer starts (its headers are written) or its connection
 * closes: a stream (the admin app's change stream) holds no place while it streams. Requests of
 * every calendar are counted, the default calendar's too. The queues are per instance; the
 * per-calendar quota of requests per minute is the limit across instances (domain/quotas.ts).
 *
 * @example
 *   const fair = createFairShare({ share: 4 });
 *   const ticket = fair.admit(calendarId, () => handle());
 *   res.once('close', ticket.release);
 */
import { AsyncResource } from 'node:async_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';

/** Lanes kept before the quiet ones are looked for (each sweep drops every lane quiet past the window). */
const SWEEP_AT = 64;

/** Drop the lanes that are `idle` and started nothing within the window. */
function sweep<K, L extends { lastStart: number }>(lanes: Map<K, L>, at: number, windowMs: number, idle: (lane: L) => boolean): void {
  for (const [key, lane] of lanes) if (idle(lane) && at - lane.lastStart >= windowMs) lanes.delete(key);
}

/**
 * Whether a calendar other than `calendar` asks: a lane not `idle`, or one that started a request
 * within the window. Lanes found idle past the window are forgotten on the way.
 */
function anotherAsks<K, L extends { lastStart: number }>(lanes: Map<K, L>, calendar: K, at: number, windowMs: number, idle: (lane: L) => boolean): boolean {
  for (const [key, lane] of lanes) {
    if (key === calendar) continue;
    if (!idle(lane) || at - lane.lastStart < windowMs) return true;
    lanes.delete(key);
  }
  return false;
}

export interface FairShareOptions {
  /** requests of one calendar at work at once while another calendar asks too; 0: no limit */
  share: number;
  /** how long a calendar counts as asking after its last request started (ms) */
  windowMs?: number;
  now?: () => number;
}

export interface FairShareStats {
  /** calendars with requests at work or waiting */
  calendars: number;
  working: number;
  waiting: number;
  /** requests that waited since the start */
  waited: number;
  /** calendars kept track of (those asking, and the quiet ones not yet forgotten) */
  lanes: number;
}

export interface FairShare {
  /**
   * Start `go` now or when its calendar's turn comes. The ticket's `release` is called once the
   * request no longer needs its place: its answer started, or its connection closed (then, if it
   * still waited, it never starts). Calling it again does nothing.
   */
  admit(calendar: number, go: () => void): Ticket;
  stats(): FairShareStats;
}

export interface Ticket {
  release(): void;
}

interface Waiting {
  go: () => void;
  dropped: boolean;
}

interface Lane {
  working: number;
  queue: Waiting[];
  lastStart: number;
}

export function createFairShare(options: FairShareOptions): FairShare {
  const share = options.share;
  const windowMs = options.windowMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  /** Calendars asking: lanes are dropped once idle for `windowMs` (no structure per calendar kept). */
  const lanes = new Map<number, Lane>();
  let waited = 0;

  const laneOf = (calendar: number): Lane => {
    let lane = lanes.get(calendar);
    if (!lane) {
      // A new calendar: the quiet ones are forgotten first, so that one request in each of
      // thousands of calendars leaves no lane behind.
      if (lanes.size >= SWEEP_AT) sweep(lanes, now(), windowMs, (l) => l.working === 0 && l.queue.length === 0);
      lanes.set(calendar, (lane = { working: 0, queue: [], lastStart: -Infinity }));
    }
    return lane;
  };

  const othersAsk = (calendar: number, at: number): boolean => anotherAsks(lanes, calendar, at, windowMs, (l) => l.working === 0 && l.queue.length === 0);

  /** The request starts: it holds a place until released. */
  const start = (lane: Lane, go: () => void, at: number): void => {
    lane.working++;
    lane.lastStart = at;
    go();
  };

  /** A place freed in `lane`: its next waiting request starts; when it had none, the others' may. */
  const next = (calendar: number, lane: Lane): void => {
    while (lane.queue.length > 0 && (lane.working < share || !othersAsk(calendar, now()))) {
      const waiting = lane.queue.shift()!;
      if (!waiting.dropped) waiting.go();
    }
    if (lane.working === 0 && lane.queue.length === 0) {
      // A lane that waited because of this one may start now that this one is quiet.
      for (const [id, other] of lanes) if (id !== calendar && other.queue.length > 0) next(id, other);
    }
  };

  return {
    admit(calendar, go) {
      if (share <= 0) {
        go();
        return { release: () => {} };
      }
      const at = now();
      const lane = laneOf(calendar);
      let state: 'waiting' | 'working' | 'done' = 'waiting';
      const release = () => {
        if (state === 'working') {
          lane.working--;
          next(calendar, lane);
        } else if (state === 'waiting') waiting.dropped = true;
        state = 'done';
      };
      const waiting: Waiting = {
        go: () => {
          state = 'working';
          start(lane, go, now());
        },
        dropped: false,
      };
      if (lane.queue.length === 0 && (lane.working < share || !othersAsk(calendar, at))) waiting.go();
      else {
        waited++;
        // It starts from another request's release: in its own context (its calendar's), not that one's.
        const resume = AsyncResource.bind(waiting.go);
        waiting.go = resume;
        lane.queue.push(waiting);
      }
      return { release };
    },
    stats() {
      let working = 0;
      let waiting = 0;
      let calendars = 0;
      for (const lane of lanes.values()) {
        working += lane.working;
        waiting += lane.queue.filter((w) => !w.dropped).length;
        if (lane.working > 0 || lane.queue.length > 0) calendars++;
      }
      return { calendars, working, waiting, waited, lanes: lanes.size };
    },
  };
}

export interface TurnShareOptions {
  /** requests of one calendar started per turn of the event loop while another asks; 0: no limit */
  perTurn: number;
  windowMs?: number;
  now?: () => number;
}

export interface TurnShare {
  /** Start `go` now, or in a later turn of the event loop when its calendar has had its turns. */
  enter(calendar: string, go: () => void): void;
  stats(): { deferred: number; calendars: number };
}

/**
 * The same share, in turns of the event loop: while more than one calendar asks, each starts at
 * most `perTurn` requests per turn, the rest in later turns (round robin between calendars). A
 * request's work (a replayed answer, a read of SQLite) is mostly done in the turn it starts, so a
 * busy calendar's many requests, all read from their sockets at once, no longer all run before
 * another calendar's one request read with them: it waits for at most `perTurn` of them. Keyed
 * before the calendar is known (the path's slug, the host name), so that replayed answers, which
 * never reach Fastify, take their turn too.
 */
export function createTurnShare(options: TurnShareOptions): TurnShare {
  const perTurn = options.perTurn;
  const windowMs = options.windowMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  const lanes = new Map<string, { used: number; queue: Array<() => void>; lastStart: number }>();
  let turnScheduled = false;
  let deferred = 0;

  const othersAsk = (calendar: string, at: number): boolean => anotherAsks(lanes, calendar, at, windowMs, (l) => l.queue.length === 0);

  /** The next turn: every calendar's count starts again, and the waiting start, round robin. */
  const nextTurn = () => {
    turnScheduled = false;
    for (const lane of lanes.values()) lane.used = 0;
    let waiting = false;
    for (const [key, lane] of lanes) {
      while (lane.queue.length > 0 && (lane.used < perTurn || !othersAsk(key, now()))) {
        lane.used++;
        lane.lastStart = now();
        lane.queue.shift()!();
      }
      if (lane.queue.length > 0) waiting = true;
    }
    if (waiting) schedule();
  };
  const schedule = () => {
    if (turnScheduled) return;
    turnScheduled = true;
    setImmediate(nextTurn);
  };

  return {
    enter(calendar, go) {
      if (perTurn <= 0) return go();
      const at = now();
      let lane = lanes.get(calendar);
      if (!lane) {
        if (lanes.size >= SWEEP_AT) sweep(lanes, at, windowMs, (l) => l.queue.length === 0);
        lanes.set(calendar, (lane = { used: 0, queue: [], lastStart: -Infinity }));
      }
      if (lane.queue.length === 0 && (lane.used < perTurn || !othersAsk(calendar, at))) {
        lane.used++;
        lane.lastStart = at;
        schedule();
        return go();
      }
      deferred++;
      // It starts from the turn's callback: in its own context, not that one's.
      lane.queue.push(AsyncResource.bind(go));
      schedule();
    },
    stats: () => ({ deferred, calendars: lanes.size }),
  };
}

/** The fair share's figures in /metrics: requests waiting their calendar's turn now, and since the start. */
export function registerFairShareMetrics(registry: Registry, fair: FairShare, turns: TurnShare): void {
  new Gauge({
    name: 'calendar_fair_share_waiting_requests',
    help: "Requests waiting their calendar's turn (CALENDAR_FAIR_SHARE) now",
    registers: [registry],
    collect() {
      this.set(fair.stats().waiting);
    },
  });
  new Gauge({
    name: 'calendar_fair_share_working_requests',
    help: 'Requests at work that hold a place of their calendar (until their answer starts)',
    registers: [registry],
    collect() {
      this.set(fair.stats().working);
    },
  });
  new Counter({
    name: 'calendar_fair_share_waited_requests_total',
    help: "Requests that waited their calendar's turn because other calendars asked too",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(fair.stats().waited);
    },
  });
  new Counter({
    name: 'calendar_fair_share_deferred_requests_total',
    help: 'Requests started in a later turn of the event loop because their calendar had had its turn while other calendars asked',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(turns.stats().deferred);
    },
  });
}
