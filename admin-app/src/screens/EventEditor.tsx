/**
 * The event editor: every field of the API's event write, dates and times in the event's own zone
 * (a zone picker), the description in Quill (lazy), venue/organizer pickers with inline creation,
 * categories as a tree and tags, the flags, status and scheduled publication, recurrence, and a
 * preview link. Safe editing: the event is loaded with its ETag and saved with `If-Match`; a 412
 * shows the current version beside the user's and lets them choose. Unsaved changes are kept in
 * localStorage per event (restored after a reload) and leaving asks first.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, fieldErrors } from '../lib/api';
import { NS, type EventRecord } from '../lib/events';
import { formatDate, t } from '../lib/i18n';
import { addGuard, navigate } from '../lib/router';
import { boot, can, currentUser } from '../lib/session';
import { EMPTY_RULE, parseLines, toLines, type Rule } from '../lib/recurrence';
import { PageHeader } from '../components/PageHeader';
import { Checkbox, Fieldset, FormErrors, SelectField, TextArea, TextField } from '../components/Fields';
import { ErrorState, Loading } from '../components/States';
import { chooseDialog } from '../components/ConfirmDialog';
import { lazyComponent } from '../components/Lazy';
import { toast } from '../components/Toast';
import { OrganizerPicker, TermPicker, VenuePicker } from './Pickers';
import { useApi } from '../components/useApi';
import { Link } from '../components/Link';
import type { EventList } from '../lib/events';
import { RecurrenceEditor } from './RecurrenceEditor';

const RichText = lazyComponent(() => import('./RichText').then((m) => m.RichText));

/** What the form edits (strings as the inputs hold them). */
export interface Draft {
  title: string;
  description: string;
  excerpt: string;
  slug: string;
  status: string;
  /** publication date, YYYY-MM-DDTHH:MM in the site's zone ('' = now) */
  publish: string;
  timezone: string;
  all_day: boolean;
  startDate: string;
  startTime: string;
  endDate: string;
  endTime: string;
  image: string;
  cost: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  categories: number[];
  newCategories: string[];
  tags: number[];
  newTags: string[];
  venue: number | null;
  organizer: number[];
  rule: Rule;
}

const today = () => new Date().toISOString().slice(0, 10);

function emptyDraft(): Draft {
  return {
    title: '',
    description: '',
    excerpt: '',
    slug: '',
    status: 'draft',
    publish: '',
    timezone: boot.timezone,
    all_day: false,
    startDate: today(),
    startTime: '10:00',
    endDate: today(),
    endTime: '11:00',
    image: '',
    cost: '',
    website: '',
    show_map: true,
    show_map_link: true,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    categories: [],
    newCategories: [],
    tags: [],
    newTags: [],
    venue: null,
    organizer: [],
    rule: { ...EMPTY_RULE },
  };
}

export function draftOf(e: EventRecord): Draft {
  const venue = e.venue && 'id' in e.venue ? (e.venue as { id: number }).id : null;
  return {
    title: e.title ?? '',
    description: e.description ?? '',
    excerpt: (e.excerpt ?? '').replace(/<[^>]+>/g, ''),
    slug: e.slug ?? '',
    status: e.status,
    publish: e.status === 'future' ? e.date.slice(0, 16).replace(' ', 'T') : '',
    timezone: e.timezone || boot.timezone,
    all_day: e.all_day,
    startDate: e.start_date.slice(0, 10),
    startTime: e.start_date.slice(11, 16),
    endDate: e.end_date.slice(0, 10),
    endTime: e.end_date.slice(11, 16),
    image: e.image && typeof e.image === 'object' ? e.image.url : '',
    cost: e.cost ?? '',
    website: e.website ?? '',
    show_map: e.show_map,
    show_map_link: e.show_map_link,
    hide_from_listings: e.hide_from_listings,
    sticky: e.sticky,
    featured: e.featured,
    categories: (e.categories ?? []).map((c) => c.id),
    newCategories: [],
    tags: (e.tags ?? []).map((c) => c.id),
    newTags: [],
    venue,
    organizer: (e.organizer ?? []).map((o) => o.id),
    rule: parseLines(e.recurrence),
  };
}

