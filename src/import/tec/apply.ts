/**
 * `import tec`, writing what was read (the importer in fetch, map and apply): every
 * record through the domain services as an administrator (validation, permissions, change log),
 * the ids wanted handed to the store through the import context, and the import map row of each
 * record written in the record's own transaction, so an interrupted import resumes by skipping
 * what it already wrote (unchanged fingerprint) and a later run updates what changed at the source
 * (upsert by source and source id). Terms, venues and organizers, authors, single events, series
 * of another instance of this service and TEC Pro's recurring events.
 *
 * @example
 *   const applier = await TecApplier.open(services, admin, options, reader, report, sourceKey, [sourceKey], warn);
 *   await applier.importEvent(tecEvent);
 */
import type { DomainServices } from '../../domain/services.js';
import { isRole, managesAccounts, type Viewer } from '../../domain/permissions.js';
import { ApiError } from '../../domain/errors.js';
import { isSystemLogin } from '../../domain/system-accounts.js';
import { DISPLAY_NAME_MAX } from '../../domain/users.js';
import type { EventInput } from '../../domain/events/index.js';
import type { Executor } from '../../store/schema.js';
import { writeTransaction } from '../../store/changes.js';
import { withImportContext } from '../../store/import-context.js';
import { mappingsOf, putMapping } from '../../store/import-map.js';
import { occurrenceOf, occurrencesOf } from '../../store/recurrence.js';
import * as postsStore from '../../store/posts.js';
import * as linkedStore from '../../store/linked-posts.js';
import * as termsStore from '../../store/terms.js';
import * as usersStore from '../../store/users.js';
import * as calendarsStore from '../../store/calendars.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow } from '../../store/calendar-scope.js';
import { ImportError } from '../source.js';
import type { ImportReport } from '../report.js';
import type { TecImportOptions } from './options.js';
import type { TecReader } from './fetch.js';
import { differsFromSeries, eventFields, fingerprint, linkedDetails, linkedExtra, linkedFields, pick, reason, recordFailure, type Json, type Kind } from './map.js';
import { proRecurrence } from './pro.js';

export class TecApplier {
  /** What earlier runs imported from this source: `kind:source id` → local id and fingerprint. */
  private readonly mapped = new Map<string, { local: number; fingerprint: string }>();
  /** Records this run created (a TEC Pro parent created as an event, then made a series, counts once). */
  private readonly createdNow = new Set<string>();
  private readonly authorsDone = new Map<string, number>();
  private readonly db: Executor;
  /** `--author`: the local user every record is authored by */
  private authorOverride: number | undefined;
  /**
   * Whether this import makes accounts for the source's authors: only when the importer is a
   * network administrator (accounts are the network's) and a role was given for them.
   */
  private makesAccounts = false;
  /** The calendar imported into. */
  private readonly calendarId = calendarIdNow();
  /** The source's event index was read (this service): which occurrences are exceptions comes from it. */
  index = false;
  /** From the index: occurrences edited or deleted alone. */
  readonly exceptionIds = new Set<number>();

  private readonly services: DomainServices;
  private readonly admin: Viewer;
  private readonly options: TecImportOptions;
  private readonly reader: TecReader;
  private readonly report: ImportReport;
  private readonly sourceKey: string;
  private readonly warn: (message: string) => void;

  private constructor(services: DomainServices, admin: Viewer, options: TecImportOptions, reader: TecReader, report: ImportReport, sourceKey: string, warn: (message: string) => void) {
    this.services = services;
    this.admin = admin;
    this.options = options;
    this.reader = reader;
    this.report = report;
    this.sourceKey = sourceKey;
    this.warn = warn;
    this.db = services.store.db;
  }

