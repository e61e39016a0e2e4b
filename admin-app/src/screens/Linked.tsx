/**
 * Venues (with coordinates) and organizers: a list (search, paging) and an editor each, saved with
 * `If-Match` like events (a 412 reloads the current version after saying so).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, fieldErrors } from '../lib/api';
import { NS } from '../lib/events';
import { t } from '../lib/i18n';
import { navigate, query, setQuery } from '../lib/router';
import { useApi } from '../components/useApi';
import { PageHeader } from '../components/PageHeader';
import { Link } from '../components/Link';
import { DataTable } from '../components/DataTable';
import { Checkbox, FormErrors, TextField, TextArea } from '../components/Fields';
import { MediaPicker } from './MediaPicker';
import { ADMIN_NS } from './editor-session';
import { ErrorState, Loading } from '../components/States';
import { toast } from '../components/Toast';
import { confirmDialog } from '../components/ConfirmDialog';

type Kind = 'venues' | 'organizers';
interface FieldDef {
  name: string;
  type?: 'text' | 'url' | 'email' | 'number';
  area?: boolean;
}

const FIELDS: Record<Kind, FieldDef[]> = {
  venues: [
    { name: 'venue' },
    { name: 'description', area: true },
    { name: 'address' },
    { name: 'city' },
    { name: 'province' },
    { name: 'state' },
    { name: 'zip' },
    { name: 'country' },
    { name: 'phone' },
    { name: 'website', type: 'url' },
  ],
  organizers: [{ name: 'organizer' }, { name: 'description', area: true }, { name: 'email', type: 'email' }, { name: 'phone' }, { name: 'website', type: 'url' }],
};
const NAME: Record<Kind, 'venue' | 'organizer'> = { venues: 'venue', organizers: 'organizer' };

type Rec = Record<string, unknown> & { id: number };

function List({ kind }: { kind: Kind }) {
  const q = query.value;
  const page = Number(q.get('page') ?? 1) || 1;
  const [search, setSearch] = useState(q.get('search') ?? '');
  // The edit context: a password-protected record is listed whole to who may edit it.
  const list = useApi<Record<string, Rec[]>>(`${NS}/${kind}`, { page, per_page: 20, search: q.get('search') || undefined, status: 'any', context: 'edit' });
  const total = Number(list.headers?.get('x-wp-total') ?? 0);
  const name = NAME[kind];
  return (
    <>
      <PageHeader title={t(`nav.${kind}`)}>
        <Link to={`/${kind}/new`} class="button">
          {t(`${name}.add`)}
        </Link>
      </PageHeader>
      <form
        class="card filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ search, page: undefined });
        }}
      >
        <TextField label={t('common.search')} name="search" type="text" value={search} onInput={setSearch} />
        <div class="actions">
          <button type="submit">{t('common.search')}</button>
        </div>
      </form>
      {list.error && !(list.error instanceof ApiProblem && list.error.status === 404) ? <ErrorState error={list.error} onRetry={list.reload} /> : null}
      <DataTable
        caption={t(`nav.${kind}`)}
        columns={[
          { key: 'name', label: t('common.name'), render: (r) => <Link to={`/${kind}/${r.id}`}>{String(r[name] ?? r.id)}</Link> },
          { key: 'city', label: kind === 'venues' ? t('venue.city') : t('organizer.email'), render: (r) => String((kind === 'venues' ? r.city : r.email) ?? '') || '—' },
          { key: 'status', label: t('events.col.status'), optional: true, render: (r) => t(`status.${String(r.status ?? 'publish')}`) },
        ]}
        rows={list.data ? (list.data[kind] ?? []) : list.error ? [] : null}
        empty={t(`${name}.empty`)}
        paging={{ page, total, totalPages: Number(list.headers?.get('x-wp-totalpages') ?? 0), onPage: (p) => setQuery({ page: p === 1 ? undefined : p }) }}
      />
    </>
  );
}

function Editor({ kind, id }: { kind: Kind; id: string }) {
  const isNew = id === 'new';
  const name = NAME[kind];
  const [rec, setRec] = useState<Record<string, string> | null>(isNew ? {} : null);
  const [etag, setEtag] = useState<string | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | undefined>();
  const [geo, setGeo] = useState({ lat: '', lng: '' });
  /** the picture's URL, and as it was loaded (sent only when it changed) */
  const [image, setImage] = useState('');
  const [loadedImage, setLoadedImage] = useState('');
  /** WordPress' "Password protected": the password is read from the admin API (no REST answer carries it) */
  const [secret, setSecret] = useState({ protect: false, password: '' });
  const load = async () => {
    try {
      // The edit context: a password-protected record is answered whole to who may edit it.
      const res = await api<Rec>(`${NS}/${kind}/${id}`, { query: { context: 'edit' } });
      const fields = await api<{ password?: string }>(`${ADMIN_NS}/${kind}/${id}`).catch(() => null);
      const password = fields?.data.password ?? '';
      setSecret({ protect: password !== '', password });
      const flat: Record<string, string> = {};
      for (const f of FIELDS[kind]) flat[f.name] = String(res.data[f.name] ?? '');
      setRec(flat);
      const g = res.data.geo_lat !== undefined ? { lat: String(res.data.geo_lat ?? ''), lng: String(res.data.geo_lng ?? '') } : { lat: '', lng: '' };
      setGeo(g);
      const img = res.data.image as { url?: unknown } | false | undefined;
      const url = img && typeof img === 'object' && typeof img.url === 'string' ? img.url : '';
      setImage(url);
      setLoadedImage(url);
      setEtag(res.headers.get('etag') ?? undefined);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    if (!isNew) void load();
  }, [id]);
  if (error) return <ErrorState error={error} onRetry={() => void load()} />;
  if (!rec) return <Loading />;
  const save = async () => {
    setErrors({});
    setFormError(undefined);
    const body: Record<string, unknown> = { ...rec };
    if (kind === 'venues' && geo.lat !== '' && geo.lng !== '') {
      body.geo_lat = Number(geo.lat);
      body.geo_lng = Number(geo.lng);
    }
    if (image !== loadedImage) body.image = image;
    body.password = secret.protect ? secret.password : '';
    body.context = 'edit';
    try {
      const res = await api<Rec>(isNew ? `${NS}/${kind}` : `${NS}/${kind}/${id}`, { method: 'POST', body, ifMatch: isNew ? undefined : etag });
      toast(t('common.saved'));
      if (isNew) navigate(`/${kind}/${res.data.id}`, { replace: true });
      else await load();
    } catch (e) {
      if (e instanceof ApiProblem && e.status === 412) {
        setFormError(t('editor.conflict'));
        await load();
        return;
      }
      setErrors(fieldErrors(e));
      setFormError(e instanceof Error ? e.message : String(e));
    }
  };
  const remove = async () => {
    if (!(await confirmDialog({ title: t('linked.trash'), message: t('linked.trashQ', { name: rec[name] ?? '' }), confirm: t('linked.trash'), danger: true }))) return;
    try {
      await api(`${NS}/${kind}/${id}`, { method: 'DELETE' });
      toast(t('linked.trashed'));
      navigate(`/${kind}`);
    } catch (e) {
      setFormError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <PageHeader title={isNew ? t(`${name}.add`) : String(rec[name] || id)}>
        <Link to={`/${kind}`}>{t('common.back')}</Link>
      </PageHeader>
      <FormErrors message={formError} fields={errors} />
      <form
        class="card"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        {FIELDS[kind].map((f) =>
          f.area ? (
            <TextArea key={f.name} label={t(`${name}.${f.name}`)} name={f.name} value={rec[f.name] ?? ''} onInput={(v) => setRec({ ...rec, [f.name]: v })} error={errors[f.name]} />
          ) : (
            <TextField
              key={f.name}
              label={t(`${name}.${f.name}`)}
              name={f.name}
              type={f.type === 'number' ? 'number' : (f.type ?? 'text')}
              required={f.name === name}
              value={rec[f.name] ?? ''}
              onInput={(v) => setRec({ ...rec, [f.name]: v })}
              error={errors[f.name]}
            />
          ),
        )}
        <MediaPicker value={image} onChange={setImage} error={errors.image} />
        <Checkbox label={t('editor.protect')} name="protect" checked={secret.protect} onChange={(v) => setSecret({ ...secret, protect: v })} help={t(`${name}.protectHelp`)} />
        {secret.protect && (
          <TextField
            label={t('editor.password')}
            name="password"
            autoComplete="off"
            value={secret.password}
            onInput={(v) => setSecret({ ...secret, password: v })}
            help={t('editor.passwordHelpLinked')}
            error={errors.password}
          />
        )}
        {kind === 'venues' && (
          <div class="grid">
            <TextField label={t('venue.lat')} name="geo_lat" type="number" step="any" inputMode="decimal" value={geo.lat} onInput={(v) => setGeo({ ...geo, lat: v })} error={errors.geo_lat} />
            <TextField label={t('venue.lng')} name="geo_lng" type="number" step="any" inputMode="decimal" value={geo.lng} onInput={(v) => setGeo({ ...geo, lng: v })} error={errors.geo_lng} />
          </div>
        )}
        <div class="actions">
          <button type="submit">{t('common.save')}</button>
          {!isNew && (
            <button type="button" class="danger" onClick={() => void remove()}>
              {t('linked.trash')}
            </button>
          )}
        </div>
      </form>
    </>
  );
}

export const VenuesList = () => <List kind="venues" />;
export const OrganizersList = () => <List kind="organizers" />;
export const VenueEditor = ({ params }: { params: Record<string, string> }) => <Editor kind="venues" id={params.id!} />;
export const OrganizerEditor = ({ params }: { params: Record<string, string> }) => <Editor kind="organizers" id={params.id!} />;