/** The API body of a draft. */
export function bodyOf(d: Draft, isNew: boolean, original: EventRecord | null): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: d.title,
    description: d.description,
    excerpt: d.excerpt,
    status: d.status,
    timezone: d.timezone,
    all_day: d.all_day,
    start_date: `${d.startDate} ${d.all_day ? '00:00' : d.startTime}:00`,
    end_date: `${d.endDate} ${d.all_day ? '23:59' : d.endTime}:${d.all_day ? '59' : '00'}`,
    image: d.image,
    cost: d.cost,
    website: d.website,
    show_map: d.show_map,
    show_map_link: d.show_map_link,
    hide_from_listings: d.hide_from_listings,
    sticky: d.sticky,
    featured: d.featured,
    categories: [...d.categories, ...d.newCategories],
    tags: [...d.tags, ...d.newTags],
    venue: d.venue ?? '',
    organizer: d.organizer,
  };
  if (d.slug) body.slug = d.slug;
  if (d.publish && (d.status === 'publish' || d.status === 'future')) body.date = `${d.publish.replace('T', ' ')}:00`;
  if (!original?.recurring_event_id) {
    const lines = toLines(d.rule, d.startDate);
    if (!isNew || lines.length) body.recurrence = lines;
  }
  if (isNew && !d.image) delete body.image;
  return body;
}