  /** An applier with the import map of `mapKeys` (the source's key, and the key as typed for a dry run) and `--author` resolved. */
  static async open(
    services: DomainServices,
    admin: Viewer,
    options: TecImportOptions,
    reader: TecReader,
    report: ImportReport,
    sourceKey: string,
    mapKeys: string[],
    warn: (message: string) => void,
  ): Promise<TecApplier> {
    const applier = new TecApplier(services, admin, options, reader, report, sourceKey, warn);
    for (const key of mapKeys) for (const m of await mappingsOf(applier.db, key)) applier.mapped.set(`${m.kind}:${m.source_id}`, { local: Number(m.local_id), fingerprint: m.fingerprint });
    // Asked of the account, not of the viewer: the import job runs a calendar's administrator as an
    // administrator, and an import queued by a network administrator since demoted runs as they are now.
    const importer = admin.id > 0 ? await usersStore.findUserById(applier.db, admin.id) : undefined;
    const networkAdministrator = importer?.role === 'administrator' && managesAccounts(admin);
    if (options.author !== undefined) {
      const user = await usersStore.findUserByLogin(applier.db, options.author);
      // An account with no role in the calendar is, to its administrator, no account: naming it
      // would make it the author of the calendar's records (its row then in the calendar's export),
      // and a different answer would tell which logins the network has. A network administrator
      // may name any account, as their import makes accounts.
      if (!user || !(networkAdministrator || (await applier.isOfThisCalendar(Number(user.id)))))
        throw new ImportError(
          applier.calendarId === DEFAULT_CALENDAR_ID
            ? `--author ${options.author}: no such user here (create it with events-calendar users add)`
            : `--author ${options.author}: no account with a role in this calendar has that login (give it a role here first)`,
        );
      applier.authorOverride = Number(user.id);
    }
    applier.makesAccounts = isRole(options.authorRole) && networkAdministrator;
    return applier;
  }

  localOf(kind: Kind, id: unknown): number | undefined {
    return this.mapped.get(`${kind}:${id}`)?.local;
  }

  private async remember(trx: Executor, kind: Kind, sourceId: string, local: number, print: string): Promise<void> {
    await putMapping(trx, { source: this.sourceKey, kind, source_id: sourceId, local_id: local, fingerprint: print });
  }

  private noted(kind: Kind, sourceId: string, local: number, print: string): void {
    this.mapped.set(`${kind}:${sourceId}`, { local, fingerprint: print });
  }

  /**
   * Create or update one record: skipped when the fingerprint matches what was imported last and
   * the local record still exists.
   */
  private async upsert(
    kind: Kind,
    record: Json,
    exists: (local: number) => Promise<boolean>,
    create: (print: string) => Promise<number | undefined>,
    update: (local: number, print: string) => Promise<void>,
  ): Promise<number | undefined> {
    const sourceId = String(record.id);
    const print = fingerprint(record);
    const known = this.mapped.get(`${kind}:${sourceId}`);
    try {
      const present = known !== undefined && (await exists(known.local));
      if (present && known.fingerprint === print) {
        this.report.count(kind, 'skipped');
        return known.local;
      }
      if (this.options.dryRun) {
        this.report.count(kind, present ? 'updated' : 'created');
        return known?.local;
      }
      if (present) {
        await update(known.local, print);
        this.noted(kind, sourceId, known.local, print);
        this.report.count(kind, 'updated');
        return known.local;
      }
      const local = await create(print);
      if (local === undefined) return undefined;
      this.noted(kind, sourceId, local, print);
      this.report.count(kind, 'created');
      this.createdNow.add(`${kind}:${sourceId}`);
      if (local !== Number(record.id)) this.report.remap(kind, sourceId, local, 'the id is taken here');
      return local;
    } catch (err) {
      if (err instanceof ImportError && !(err as { recordLevel?: boolean }).recordLevel) throw err;
      this.report.fail(kind, sourceId, reason(err));
      return undefined;
    }
  }

