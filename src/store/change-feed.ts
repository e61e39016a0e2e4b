/**
 * Reading the change log (migration 005, `changes.ts`): each open store has one feed that knows
 * the sequence number its readers' kept results reflect (`seq()`), and brings them up to the
 * database's (`sync()`): it reads the log rows written since, the current listing state and text
 * of the events they name, and hands each subscriber one batch of transitions to apply. Writes of
 * this process and of any other (a second instance on the same PostgreSQL, a CLI command on the
 * same SQLite file) are seen the same way; nothing is dropped wholesale except on a bulk load or a
 * change too large to follow.
 *
 * SQLite: `sync()` first compares `PRAGMA data_version` and `total_changes()` with the last look
 * (two cached statements, no query through Kysely): unchanged, the kept results are current. It
 * reads the log synchronously on the server's one connection, so log and states are one snapshot.
 * PostgreSQL: requests asking during one turn of the event loop share one read of the counter;
 * when it moved, the log and states are read in one REPEATABLE READ transaction.
 *
 * A recent history of transitions is kept, so that a result computed at an older or newer sequence
 * number than the feed's (a count that ran on a background connection for a while) can be brought
 * to the feed's number before it is kept (`transitionsBetween`).
 *
 * @example
 *   const feed = feedOf(db)!;
 *   feed.subscribe((batch) => { for (const t of batch.events) cache.delete(t.id); });
 *   await feed.sync(); // now the kept results reflect every committed write
 */
import type { Executor } from './schema.js';
import { lastSeq, listingStateOf, readChangesSince, readListingStates, toChangeRow, type ChangeRow, type ListingRow, type ListingState } from './changes.js';

/** The text the event list searches (title, excerpt, description). */
export interface EventText {
  title: string;
  excerpt: string;
  content: string;
}

/**
 * One event's change at one sequence number. `before`/`after`: its listing state around the
 * change (`null`: it did not exist; `undefined`: unknown, e.g. a bulk unlink). `beforeText` and
 * `afterText`: its searchable text around the change, when known.
 */
export interface EventTransition {
  seq: number;
  id: number;
  before: ListingState | null | undefined;
  after: ListingState | null | undefined;
  beforeText: EventText | undefined;
  afterText: EventText | undefined;
}

export interface ChangeBatch {
  /** the batch covers sequence numbers (from, to] */
  from: number;
  to: number;
  /** anything may have changed: drop every kept result */
  reset: boolean;
  /** event list results cannot be adjusted: drop them */
  listsReset: boolean;
  events: EventTransition[];
  /** ids of the events changed in the batch */
  eventIds: Set<number>;
  venues: Set<number>;
  organizers: Set<number>;
  terms: Set<number>;
  images: Set<number>;
}

export type ChangeListener = (batch: ChangeBatch) => void;

export interface ChangeFeed {
  /** The sequence number kept results reflect now (synchronous). */
  seq(): number;
  /**
   * The data revision for caches keyed by one value: the sequence number, and how often the feed
   * had to reset (a write it could not follow changes the revision without a new number).
   */
  revision(): string;
  /** Apply every committed change to the subscribers; resolves with the new sequence number. */
  sync(): Promise<number>;
  subscribe(listener: ChangeListener): void;
  /**
   * Writes may have been committed since the last look (a request arrived; on PostgreSQL, this
   * process committed one): the next `sync()` must look. Between two such calls, a feed looks at
   * most once per turn of the event loop: SQLite for other connections' commits (`PRAGMA
   * data_version`, about 5 µs; this connection's own writes are seen at once through
   * `total_changes()`), PostgreSQL by reading its counter (a round trip), so the several reads of
   * one request cost one look. A commit that lands while a request is being answered is seen by the
   * next request or turn, as if it had committed a moment later.
   */
  expectChanges(): void;
  /**
   * The event transitions in (from, to], or undefined when they are not all known (a reset, or
   * older than the kept history): then a result computed at `from` cannot be brought to `to`.
   */
  transitionsBetween(from: number, to: number): EventTransition[] | undefined;
}

/** Log rows read in one go; more than this and the feed resets its subscribers instead. */
const MAX_ROWS = 20_000;
/** Transitions kept for `transitionsBetween`. */
const HISTORY = 5_000;
/** Texts longer than this are not kept (the list's search over them is then recounted). */
const MAX_TEXT = 256 * 1024;