let zones: string[] | null = null;
function timeZones(): string[] {
  if (!zones) {
    try {
      zones = (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
    } catch {
      zones = [];
    }
    if (!zones.includes('UTC')) zones = ['UTC', ...zones];
  }
  return zones;
}

/** The occurrences the server generated for a series (`?post_parent=`), next first. */
function SeriesOccurrences({ id }: { id: number }) {
  const list = useApi<EventList>(`${NS}/events`, { post_parent: id, per_page: 10, status: 'any' });
  if (!list.data || list.data.events.length === 0) return null;
  return (
    <section class="card" aria-labelledby="series-occurrences">
      <h2 id="series-occurrences">{t('editor.occurrences', { n: list.data.total })}</h2>
      <ol class="occurrences">
        {list.data.events.map((e) => (
          <li key={e.id}>
            <Link to={`/events/${e.id}`}>{formatDate(e.utc_start_date, { dateStyle: 'full', timeStyle: e.all_day ? undefined : 'short', timeZone: e.timezone || undefined })}</Link>{' '}
            {e.title !== list.data!.events[0]!.title ? `· ${e.title}` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}

const storageKey = (id: string) => `calendar-admin-draft-${currentUser.value.id}-${id}`;

function summary(e: EventRecord | Draft): string {
  if ('startDate' in e) return `${e.title}\n${e.startDate} ${e.startTime} → ${e.endDate} ${e.endTime} (${e.timezone})\n${e.status}\n${e.description.replace(/<[^>]+>/g, ' ').trim()}`;
  return `${e.title}\n${e.start_date} → ${e.end_date} (${e.timezone})\n${e.status}\n${(e.description ?? '').replace(/<[^>]+>/g, ' ').trim()}`;
}

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
  const [conflict, setConflict] = useState<{ theirs: EventRecord; etag: string } | null>(null);
  const [stored, setStored] = useState<string | null>(null);
  const dirtyRef = useRef(false);
  dirtyRef.current = dirty;

  useEffect(() => addGuard(() => (dirtyRef.current ? t('editor.leave') : null)), []);

  const load = async () => {
    setLoadError(null);
    const kept = localStorage.getItem(storageKey(id));
    if (isNew) {
      if (kept) {
        setDraft(JSON.parse(kept) as Draft);
        setDirty(true);
        setRestored(true);
      }
      return;
    }
    try {
      const res = await api<EventRecord>(`${NS}/events/${id}`);
      setOriginal(res.data);
      setEtag(res.headers.get('etag') ?? undefined);
      if (kept) {
        setDraft(JSON.parse(kept) as Draft);
        setDirty(true);
        setRestored(true);
      } else setDraft(draftOf(res.data));
    } catch (e) {
      setLoadError(e);
    }
  };
  useEffect(() => {
    void load();
  }, [id]);

  const update = (patch: Partial<Draft>) => {
    setDraft((d) => {
      const next = { ...d!, ...patch };
      localStorage.setItem(storageKey(id), JSON.stringify(next));
      return next;
    });
    setDirty(true);
  };

  const discard = () => {
    localStorage.removeItem(storageKey(id));
    setDirty(false);
    setRestored(false);
    setDraft(original ? draftOf(original) : emptyDraft());
  };

  const save = async (overrideEtag?: string, statusOverride?: string) => {
    if (!draft) return;
    const d = statusOverride ? { ...draft, status: statusOverride } : draft;
    if (d.publish && d.status === 'publish' && new Date(d.publish) > new Date()) d.status = 'future';
    const body = bodyOf(d, isNew, original);
    if (original?.recurring_event_id) {
      const scope = await chooseDialog({
        title: t('editor.scopeTitle'),
        message: t('editor.scopeQ'),
        choices: [
          { value: 'this', label: t('editor.scope.this') },
          { value: 'following', label: t('editor.scope.following') },
          { value: 'all', label: t('editor.scope.all') },
        ],
      });
      if (scope === false) return;
      body.recurrence_scope = scope;
      if (scope === 'all') {
        // Moving the series' dates from an occurrence is refused: the series keeps its own dates.
        delete body.start_date;
        delete body.end_date;
      }
      // The series' rules stay as they are (for `following`, the API carries them over with COUNT reduced).
    }
    setSaving(true);
    setErrors({});
    setFormError(undefined);
    try {
      const res = await api<EventRecord>(isNew ? `${NS}/events` : `${NS}/events/${id}`, { method: 'POST', body, ifMatch: isNew ? undefined : (overrideEtag ?? etag) });
      localStorage.removeItem(storageKey(id));
      setDirty(false);
      dirtyRef.current = false;
      setRestored(false);
      setConflict(null);
      toast(d.status === 'pending' && !can('publish_tribe_events') ? t('editor.submitted') : t('common.saved'));
      setStored(res.data.description ?? '');
      if (isNew || res.data.id !== Number(id)) {
        navigate(`/events/${res.data.id}`, { replace: true, force: true });
        return;
      }
      setOriginal(res.data);
      setEtag(res.headers.get('etag') ?? undefined);
      // A GET gives the ETag of the stored version when the write's answer carries none.
      if (!res.headers.get('etag')) {
        const again = await api<EventRecord>(`${NS}/events/${id}`);
        setEtag(again.headers.get('etag') ?? undefined);
      }
      setDraft(draftOf(res.data));
    } catch (e) {
      if (e instanceof ApiProblem && e.status === 412) {
        const theirs = await api<EventRecord>(`${NS}/events/${id}`);
        setConflict({ theirs: theirs.data, etag: theirs.headers.get('etag') ?? '' });
      } else {
        const fields = fieldErrors(e);
        const map: Record<string, string> = {};
        for (const [k, v] of Object.entries(fields)) map[k === 'start_date' ? 'startDate' : k === 'end_date' ? 'endDate' : k] = v;
        setErrors(map);
        setFormError(e instanceof Error ? e.message : String(e));
      }
    } finally {
      setSaving(false);
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
      {conflict && (
        <section class="notice error" role="alert" aria-labelledby="conflict-title">
          <h2 id="conflict-title">{t('editor.conflict')}</h2>
          <div class="conflict">
            <div>
              <h3>{t('editor.theirs')}</h3>
              <pre>{summary(conflict.theirs)}</pre>
            </div>
            <div>
              <h3>{t('editor.yours')}</h3>
              <pre>{summary(draft)}</pre>
            </div>
          </div>
          <div class="actions">
            <button type="button" onClick={() => void save(conflict.etag)}>
              {t('editor.keepMine')}
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                localStorage.removeItem(storageKey(id));
                setOriginal(conflict.theirs);
                setEtag(conflict.etag);
                setDraft(draftOf(conflict.theirs));
                setDirty(false);
                setConflict(null);
              }}
            >
              {t('editor.takeTheirs')}
            </button>
          </div>
        </section>
      )}
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
              <SelectField
                label={t('editor.timezone')}
                name="timezone"
                value={draft.timezone}
                onChange={(v) => update({ timezone: v })}
                options={timeZones().map((z) => ({ value: z, label: z }))}
                error={errors.timezone}
              />
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
                  <button type="button" class="secondary" disabled={saving} onClick={() => void save(undefined, draft.publish && new Date(draft.publish) > new Date() ? 'future' : 'publish')}>
                    {draft.publish && new Date(draft.publish) > new Date() ? t('editor.schedule') : t('editor.publishNow')}
                  </button>
                )}
                {!mayPublish && draft.status !== 'pending' && (
                  <button type="button" class="secondary" disabled={saving} onClick={() => void save(undefined, 'pending')}>
                    {t('editor.submit')}
                  </button>
                )}
              </div>
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
              <TextField label={t('editor.image')} name="image" type="url" value={draft.image} onInput={(v) => update({ image: v })} error={errors.image} />
              {/^https?:\/\//.test(draft.image) && <img class="image-preview" src={draft.image} alt={t('editor.imagePreview')} />}
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