  /**
   * The local user of a source author: `--author`, else the user imported for it. A network
   * administrator's import reuses the account of that login or makes it (in another calendar than
   * the default one, with the role given there and the least of its own); anyone else's makes none: the
   * author is the account of that login when it has a role in the calendar, else the importer.
   */
  private async authorOf(sourceAuthor: unknown): Promise<number> {
    if (this.authorOverride !== undefined) return this.authorOverride;
    const sid = String(sourceAuthor ?? '0');
    if (sid === '0' || sid === '') return this.admin.id;
    const done = this.authorsDone.get(sid) ?? this.localOf('user', sid);
    if (done !== undefined && (await usersStore.findUserById(this.db, done))) return done;
    if (this.options.dryRun) {
      this.report.count('user', this.makesAccounts ? 'created' : 'skipped');
      this.authorsDone.set(sid, this.admin.id);
      return this.admin.id;
    }
    // WordPress names its authors at /wp/v2/users/ID (public for authors of published posts).
    let login = `author-${sid}`;
    let name = login;
    const who = await this.reader.author(sid);
    if (who?.status === 200 && typeof (who.body as Json).slug === 'string') {
      login =
        String((who.body as Json).slug)
          .replace(/[^A-Za-z0-9_.@ -]/g, '-')
          .slice(0, 60) || login;
      name = String((who.body as Json).name ?? login);
    }
    // The service's own accounts' logins are reserved (an author called so at the source is a
    // person here, or another instance's own account): another login, never theirs.
    if (isSystemLogin(login)) login = `${login.slice(0, 51)}-imported`;
    // The users table holds display names of 250 characters at most (WordPress' own limit).
    name = name.slice(0, DISPLAY_NAME_MAX);
    const existing = await usersStore.findUserByLogin(this.db, login);
    let local: number;
    /** The role of an account made here in the calendar imported into, when not the default one. */
    let roleHere: string | undefined;
    if (existing && (this.makesAccounts || (await this.isOfThisCalendar(Number(existing.id))))) {
      local = Number(existing.id);
      this.report.count('user', 'skipped');
      if (local !== Number(sid)) this.report.remap('user', sid, local, `user ${login} exists here`);
    } else if (!this.makesAccounts) {
      // Not the importer's to make (nor, when it is another calendar's only, to give records to):
      // the importer is the author, for this run only, so that a later import by a network
      // administrator still makes the account.
      this.report.count('user', 'skipped');
      this.report.remap('user', sid, this.admin.id, `no account ${login} in this calendar, and only a network administrator makes accounts: the importer is its author`);
      this.authorsDone.set(sid, this.admin.id);
      return this.admin.id;
    } else {
      const inDefault = this.calendarId === DEFAULT_CALENDAR_ID;
      // In another calendar the role given is the account's role there; its own (the default
      // calendar's) is the least, as for any account made for one calendar.
      const role = inDefault ? this.options.authorRole : 'subscriber';
      const user = await withImportContext({ wanted: { user: Number(sid) } }, () => this.services.users.add({ login, role, password: '', noPassword: true, name }));
      local = Number(user.id);
      this.report.count('user', 'created');
      if (local !== Number(sid)) this.report.remap('user', sid, local, 'the id is taken here');
      if (!inDefault) roleHere = this.options.authorRole;
    }
    await writeTransaction(this.db, async (trx) => {
      if (roleHere !== undefined) await calendarsStore.setRoleIn(trx, local, this.calendarId, roleHere);
      await this.remember(trx, 'user', sid, local, '');
    });
    this.authorsDone.set(sid, local);
    return local;
  }

  /** Whether an account has a role in the calendar imported into (the default one's: any account). */
  private async isOfThisCalendar(userId: number): Promise<boolean> {
    if (userId === this.admin.id) return true;
    if (this.calendarId === DEFAULT_CALENDAR_ID) return true;
    const user = await usersStore.findUserById(this.db, userId);
    return user?.role === 'administrator' || (await calendarsStore.roleIn(this.db, userId, this.calendarId)) !== '';
  }

  /** Publication and modification dates (and what the services do not write) as at the source. */
  private async keepMeta(trx: Executor, id: number, r: Json, extra: Record<string, unknown> = {}) {
    const patch: Record<string, unknown> = { ...extra };
    if (typeof r.date === 'string' && r.date) patch.date_local = r.date;
    if (typeof r.date_utc === 'string' && r.date_utc) patch.date_gmt = r.date_utc;
    if (typeof r.modified === 'string' && r.modified) patch.modified_local = r.modified;
    if (typeof r.modified_utc === 'string' && r.modified_utc) patch.modified_gmt = r.modified_utc;
    await postsStore.updatePost(trx, id, patch);
  }

