/**
 * The event editor: every field of the API's event write, dates and times in the event's own zone
 * (a zone picker), the description in Quill (lazy), venue/organizer pickers with inline creation,
 * categories as a tree and tags, the flags, status and scheduled publication, recurrence, and a
 * preview link (with trash, Undo and restore: EventActions.tsx). Safe editing (docs/admin.md, "Editing together"): the event is loaded with its
 * ETag, and a save sends only the fields the user changed, with `If-Match`. On a 412 the stored
 * version is merged three ways (what was loaded, theirs, mine): what only they changed is taken,
 * what only I changed is kept, and only fields both changed differently are asked about, per field,
 * beside who changed theirs. Unsaved changes are kept in localStorage per event with the version
 * they were made on (restored, and merged the same way, after a reload); leaving asks first. While
 * the event is open the editor holds a post lock (heartbeat), and says who else has it open, live.
 * Its model (the draft, its fields, the write's body) is lib/event-draft.ts; the conflict panel and
 * a series' occurrences are EditorParts.tsx.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiUrl, ApiProblem, currentNonce, fieldErrors } from '../lib/api';
import { changedKeys, differs, take, threeWay } from '../lib/merge';
import { NS, type EventRecord } from '../lib/events';
import { formatDate, t } from '../lib/i18n';
import { addGuard, navigate } from '../lib/router';
import { boot, can, currentUser } from '../lib/session';
import { PageHeader } from '../components/PageHeader';
import { Checkbox, Fieldset, FormErrors, SelectField, TextArea, TextField } from '../components/Fields';
import { ErrorState, Loading } from '../components/States';
import { chooseDialog } from '../components/ConfirmDialog';
import { lazyComponent } from '../components/Lazy';
import { toast } from '../components/Toast';
import { OrganizerPicker, TermPicker, TimeZonePicker, VenuePicker } from './Pickers';
import { RecurrenceEditor } from './RecurrenceEditor';
import { bodyOf, draftOf, emptyDraft, fieldNamed, FIELDS, namesOf, type Draft } from '../lib/event-draft';
import { ConflictPanel, SeriesOccurrences, type Conflict } from './EditorParts';
import { MediaPicker } from './MediaPicker';
import { EventActions } from './EventActions';

const RichText = lazyComponent(() => import('./RichText').then((m) => m.RichText));

/** What the editor keeps in localStorage: the draft and the version it was made on. */
interface Kept {
  v: 2;
  draft: Draft;
  base: Draft | null;
}

interface EditingState {
  editors: Array<{ id: number; name: string }>;
  last_editor: { id: number; name: string } | null;
  heartbeat: number;
}

const ADMIN_NS = 'calendar/admin/v1';

/**
 * The event as the editor works on it: its REST representation with the cost as typed. The REST
 * `cost` is the original's rendering ("€5 suggested donation" reads "€ suggested donation5"):
 * loaded into the form and saved again, it stored that.
 */
async function withTypedCost(e: EventRecord): Promise<EventRecord> {
  const typed = await api<{ cost: string }>(`${ADMIN_NS}/events/${e.id}`).catch(() => null);
  return typed ? { ...e, cost: typed.data.cost } : e;
}

const storageKey = (id: string) => `calendar-admin-draft-${currentUser.value.id}-${id}`;