/** Raw event row as the feed reads it: listing state columns and text. */
interface StateRow extends ListingRow {
  title: string;
  excerpt: string;
  content: string;
}

function textOf(r: EventText): EventText | undefined {
  return r.title.length + r.excerpt.length + r.content.length > MAX_TEXT ? undefined : { title: r.title, excerpt: r.excerpt, content: r.content };
}

/**
 * Build a batch from log rows and the events' states and texts at the batch's end.
 */
export function buildBatch(from: number, to: number, rows: ChangeRow[], states: Map<number, ListingState>, texts: Map<number, EventText | undefined>, truncated: boolean): ChangeBatch {
  const batch: ChangeBatch = {
    from,
    to,
    reset: truncated,
    listsReset: false,
    events: [],
    eventIds: new Set(),
    venues: new Set(),
    organizers: new Set(),
    terms: new Set(),
    images: new Set(),
  };
  const eventRows: ChangeRow[] = [];
  for (const r of rows) {
    switch (r.type) {
      case 'all':
        batch.reset = true;
        break;
      case 'lists':
        batch.listsReset = true;
        break;
      case 'event':
        eventRows.push(r);
        batch.eventIds.add(r.id);
        break;
      case 'venue':
        batch.venues.add(r.id);
        break;
      case 'organizer':
        batch.organizers.add(r.id);
        break;
      case 'term':
        batch.terms.add(r.id);
        break;
      case 'image':
        batch.images.add(r.id);
        break;
    }
  }
  // Each event's transitions in order: the after state of one is the before state of the next; the
  // last one ends at the state read now. Text is known after a transition when no later one
  // changed it; before it, when that transition did not change it either.
  for (let i = 0; i < eventRows.length; i++) {
    const r = eventRows[i]!;
    let next: ChangeRow | undefined;
    let textChangedLater = false;
    for (let j = i + 1; j < eventRows.length; j++) {
      const n = eventRows[j]!;
      if (n.id !== r.id) continue;
      next ??= n;
      if (!n.detail || n.detail.text) textChangedLater = true;
    }
    const before = r.action === 'create' ? null : r.detail ? r.detail.before : undefined;
    const after = next ? (next.detail ? next.detail.before : undefined) : (states.get(r.id) ?? null);
    const afterText = textChangedLater ? undefined : texts.get(r.id);
    const textChanged = r.action === 'create' || !r.detail || r.detail.text;
    batch.events.push({ seq: r.seq, id: r.id, before, after, beforeText: textChanged ? undefined : afterText, afterText });
    if (before === undefined || after === undefined) batch.listsReset = true;
  }
  return batch;
}

/** The machinery both dialects share: subscribers, history, applying a batch. */
function feedCore() {
  let seq = -1;
  let resets = 0;
  const listeners: ChangeListener[] = [];
  const history: EventTransition[] = [];
  /** sequence numbers at or below this one are not all in `history` */
  let historyFloor = -1;
  return {
    seq: () => seq,
    revision: () => (resets === 0 ? String(seq) : `${seq}~${resets}`),
    subscribe(listener: ChangeListener) {
      listeners.push(listener);
    },
    /**
     * First sync: from now on kept results reflect this number. Anything kept before it (a result
     * built before the feed knew its number) is dropped.
     */
    start(value: number) {
      seq = value;
      historyFloor = value;
      const batch = buildBatch(value, value, [], new Map(), new Map(), true);
      for (const l of listeners) l(batch);
    },
    apply(batch: ChangeBatch) {
      if (batch.reset) resets++;
      if (batch.reset || batch.listsReset) {
        history.length = 0;
        historyFloor = batch.to;
      } else {
        for (const t of batch.events) history.push(t);
        if (history.length > HISTORY) {
          const cut = history.length - HISTORY;
          historyFloor = history[cut - 1]!.seq;
          // Drop whole sequence numbers only.
          let k = cut;
          while (k < history.length && history[k]!.seq === historyFloor) k++;
          history.splice(0, k);
        }
      }
      seq = batch.to;
      for (const l of listeners) l(batch);
    },
    transitionsBetween(from: number, to: number): EventTransition[] | undefined {
      if (from === to) return [];
      // A result from ahead of the feed cannot be kept: the feed would apply those changes again.
      if (from > to || from < historyFloor || to > seq) return undefined;
      return history.filter((t) => t.seq > from && t.seq <= to);
    },
  };
}