  // ---- terms ---------------------------------------------------------------------------------
  async importTerm(kind: 'category' | 'tag', t: Json): Promise<number | undefined> {
    const service = kind === 'category' ? this.services.categories : this.services.tags;
    const parentOf = () => (kind === 'category' && Number(t.parent) > 0 ? (this.localOf('category', t.parent) ?? 0) : undefined);
    return this.upsert(
      kind,
      t,
      async (local) => (await termsStore.findTerm(this.db, service.taxonomy, local)) !== undefined,
      async (print) => {
        try {
          return await withImportContext({ wanted: { term: Number(t.id) } }, () =>
            writeTransaction(this.db, async (trx) => {
              const id = await service.create(trx, {
                name: String(t.name),
                slug: String(t.slug ?? ''),
                description: String(t.description ?? ''),
                ...(parentOf() !== undefined ? { parent: parentOf() } : {}),
              });
              await this.remember(trx, kind, String(t.id), id, print);
              return id;
            }),
          );
        } catch (err) {
          // A term of that name exists here under the same parent: the source's maps to it.
          if (!(err instanceof ApiError) || !/^term_exists/.test(err.code)) throw err;
          const existing = Number((err.data as Json).term_id);
          await writeTransaction(this.db, (trx) => this.remember(trx, kind, String(t.id), existing, print));
          this.noted(kind, String(t.id), existing, print);
          this.report.count(kind, 'skipped');
          this.report.remap(kind, String(t.id), existing, `a ${kind} named "${t.name}" exists here`);
          return undefined;
        }
      },
      async (local, print) => {
        const term = (await termsStore.findTerm(this.db, service.taxonomy, local))!;
        const input: Record<string, unknown> = { name: String(t.name), description: String(t.description ?? '') };
        if (term.slug !== t.slug && !(await termsStore.isTermSlugTaken(this.db, service.taxonomy, String(t.slug), local))) input.slug = String(t.slug);
        const parent = parentOf();
        if (parent !== undefined && parent !== local) input.parent = parent;
        await withImportContext({ wanted: {}, inTransaction: (trx) => this.remember(trx, kind, String(t.id), local, print) }, () => service.update(term, input));
      },
    );
  }

  // ---- venues and organizers -----------------------------------------------------------------
  async importLinked(kind: 'venue' | 'organizer', v: Json): Promise<number | undefined> {
    const service = kind === 'venue' ? this.services.venues : this.services.organizers;
    const input = async (): Promise<Record<string, unknown>> => linkedFields(kind, v, await this.authorOf(v.author));
    const extra = () => linkedExtra(v);
    const details = () => linkedDetails(kind, v);
    return this.upsert(
      kind,
      v,
      async (local) => (await service.findById(local)) !== undefined,
      async (print) => {
        const fields = { ...(await input()), slug: String(v.slug ?? '').replace(/__trashed$/, '') };
        return withImportContext({ wanted: { post: Number(v.id), ...(v.image?.id ? { image: Number(v.image.id) } : {}) } }, () =>
          writeTransaction(this.db, async (trx) => {
            const id = await service.create(trx, fields, this.admin, { exact: true });
            await this.keepMeta(trx, id, v, extra());
            await linkedStore.updateLinkedDetails(trx, kind, id, details());
            await this.remember(trx, kind, String(v.id), id, print);
            return id;
          }),
        );
      },
      async (local, print) => {
        const fields = await input();
        await withImportContext({ wanted: v.image?.id ? { image: Number(v.image.id) } : {} }, () =>
          writeTransaction(this.db, async (trx) => {
            const record = (await service.findById(local, trx))!;
            await service.update(trx, record, fields, this.admin);
            const slug = String(v.slug ?? '').replace(/__trashed$/, '');
            const slugPatch = slug && slug !== record.slug && !(await postsStore.isSlugTaken(trx, service.postType, slug, local)) ? { slug } : {};
            await this.keepMeta(trx, local, v, { ...extra(), ...slugPatch });
            await linkedStore.updateLinkedDetails(trx, kind, local, details());
            await this.remember(trx, kind, String(v.id), local, print);
          }),
        );
      },
    );
  }

  // ---- events --------------------------------------------------------------------------------
  private async refOf(kind: 'venue' | 'organizer' | 'category' | 'tag', embedded: Json): Promise<number> {
    const local = this.localOf(kind, embedded.id);
    if (local !== undefined) return local;
    // Not in the lists read before (e.g. not visible there): import it from the embedded copy.
    const created = kind === 'venue' || kind === 'organizer' ? await this.importLinked(kind, embedded) : await this.importTerm(kind, embedded);
    const now = created ?? this.localOf(kind, embedded.id);
    if (now === undefined) throw recordFailure(`its ${kind} ${embedded.id} could not be imported`);
    return now;
  }

  private async eventInput(e: Json): Promise<EventInput> {
    const venue = e.venue && typeof e.venue === 'object' && !Array.isArray(e.venue) && e.venue.id ? await this.refOf('venue', e.venue) : 0;
    const organizers: number[] = [];
    for (const o of Array.isArray(e.organizer) ? e.organizer : []) organizers.push(await this.refOf('organizer', o));
    const categories: number[] = [];
    for (const c of Array.isArray(e.categories) ? e.categories : []) categories.push(await this.refOf('category', c));
    const tags: number[] = [];
    for (const t of Array.isArray(e.tags) ? e.tags : []) tags.push(await this.refOf('tag', t));
    return eventFields(e, { author: await this.authorOf(e.author), venue, organizer: organizers, categories, tags });
  }

