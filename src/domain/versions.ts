/**
 * Versions of records and of the data as a whole, for ETags, `Last-Modified`, `If-Match` and sync
 * tokens, read from the change log (`src/store/versions.ts`). A record's version is
 * kept until the change feed reports a change to something it covers (`kept.ts`), so a hot record
 * costs no query; inside a write transaction it is read fresh, after locking the record
 * (PostgreSQL: `select … for update`; SQLite's write transactions hold the database lock already),
 * so a precondition checked there holds until the write commits.
 *
 * @example
 *   const v = await services.versions.of('event', 42); // { seq: 1043, gmt: '2026-11-23 19:40:12', … }
 */
import type { Store } from '../store/db.js';
import type { Executor } from '../store/schema.js';
import { changeTime, databaseId, eventVersions, lockRecord, recordVersion, type RecordVersion, type VersionedType } from '../store/versions.js';
import { withWriteGuard } from '../store/changes.js';
import { createKeptMap } from './kept.js';
import { syncKeyReader, versionTag, type SyncKey } from './sync.js';

export type { RecordVersion, VersionedType };

export interface DataPosition {
  /**
   * the change log's number of the calendar's last change (its own or people's) the kept results
   * reflect: what its sync tokens carry (another calendar's writes do not move it)
   */
  seq: number;
  /** the calendar's data revision (`ChangeFeed.revision()`: that number, and resets the feed could not follow) */
  revision: string;
  /** the revision as validators show it (`versionTag`: equal for equal revisions, and nothing more) */
  tag: string;
  /**
   * the whole log's number the feed reflects (at least `seq`): a sync token up to it is not from
   * the future (one issued before tokens carried a calendar's number carries the log's), and
   * nothing of the calendar changed between `seq` and it
   */
  logSeq: number;
  /** when that change was committed (undefined: not logged) */
  gmt: string | undefined;
}

export interface VersionService {
  /** This database's id (migration 007). */
  databaseId(): Promise<string>;
  /** What signs this database's sync tokens (its id and secret; read once). */
  syncKey(): Promise<SyncKey>;
  /**
   * A record's version, kept until something it covers changes. `sync` (default): bring the change
   * feed up to the database first; without, the version as the feed knows it (never newer than
   * the database; cheaper on PostgreSQL, where a sync reads the counter).
   */
  of(type: VersionedType, id: number, sync?: boolean): Promise<RecordVersion>;
  /**
   * The versions of many events (a CalDAV calendar's members), each equal to
   * `of('event', id, false)`: kept ones as kept, the others read together (`eventVersions`) and kept.
   */
  ofEvents(ids: readonly number[]): Promise<Map<number, RecordVersion>>;
  /** Inside a write transaction: lock the record, then read its version. */
  locked(trx: Executor, type: VersionedType, id: number): Promise<RecordVersion>;
  /**
   * Run the write `fn` with `check` (a precondition such as If-Match: it throws when the version
   * does not do) holding atomically with it: checked on the record's locked version as the first
   * statement of the first write transaction `fn` opens (a check that throws writes nothing), or
   * after `fn` when it opened none.
   */
  guardedWrite<T>(type: VersionedType, id: number, check: (version: RecordVersion) => void, fn: () => Promise<T>): Promise<T>;
  /** The position of the data as a whole (lists): brought up to date first unless `sync` is false. */
  position(sync?: boolean): Promise<DataPosition>;
}

export function createVersionService(store: Store): VersionService {
  const db = store.db;
  const feed = store.feed;
  const kept = createKeptMap<RecordVersion>(feed, 10_000, { owner: db, kind: 'versions', admitOnSecondUse: true });
  let dbId: Promise<string> | undefined;
  let lastTime: { seq: number; gmt: string | undefined } | undefined;
  const service: VersionService = {
    databaseId() {
      dbId ??= databaseId(db).catch((e) => {
        dbId = undefined;
        throw e;
      });
      return dbId;
    },
    syncKey: () => syncKey(),
    async of(type, id, sync = true) {
      const seq = sync || feed.seq() < 0 ? await feed.sync() : feed.seq();
      const key = `${type}:${id}`;
      const known = kept.get(key);
      if (known) return known;
      const version = await recordVersion(db, type, id);
      kept.set(key, version, seq, version.deps);
      return version;
    },
    async ofEvents(ids) {
      const seq = feed.seq() < 0 ? await feed.sync() : feed.seq();
      const out = new Map<number, RecordVersion>();
      const missing: number[] = [];
      for (const id of ids) {
        const known = kept.get(`event:${id}`);
        if (known) out.set(id, known);
        else missing.push(id);
      }
      if (missing.length === 0) return out;
      for (const [id, version] of await eventVersions(db, missing)) {
        kept.set(`event:${id}`, version, seq, version.deps);
        out.set(id, version);
      }
      return out;
    },
    async locked(trx, type, id) {
      if (store.dialect === 'postgres') await lockRecord(trx, type, id);
      return recordVersion(trx, type, id);
    },
    async guardedWrite(type, id, check, fn) {
      let checked = false;
      const checkOn = async (trx: Executor) => {
        checked = true;
        check(await service.locked(trx, type, id));
      };
      const result = await withWriteGuard(checkOn, fn);
      if (!checked) await checkOn(db);
      return result;
    },
    async position(sync = true) {
      // A feed that never synced has no number yet (PostgreSQL, first request), nor the position of
      // a calendar it was not synced in (PostgreSQL looks it up then): sync once.
      if (sync || feed.seq() < 0) await feed.sync();
      let here = feed.here();
      if (!here) {
        await feed.sync();
        here = feed.here() ?? { seq: feed.seq(), revision: feed.revision() };
      }
      const { seq, revision } = here;
      const key = await syncKey();
      if (lastTime?.seq !== seq) lastTime = { seq, gmt: await changeTime(db, seq) };
      return { seq, revision, tag: versionTag(key, revision), gmt: lastTime.gmt, logSeq: Math.max(seq, feed.seq()) };
    },
  };
  const syncKey = syncKeyReader(db, () => service.databaseId());
  return service;
}