/**
 * The feed of a SQLite database, reading on its connection synchronously. `inTransaction` tells
 * whether a transaction of another request is open on that connection: the feed then keeps its
 * number (uncommitted rows must not be read as changes); that request's commit is seen next time.
 */
export function createSqliteFeed(connection: {
  prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[]; pluck(on?: boolean): unknown };
  readonly inTransaction: boolean;
}): ChangeFeed {
  const core = feedCore();
  type Stmt = { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
  let statements: { dataVersion: Stmt; totalChanges: Stmt; counter: Stmt; since: Stmt; states: Stmt } | undefined;
  let lastDataVersion = -1;
  let lastTotalChanges = -1;
  // Whether other connections' commits were looked for since the last request arrived and in this
  // turn of the event loop. A commit by another process that was acknowledged before a request
  // arrived is seen by that request; one that lands while requests are being answered is seen by
  // the next request or turn (as if it had committed a moment later).
  let othersChecked = false;
  let resetScheduled = false;
  const resetOthersChecked = () => {
    othersChecked = false;
    resetScheduled = false;
  };
  const prepare = () => {
    const dataVersion = connection.prepare('pragma data_version') as unknown as { pluck(): Stmt };
    const totalChanges = connection.prepare('select total_changes()') as unknown as { pluck(): Stmt };
    return {
      dataVersion: dataVersion.pluck(),
      totalChanges: totalChanges.pluck(),
      counter: (connection.prepare('select "value" from "change_counter" where "id" = 1') as unknown as { pluck(): Stmt }).pluck(),
      since: connection.prepare('select "seq", "idx", "record_type", "record_id", "action", "detail" from "changes" where "seq" > ? and "seq" <= ? order by "seq", "idx" limit ?') as Stmt,
      states: connection.prepare(
        `select p."id", p."status", p."author_id", p."parent_id", p."date_gmt", e."start_local", e."end_local", e."hide_from_listings", e."featured", e."venue_id", v."geo_lat" as "venue_lat", v."geo_lng" as "venue_lng", p."title", p."excerpt", p."content",
           (select json_group_array("term_id") from "event_terms" t where t."event_id" = p."id") as "terms",
           (select json_group_array("organizer_id") from (select "organizer_id" from "event_organizers" o where o."event_id" = p."id" order by o."position")) as "organizers"
         from "posts" p inner join "events" e on e."post_id" = p."id" left join "venues" v on v."post_id" = e."venue_id" where p."id" in (select "value" from json_each(?))`,
      ) as Stmt,
    };
  };
  const syncNow = (): number => {
    statements ??= prepare();
    const st = statements;
    if (connection.inTransaction) return core.seq();
    const totalChanges = Number(st.totalChanges.get());
    if (othersChecked && totalChanges === lastTotalChanges) return core.seq();
    let dataVersion = lastDataVersion;
    if (!othersChecked) {
      dataVersion = Number(st.dataVersion.get());
      othersChecked = true;
      if (!resetScheduled) {
        resetScheduled = true;
        setImmediate(resetOthersChecked);
      }
    }
    if (dataVersion === lastDataVersion && totalChanges === lastTotalChanges) return core.seq();
    const value = Number(st.counter.get() ?? 0);
    if (core.seq() < 0) core.start(value);
    else if (value === core.seq() && dataVersion !== lastDataVersion) {
      // Another connection committed without writing to the log (plain SQL, an older version):
      // what it changed is unknown, so nothing kept can be trusted.
      core.apply(buildBatch(value, value, [], new Map(), new Map(), true));
    } else if (value !== core.seq()) {
      const from = core.seq();
      const raw = st.since.all(from, value, MAX_ROWS + 1) as Array<Parameters<typeof toChangeRow>[0]>;
      const truncated = raw.length > MAX_ROWS || value < from;
      const rows = truncated ? [] : raw.map(toChangeRow);
      const ids = [...new Set(rows.filter((r) => r.type === 'event').map((r) => r.id))];
      const states = new Map<number, ListingState>();
      const texts = new Map<number, EventText | undefined>();
      for (let i = 0; i < ids.length; i += 500) {
        const found = st.states.all(JSON.stringify(ids.slice(i, i + 500))) as Array<StateRow & { terms: string; organizers: string }>;
        for (const r of found) {
          states.set(Number(r.id), listingStateOf(r, (JSON.parse(r.terms) as number[]).map(Number), (JSON.parse(r.organizers) as number[]).map(Number)));
          texts.set(Number(r.id), textOf(r));
        }
      }
      core.apply(buildBatch(from, value, rows, states, texts, truncated));
    }
    lastDataVersion = dataVersion;
    lastTotalChanges = totalChanges;
    return core.seq();
  };
  return {
    seq: () => (core.seq() < 0 ? syncNow() : core.seq()),
    revision: core.revision,
    sync: async () => syncNow(),
    expectChanges: () => {
      othersChecked = false;
    },
    subscribe: core.subscribe,
    transitionsBetween: core.transitionsBetween,
  };
}

/** The feed of a PostgreSQL database, over its Kysely handle. */
export function createPostgresFeed(db: Executor): ChangeFeed {
  const core = feedCore();
  let counterRead: Promise<{ value: number; sentAt: number }> | undefined;
  let refreshing: Promise<void> | undefined;
  // Bumped whenever changes may have been committed since the last look (`expectChanges`, and each
  // turn of the event loop after a look); a look answers for the epoch in which its read was sent.
  let epoch = 0;
  let lookedEpoch = -1;
  let turnEndScheduled = false;
  const endTurn = () => {
    turnEndScheduled = false;
    epoch++;
  };

  // Requests asking during the same turn of the event loop share one read, sent after all of them
  // asked (so its answer is never older than any of them).
  const sharedCounter = (): Promise<{ value: number; sentAt: number }> => {
    counterRead ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      counterRead = undefined;
      const sentAt = epoch;
      return { value: await lastSeq(db), sentAt };
    });
    return counterRead;
  };

  const refresh = async (): Promise<void> => {
    await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const value = await lastSeq(trx);
        const from = core.seq();
        if (from < 0) {
          core.start(value);
          return;
        }
        if (value === from) return;
        const read = await readChangesSince(trx, from, value, MAX_ROWS + 1);
        const truncated = read.length > MAX_ROWS || value < from;
        const rows = truncated ? [] : read;
        const ids = [...new Set(rows.filter((r) => r.type === 'event').map((r) => r.id))];
        const states = new Map((await readListingStates(trx, ids)).map((s) => [s.id, s]));
        const texts = new Map<number, EventText | undefined>();
        for (let i = 0; i < ids.length; i += 500) {
          const found = await trx
            .selectFrom('posts')
            .select(['id', 'title', 'excerpt', 'content'])
            .where('id', 'in', ids.slice(i, i + 500))
            .execute();
          for (const r of found) texts.set(Number(r.id), textOf(r));
        }
        core.apply(buildBatch(from, value, rows, states, texts, truncated));
      });
  };

  const sync = async (): Promise<number> => {
    if (lookedEpoch === epoch && core.seq() >= 0) return core.seq();
    const { value, sentAt } = await sharedCounter();
    while (value > core.seq() || core.seq() < 0) {
      if (!refreshing) {
        refreshing = refresh().finally(() => {
          refreshing = undefined;
        });
      }
      await refreshing;
      if (core.seq() < 0) return core.seq();
    }
    if (sentAt > lookedEpoch) lookedEpoch = sentAt;
    if (!turnEndScheduled) {
      turnEndScheduled = true;
      setImmediate(endTurn);
    }
    return core.seq();
  };

  return {
    seq: core.seq,
    revision: core.revision,
    sync,
    expectChanges: () => {
      epoch++;
    },
    subscribe: core.subscribe,
    transitionsBetween: core.transitionsBetween,
  };
}

/** Feeds of open stores, by their Kysely instance. */
const feeds = new WeakMap<object, ChangeFeed>();

export function registerChangeFeed(db: object, feed: ChangeFeed): void {
  feeds.set(db, feed);
}

/** The change feed of a store's handle (undefined for transactions). */
export function feedOf(db: object): ChangeFeed | undefined {
  return feeds.get(db);
}