  async importEvent(e: Json): Promise<void> {
    await this.upsert(
      'event',
      e,
      async (local) => await this.services.events.isEventId(local),
      async (print) => {
        const input = await this.eventInput(e);
        const created = await withImportContext(
          {
            wanted: { post: Number(e.id), ...(e.image?.id ? { image: Number(e.image.id) } : {}) },
            inTransaction: async (trx, record) => {
              const id = Number((record as Json).id);
              await this.keepMeta(trx, id, e);
              await this.remember(trx, 'event', String(e.id), id, print);
            },
          },
          () => this.services.events.create(this.admin, input),
        );
        return Number(created.id);
      },
      async (local, print) => {
        const input = await this.eventInput(e);
        const record = (await this.services.events.findById(local))!;
        if (input.website === undefined && record.website !== null) input.website = '';
        await withImportContext(
          {
            wanted: e.image?.id ? { image: Number(e.image.id) } : {},
            inTransaction: async (trx) => {
              await this.keepMeta(trx, local, e);
              await this.remember(trx, 'event', String(e.id), local, print);
            },
          },
          () => this.services.events.update(this.admin, record, input),
        );
      },
    );
  }

  /**
   * Occurrences an earlier version imported as single events (it flattened series): trashed before
   * their series is created, so that the lists show each occurrence once (their ids stay taken: the
   * occurrences get new ones, printed as mapped).
   */
  private async retireFlattened(s: Json, sourceIds: number[]): Promise<void> {
    let retired = 0;
    for (const sid of sourceIds) {
      const local = this.localOf('event', sid);
      if (local === undefined || (await occurrenceOf(this.db, local)) !== undefined) continue;
      const record = await this.services.events.findById(local);
      if (!record || record.type !== 'tribe_events' || record.status === 'trash') continue;
      await this.services.events.trash(record, undefined, this.admin);
      retired++;
    }
    if (retired) this.warn(`series ${s.id}: ${retired} of its occurrences had been imported as single events by an earlier version; those were trashed and the series imported`);
  }