export function EventEditor({ params }: { params: Record<string, string> }) {
  const id = params.id ?? 'new';
  const isNew = id === 'new';
  const [original, setOriginal] = useState<EventRecord | null>(null);
  const [etag, setEtag] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState<Draft | null>(isNew ? emptyDraft() : null);
  const [dirty, setDirty] = useState(false);
  const [restored, setRestored] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [stored, setStored] = useState<string | null>(null);
  /** the version the draft was made on (what the editor loaded, or merged onto) */
  const [base, setBase] = useState<Draft | null>(null);
  /** the others who have this event open in the editor */
  const [others, setOthers] = useState<Array<{ id: number; name: string }>>([]);
  const dirtyRef = useRef(false);
  dirtyRef.current = dirty;
  /** the draft as typed now: what a save's answer is merged into when typing went on meanwhile */
  const draftRef = useRef<Draft | null>(null);
  draftRef.current = draft;
  const baseRef = useRef<Draft | null>(null);
  baseRef.current = base;
  /** the draft to write to localStorage (written at most every 300 ms while typing, and on leaving) */
  const pending = useRef<Draft | null>(null);
  const persistTimer = useRef<number | undefined>(undefined);
  const persistNow = () => {
    window.clearTimeout(persistTimer.current);
    persistTimer.current = undefined;
    if (!pending.current) return;
    const kept: Kept = { v: 2, draft: pending.current, base: baseRef.current };
    pending.current = null;
    localStorage.setItem(storageKey(id), JSON.stringify(kept));
  };
  const persist = (d: Draft) => {
    pending.current = d;
    if (persistTimer.current === undefined) persistTimer.current = window.setTimeout(persistNow, 300);
  };
  const forget = () => {
    window.clearTimeout(persistTimer.current);
    persistTimer.current = undefined;
    pending.current = null;
    localStorage.removeItem(storageKey(id));
  };

  useEffect(() => addGuard(() => (dirtyRef.current ? t('editor.leave') : null)), []);
  useEffect(() => {
    window.addEventListener('pagehide', persistNow);
    return () => {
      window.removeEventListener('pagehide', persistNow);
      persistNow();
    };
  }, [id]);

  // The post lock: taken and refreshed by a heartbeat, released on leaving; who else holds one, live
  // from the change stream (editors) or at each heartbeat (authors, who do not follow the stream).
  useEffect(() => {
    if (isNew) return;
    const path = `${ADMIN_NS}/events/${id}/editors`;
    const me = currentUser.value.id;
    let stopped = false;
    const apply = (s: EditingState) => {
      if (!stopped) setOthers(s.editors.filter((e) => e.id !== me).map(({ id, name }) => ({ id, name })));
    };
    let timer: number | undefined;
    const beat = () =>
      api<EditingState>(path, { method: 'POST' })
        .then((r) => {
          apply(r.data);
          window.clearTimeout(timer);
          if (!stopped) timer = window.setTimeout(beat, Math.max(5, r.data.heartbeat) * 1000);
        })
        .catch(() => {
          if (!stopped) timer = window.setTimeout(beat, 30_000);
        });
    void beat();
    let source: EventSource | null = null;
    if (can('edit_others_tribe_events') && typeof EventSource !== 'undefined') {
      source = new EventSource(apiUrl(`${ADMIN_NS}/changes/stream`, { editing: id, _wpnonce: currentNonce() }));
      source.addEventListener('editors', (e) => apply(JSON.parse((e as MessageEvent<string>).data) as EditingState));
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // `keepalive`: sent even while the page unloads.
      void fetch(apiUrl(path), { method: 'DELETE', keepalive: true, credentials: 'same-origin', headers: { 'x-wp-nonce': currentNonce() } }).catch(() => {});
    };
    window.addEventListener('pagehide', release);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      source?.close();
      window.removeEventListener('pagehide', release);
      release();
    };
  }, [id]);

  const load = async () => {
    setLoadError(null);
    const text = localStorage.getItem(storageKey(id));
    const parsed = text ? (JSON.parse(text) as Kept | Draft) : null;
    // Drafts kept before the version was kept with them count as made on the version loaded now.
    const kept: Kept | null = parsed ? ('v' in parsed && parsed.v === 2 ? parsed : { v: 2, draft: parsed as Draft, base: null }) : null;
    if (isNew) {
      if (kept) {
        setDraft(kept.draft);
        setDirty(true);
        setRestored(true);
      }
      return;
    }
    try {
      const res = await api<EventRecord>(`${NS}/events/${id}`);
      const data = await withTypedCost(res.data);
      const fresh = draftOf(data);
      const freshEtag = res.headers.get('etag') ?? undefined;
      setOriginal(data);
      setEtag(freshEtag);
      setBase(fresh);
      if (kept) {
        setDirty(true);
        setRestored(true);
        // Changes kept from an older version: merged onto the stored one as a 412 would be.
        const { merged, conflicts } = threeWay(FIELDS, kept.base ?? fresh, kept.draft, fresh);
        setDraft(merged);
        if (conflicts.length) setConflict(await conflictOf(data, freshEtag ?? '', kept.base ?? fresh, conflicts, undefined));
      } else setDraft(fresh);
    } catch (e) {
      setLoadError(e);
    }
  };
  const conflictOf = async (theirs: EventRecord, theirsEtag: string, from: Draft, fields: string[], scope: string | undefined): Promise<Conflict> => {
    const editing = await api<EditingState>(`${ADMIN_NS}/events/${id}/editors`).catch(() => null);
    return { theirs, etag: theirsEtag, theirsDraft: draftOf(theirs), base: from, fields, choice: {}, who: editing?.data.last_editor?.name ?? null, scope };
  };
  useEffect(() => {
    void load();
  }, [id]);

  const update = (patch: Partial<Draft>) => {
    setDraft((d) => {
      const next = { ...d!, ...patch };
      draftRef.current = next;
      persist(next);
      return next;
    });
    setDirty(true);
  };

  const discard = () => {
    forget();
    setDirty(false);
    setRestored(false);
    setConflict(null);
    setDraft(original ? draftOf(original) : emptyDraft());
  };

  const takeTheirs = (c: Conflict) => {
    forget();
    setOriginal(c.theirs);
    setEtag(c.etag);
    setBase(c.theirsDraft);
    setDraft(c.theirsDraft);
    setDirty(false);
    setRestored(false);
    setConflict(null);
  };

  /** Save the conflict panel's choices: mine for each field, but those where theirs was chosen, onto theirs. */
  const saveChoices = (c: Conflict) => {
    if (!draft) return;
    let d = draft;
    for (const f of c.fields) if (c.choice[f] === 'theirs') d = take(fieldNamed(f), d, c.theirsDraft);
    setConflict(null);
    setOriginal(c.theirs);
    setBase(c.theirsDraft);
    setEtag(c.etag);
    setDraft(d);
    void withSaving(() => submit(d, c.theirsDraft, c.etag, c.theirs, c.scope, 0));
  };

  const withSaving = async (run: () => Promise<void>) => {
    setSaving(true);
    setErrors({});
    setFormError(undefined);
    try {
      await run();
    } finally {
      setSaving(false);
    }
  };

  const save = async (statusOverride?: string) => {
    if (!draft) return;
    const d = statusOverride ? { ...draft, status: statusOverride } : { ...draft };
    if (d.publish && d.status === 'publish' && new Date(d.publish) > new Date()) d.status = 'future';
    let scope: string | undefined;
    if (original?.recurring_event_id) {
      const chosen = await chooseDialog({
        title: t('editor.scopeTitle'),
        message: t('editor.scopeQ'),
        choices: [
          { value: 'this', label: t('editor.scope.this') },
          { value: 'following', label: t('editor.scope.following') },
          { value: 'all', label: t('editor.scope.all') },
        ],
      });
      if (chosen === false) return;
      scope = chosen;
    }
    await withSaving(() => submit(d, base, etag, original, scope, 0));
  };

  /**
   * Write `d`: a new event whole; an existing one as the fields changed from `from` (the version it
   * was made on, whose ETag is `ifMatch`), so that a save never reverts what someone else changed
   * meanwhile. A 412 merges with the stored version: without a field both changed, the merge is
   * saved at once; otherwise the conflict panel asks.
   */
  const submit = async (d: Draft, from: Draft | null, ifMatch: string | undefined, record: EventRecord | null, scope: string | undefined, attempt: number): Promise<void> => {
    const whole = bodyOf(d, isNew, record);
    let body = whole;
    if (!isNew && from) {
      const before = bodyOf(from, false, record);
      body = Object.fromEntries(changedKeys(whole, before).map((k) => [k, whole[k]]));
    }
    if (scope) {
      body.recurrence_scope = scope;
      if (scope === 'all') {
        // Moving the series' dates from an occurrence is refused: the series keeps its own dates.
        delete body.start_date;
        delete body.end_date;
      }
      // The series' rules stay as they are (for `following`, the API carries them over with COUNT reduced).
    }
    // The draft on screen as this save leaves: what is typed after it is kept over the answer.
    const sentFrom = draftRef.current ?? d;
    try {
      const res = await api<EventRecord>(isNew ? `${NS}/events` : `${NS}/events/${id}`, { method: 'POST', body, ifMatch: isNew ? undefined : ifMatch });
      forget();
      setDirty(false);
      dirtyRef.current = false;
      setRestored(false);
      setConflict(null);
      toast(d.status === 'pending' && !can('publish_tribe_events') ? t('editor.submitted') : t('common.saved'));
      setStored(res.data.description ?? '');
      if (isNew || res.data.id !== Number(id)) {
        const now = draftRef.current ?? sentFrom;
        if (FIELDS.some((f) => differs(f, now, sentFrom))) {
          // Typed while the new event was being created: kept for the event's own editor, which
          // merges it onto the stored version as it loads.
          const savedDraft = draftOf(await withTypedCost(res.data));
          const kept: Kept = { v: 2, draft: threeWay(FIELDS, sentFrom, now, savedDraft).merged, base: savedDraft };
          localStorage.setItem(storageKey(String(res.data.id)), JSON.stringify(kept));
        }
        navigate(`/events/${res.data.id}`, { replace: true, force: true });
        return;
      }
      const saved = await withTypedCost(res.data);
      setOriginal(saved);
      setEtag(res.headers.get('etag') ?? undefined);
      // A GET gives the ETag of the stored version when the write's answer carries none.
      if (!res.headers.get('etag')) {
        const again = await api<EventRecord>(`${NS}/events/${id}`);
        setEtag(again.headers.get('etag') ?? undefined);
      }
      const savedDraft = draftOf(saved);
      setBase(savedDraft);
      baseRef.current = savedDraft;
      // Typed while the save was on its way (the form stays open): those fields keep what was
      // typed, the others take the stored version; the editor stays unsaved while they differ.
      const now = draftRef.current ?? sentFrom;
      const { merged } = threeWay(FIELDS, sentFrom, now, savedDraft);
      draftRef.current = merged;
      setDraft(merged);
      if (FIELDS.some((f) => differs(f, merged, savedDraft))) {
        setDirty(true);
        dirtyRef.current = true;
        persist(merged);
      }
    } catch (e) {
      if (e instanceof ApiProblem && e.status === 412) {
        const theirs = await api<EventRecord>(`${NS}/events/${id}`);
        const theirsData = await withTypedCost(theirs.data);
        const theirsEtag = theirs.headers.get('etag') ?? '';
        const theirsDraft = draftOf(theirsData);
        const { merged, conflicts } = threeWay(FIELDS, from ?? theirsDraft, d, theirsDraft);
        setOriginal(theirsData);
        setDraft(merged);
        persist(merged);
        if (conflicts.length === 0 && attempt < 3) {
          setBase(theirsDraft);
          baseRef.current = theirsDraft;
          setEtag(theirsEtag);
          await submit(merged, theirsDraft, theirsEtag, theirsData, scope, attempt + 1);
          return;
        }
        setConflict(await conflictOf(theirsData, theirsEtag, from ?? theirsDraft, conflicts, scope));
      } else {
        const fields = fieldErrors(e);
        const map: Record<string, string> = {};
        for (const [k, v] of Object.entries(fields)) map[k === 'start_date' ? 'startDate' : k === 'end_date' ? 'endDate' : k] = v;
        setErrors(map);
        setFormError(e instanceof Error ? e.message : String(e));
      }
    }
  };

  if (loadError) return <ErrorState error={loadError} onRetry={() => void load()} />;
  if (!draft) return <Loading />;
  const mayPublish = can('publish_tribe_events');
  const statusOptions = (mayPublish ? ['draft', 'pending', 'publish', 'future', 'private'] : ['draft', 'pending']).map((s) => ({ value: s, label: t(`status.${s}`) }));
  if (!statusOptions.some((o) => o.value === draft.status)) statusOptions.push({ value: draft.status, label: t(`status.${draft.status}`) });
  const title = isNew ? t('editor.new') : t('editor.edit', { title: original?.title ?? '' });
  const isPublic = original && ['publish'].includes(original.status);
  return (
    <>
      <PageHeader title={title}>
        {!isNew &&
          original &&
          (isPublic ? (
            <a class="button secondary" href={original.url} target="_blank" rel="noopener">
              {t('editor.view')}
            </a>
          ) : (
            <span class="muted">{t('editor.notPublic')}</span>
          ))}
      </PageHeader>
      {original?.recurring_event_id ? (
        <p class="notice">
          {t('editor.occurrenceOf')}{' '}
          <a href={`${boot.adminPath}/events/${original.recurring_event_id}`} onClick={(e) => (e.preventDefault(), navigate(`/events/${original.recurring_event_id}`))}>
            {t('editor.series')}
          </a>
        </p>
      ) : null}
      {restored && (
        <div class="notice warning" role="status">
          <p>{t('editor.restored')}</p>
          <button type="button" class="secondary" onClick={discard}>
            {t('editor.discard')}
          </button>
        </div>
      )}
      {/* A live region there from the start, so that a notice appearing in it is announced. */}
      <div role="status">
        {others.length > 0 && (
          <div class="notice warning edit-lock">
            {others.map((o) => (
              <p key={o.id}>{t('editor.lockedBy', { name: o.name })}</p>
            ))}
          </div>
        )}
      </div>
      {conflict && <ConflictPanel conflict={conflict} mine={draft} names={namesOf(original, conflict.theirs)} onChoose={setConflict} onSave={saveChoices} onTakeTheirs={takeTheirs} />}
      <FormErrors message={formError} fields={errors} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        noValidate
      >
        <div class="editor-layout">
          <div>
            <Fieldset legend={t('editor.main')}>
              <TextField label={t('editor.title')} name="title" required value={draft.title} onInput={(v) => update({ title: v })} error={errors.title} />
              <div class="field">
                <span class="label" id="description-label">
                  <strong>{t('editor.description')}</strong>
                </span>
                <RichText value={draft.description} onChange={(html: string) => update({ description: html })} labelId="description-label" />
                {errors.description && (
                  <p class="field-error" role="alert">
                    {errors.description}
                  </p>
                )}
              </div>
              {stored !== null && (
                <details>
                  <summary>{t('editor.stored')}</summary>
                  <div class="stored">
                    <code>{stored}</code>
                  </div>
                </details>
              )}
              <TextArea label={t('editor.excerpt')} name="excerpt" rows={2} value={draft.excerpt} onInput={(v) => update({ excerpt: v })} error={errors.excerpt} />
            </Fieldset>
            <Fieldset legend={t('editor.when')}>
              <TimeZonePicker value={draft.timezone} onChange={(v) => update({ timezone: v })} error={errors.timezone} />
              <Checkbox label={t('editor.allDay')} name="all_day" checked={draft.all_day} onChange={(v) => update({ all_day: v })} />
              <div class="grid">
                <TextField
                  label={t('editor.startDate')}
                  name="startDate"
                  id="f-start_date"
                  type="date"
                  required
                  value={draft.startDate}
                  onInput={(v) => update({ startDate: v, endDate: draft.endDate < v ? v : draft.endDate })}
                  error={errors.startDate}
                />
                {!draft.all_day && <TextField label={t('editor.startTime')} name="startTime" type="time" value={draft.startTime} onInput={(v) => update({ startTime: v })} />}
                <TextField label={t('editor.endDate')} name="endDate" id="f-end_date" type="date" required value={draft.endDate} onInput={(v) => update({ endDate: v })} error={errors.endDate} />
                {!draft.all_day && <TextField label={t('editor.endTime')} name="endTime" type="time" value={draft.endTime} onInput={(v) => update({ endTime: v })} />}
              </div>
              <p class="help">{t('editor.zoneHelp', { zone: draft.timezone })}</p>
            </Fieldset>
            {!original?.recurring_event_id && (
              <RecurrenceEditor
                rule={draft.rule}
                onChange={(rule) => update({ rule })}
                startDate={draft.startDate}
                startTime={draft.all_day ? '' : draft.startTime}
                schedule={{
                  start_date: bodyOf(draft, isNew, original).start_date as string,
                  end_date: bodyOf(draft, isNew, original).end_date as string,
                  timezone: draft.timezone,
                  all_day: draft.all_day,
                }}
                error={errors.recurrence}
              />
            )}
            {original && !original.recurring_event_id && (original.recurrence?.length ?? 0) > 0 && <SeriesOccurrences key={etag} id={original.id} />}
            <VenuePicker value={draft.venue} onChange={(v) => update({ venue: v })} />
            <OrganizerPicker value={draft.organizer} onChange={(v) => update({ organizer: v })} />
          </div>
          <div>
            <Fieldset legend={t('editor.publish')}>
              <SelectField label={t('editor.status')} name="status" value={draft.status} onChange={(v) => update({ status: v })} options={statusOptions} error={errors.status} />
              {mayPublish && (
                <TextField
                  label={t('editor.publishDate')}
                  name="publish"
                  id="f-date"
                  type="datetime-local"
                  value={draft.publish}
                  onInput={(v) => update({ publish: v })}
                  help={t('editor.publishHelp')}
                  error={errors.date}
                />
              )}
              <TextField label={t('editor.slug')} name="slug" value={draft.slug} onInput={(v) => update({ slug: v })} error={errors.slug} />
              <div class="actions">
                <button type="submit" disabled={saving}>
                  {saving ? t('common.saving') : t('common.save')}
                </button>
                {mayPublish && draft.status !== 'publish' && draft.status !== 'future' && (
                  <button type="button" class="secondary" disabled={saving} onClick={() => void save(draft.publish && new Date(draft.publish) > new Date() ? 'future' : 'publish')}>
                    {draft.publish && new Date(draft.publish) > new Date() ? t('editor.schedule') : t('editor.publishNow')}
                  </button>
                )}
                {!mayPublish && draft.status !== 'pending' && (
                  <button type="button" class="secondary" disabled={saving} onClick={() => void save('pending')}>
                    {t('editor.submit')}
                  </button>
                )}
              </div>
              {original && !isNew && <EventActions record={original} onChanged={(status) => (status ? setOriginal({ ...original, status }) : load())} />}
              {dirty && <p class="help">{t('editor.unsaved')}</p>}
              {original && <p class="help">{t('editor.modified', { when: formatDate(original.modified_utc ?? original.modified) })}</p>}
            </Fieldset>
            <Fieldset legend={t('editor.flags')}>
              <Checkbox label={t('editor.featured')} name="featured" checked={draft.featured} onChange={(v) => update({ featured: v })} />
              <Checkbox label={t('editor.sticky')} name="sticky" checked={draft.sticky} onChange={(v) => update({ sticky: v })} />
              <Checkbox label={t('editor.hide')} name="hide_from_listings" checked={draft.hide_from_listings} onChange={(v) => update({ hide_from_listings: v })} />
              <Checkbox label={t('editor.showMap')} name="show_map" checked={draft.show_map} onChange={(v) => update({ show_map: v })} />
              <Checkbox label={t('editor.showMapLink')} name="show_map_link" checked={draft.show_map_link} onChange={(v) => update({ show_map_link: v })} />
            </Fieldset>
            <Fieldset legend={t('editor.details')}>
              <MediaPicker value={draft.image} onChange={(v) => update({ image: v })} error={errors.image} />
              <TextField label={t('editor.cost')} name="cost" value={draft.cost} onInput={(v) => update({ cost: v })} error={errors.cost} />
              <TextField label={t('editor.website')} name="website" type="url" value={draft.website} onInput={(v) => update({ website: v })} error={errors.website} />
            </Fieldset>
            <TermPicker kind="categories" value={draft.categories} onChange={(v) => update({ categories: v })} names={draft.newCategories} onNames={(n) => update({ newCategories: n })} />
            <TermPicker kind="tags" value={draft.tags} onChange={(v) => update({ tags: v })} names={draft.newTags} onNames={(n) => update({ newTags: n })} />
          </div>
        </div>
      </form>
    </>
  );
}