  /**
   * A recurring event: the series (its id, fields and rules), its occurrences keeping their ids
   * (generated here by the same rules, so their starts match), then its exceptions: occurrences
   * edited alone updated alone, and those trashed alone trashed (from the index; without it, a
   * start the rules generate here that the source does not list).
   */
  async importSeries(s: Json, occurrences: Json[], trashed: Array<{ id: number; start: string }>): Promise<number | undefined> {
    const isException = (o: Json) => (this.index ? this.exceptionIds.has(Number(o.id)) : differsFromSeries(o, s));
    const exceptions = occurrences.filter(isException);
    // (A TEC Pro series' first occurrence is the series' own post at the source: its id stays the series'.)
    const wantedIds = new Map<string, number>([
      ...occurrences.filter((o) => Number(o.id) !== Number(s.id)).map((o) => [String(o.original_start_date), Number(o.id)] as const),
      ...trashed.map((t) => [t.start, t.id] as const),
    ]);
    // The fingerprint covers the series, its exceptions and which occurrences exist.
    const record = { ...s, occurrences: occurrences.map((o) => (isException(o) ? o : [o.id, o.original_start_date])), trashed };
    const context = (print: string, keep: boolean) => ({
      wanted: { ...(keep ? { post: Number(s.id) } : {}), ...(s.image?.id ? { image: Number(s.image.id) } : {}) },
      occurrences: new Map(wantedIds),
      inTransaction: async (trx: Executor, written: unknown) => {
        const id = Number((written as Json).id);
        await this.keepMeta(trx, id, s);
        await this.remember(trx, 'event', String(s.id), id, print);
      },
    });
    const input = async () => ({ ...(await this.eventInput(s)), recurrence: (s.recurrence as unknown[]).map(String) });
    const skippedBefore = this.report.counts.get('event')?.skipped ?? 0;
    const local = await this.upsert(
      'event',
      record,
      async (id) => await this.services.events.isEventId(id),
      async (print) => {
        await this.retireFlattened(s, [...wantedIds.values()]);
        return Number((await withImportContext(context(print, true), async () => this.services.events.create(this.admin, await input()))).id);
      },
      async (id, print) => {
        const fields = await input();
        const current = (await this.services.events.findById(id))!;
        if (fields.website === undefined && current.website !== null) fields.website = '';
        await withImportContext(context(print, false), () => this.services.events.update(this.admin, current, { ...fields, recurrence_scope: 'all' }));
      },
    );
    if (local === undefined || this.options.dryRun || (this.report.counts.get('event')?.skipped ?? 0) > skippedBefore) return local;
    const here = await occurrencesOf(this.db, local);
    const byStart = new Map(here.map((o) => [o.original_start, o]));
    for (const o of exceptions) {
      const target = byStart.get(String(o.original_start_date));
      if (!target) {
        this.warn(`series ${s.id}: no occurrence here starts at ${o.original_start_date}; its changed occurrence ${o.id} was left out`);
        continue;
      }
      try {
        const fields = await this.eventInput(o);
        const current = (await this.services.events.findById(target.post_id))!;
        if (fields.website === undefined && current.website !== null) fields.website = '';
        await withImportContext(
          {
            wanted: o.image?.id ? { image: Number(o.image.id) } : {},
            inTransaction: async (trx) => {
              await this.keepMeta(trx, target.post_id, o);
              await this.remember(trx, 'event', String(o.id), target.post_id, fingerprint(o));
            },
          },
          () => this.services.events.update(this.admin, current, { ...fields, recurrence_scope: 'this' }),
        );
      } catch (err) {
        if (err instanceof ImportError && !(err as { recordLevel?: boolean }).recordLevel) throw err;
        this.report.fail('event', String(o.id), reason(err));
      }
    }
    const listed = new Set(occurrences.map((o) => String(o.original_start_date)));
    // Without the index: only up to the last start the source lists (its horizon may be nearer than ours).
    const last = [...listed].sort().pop() ?? '';
    const gone = this.index ? new Set(trashed.map((t) => t.start)) : new Set(here.filter((o) => !listed.has(o.original_start) && o.original_start < last).map((o) => o.original_start));
    for (const o of here) {
      if (!gone.has(o.original_start) || o.status === 'trash') continue;
      const current = await this.services.events.findById(o.post_id);
      if (current) await this.services.events.trash(current, 'this', this.admin);
    }
    // The occurrences' ids, for --mapping and later runs.
    const sourceIdOf = new Map([...wantedIds].map(([start, id]) => [start, id]));
    await writeTransaction(this.db, async (trx) => {
      for (const o of here) {
        const sid = sourceIdOf.get(o.original_start);
        if (sid === undefined) continue;
        await this.remember(trx, 'event', String(sid), o.post_id, '');
        if (sid !== o.post_id) this.report.remap('event', String(sid), o.post_id, 'the id is taken here');
      }
    });
    return local;
  }

  /**
   * A TEC Pro recurring event: its parent and the children that name it (`post_parent`)
   * become one series here with the parent's id and fields, a rule (or RDATEs) made from the
   * occurrences' starts, the children keeping their ids; children that differ from the parent are
   * updated alone (exceptions). A parent imported before as a single event (a first run imports it
   * before its children are seen; earlier versions imported every occurrence so) becomes the series,
   * and its children imported as single events are trashed.
   */
  async importProSeries(parent: Json, children: Json[]): Promise<void> {
    const occurrences: Json[] = [parent, ...children].map((o) => ({ ...o, original_start_date: o.start_date }));
    const first = [...occurrences].sort((a, b) => String(a.start_date).localeCompare(String(b.start_date)) || Number(a.id) - Number(b.id))[0]!;
    const recurrence = proRecurrence(
      occurrences.map((o) => String(o.start_date)),
      Boolean(parent.all_day),
    );
    const s = { ...parent, recurrence, ...pick(first, ['start_date', 'end_date', 'utc_start_date', 'utc_end_date']) };
    const local = this.localOf('event', parent.id);
    if (!this.options.dryRun && local !== undefined && (await occurrenceOf(this.db, local)) === undefined) {
      const here = await this.services.events.findById(local);
      if (here && here.type === 'tribe_events')
        await this.retireFlattened(
          s,
          children.map((c) => Number(c.id)),
        );
    }
    const updatedBefore = this.report.counts.get('event')?.updated ?? 0;
    const series = await this.importSeries(s, occurrences, []);
    const counts = this.report.counts.get('event');
    if (counts && this.createdNow.has(`event:${parent.id}`) && counts.updated > updatedBefore) counts.updated--;
    if (series !== undefined && !this.options.dryRun && this.localOf('series', parent.id) !== series) {
      await writeTransaction(this.db, (trx) => this.remember(trx, 'series', String(parent.id), series, ''));
      this.noted('series', String(parent.id), series, '');
    }
  }
}
