/**
 * The network's calendars over `calendar/network/v1` (docs/calendars.md): the list, a form to
 * create one (name and slug), a calendar's page (rename, change its slug and host name, suspend and
 * resume, delete after a confirmation) with its quotas (calendars/Quotas.tsx) and its members (a
 * role given by login, or taken away).
 * Network administrators only (the boot feature `network`: an administrator of the default
 * calendar; a calendar's own administrator does not manage the network).
 */
import { useState } from 'preact/hooks';
import { api, fieldErrors } from '../../lib/api';
import { formatDate, t } from '../../lib/i18n';
import { navigate, query, setQuery } from '../../lib/router';
import type { ScreenDef } from '../../lib/screens';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { Link } from '../../components/Link';
import { DataTable, type Column } from '../../components/DataTable';
import { Fieldset, FormErrors, SelectField, TextField } from '../../components/Fields';
import { ErrorState, Loading } from '../../components/States';
import { confirmDialog } from '../../components/ConfirmDialog';
import { toast } from '../../components/Toast';
import { adminUrlOf, type CalendarEntry } from '../../components/CalendarSwitcher';
import { QuotasSection } from './calendars/Quotas';
import type { Quotas } from './calendars/quota-values';

const NS = 'calendar/network/v1';
const PER_PAGE = 20;
const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];

interface Calendar extends CalendarEntry {
  host: string | null;
  created: string;
  quotas: Quotas;
}

interface Member {
  user_id: number;
  login: string;
  role: string;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
const statusText = (c: Calendar) => (c.status === 'suspended' ? t('calendars.suspended') : t('calendars.active'));

function CalendarList() {
  const q = query.value;
  const page = Number(q.get('page') ?? 1) || 1;
  const search = q.get('search') ?? '';
  const [typed, setTyped] = useState(search);
  const list = useApi<Calendar[]>(`${NS}/calendars`, { page, per_page: PER_PAGE, search: search || undefined });
  const total = Number(list.headers?.get('x-wp-total') ?? 0);
  const columns: Column<Calendar>[] = [
    { key: 'name', label: t('calendars.name'), render: (c) => <Link to={`/calendars/${c.id}`}>{c.name}</Link> },
    { key: 'slug', label: t('calendars.slug'), render: (c) => c.slug },
    { key: 'status', label: t('calendars.status'), render: statusText },
    { key: 'url', label: t('calendars.url'), render: (c) => c.url, optional: true },
    {
      key: 'open',
      label: t('calendars.actions'),
      render: (c) => (
        <a href={adminUrlOf(c)} aria-label={t('calendars.openNamed', { name: c.name })}>
          {t('calendars.open')}
        </a>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('calendars.title')}>
        <button type="button" onClick={() => navigate('/calendars/new')}>
          {t('calendars.add')}
        </button>
      </PageHeader>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ search: typed, page: undefined });
        }}
      >
        <TextField label={t('calendars.search')} name="search" type="search" value={typed} onInput={setTyped} />
        <button type="submit" class="secondary">
          {t('calendars.searchGo')}
        </button>
      </form>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable
          caption={t('calendars.title')}
          columns={columns}
          rows={list.data}
          loading={list.loading}
          empty={search ? t('calendars.noMatch') : t('calendars.empty')}
          paging={{ page, total, totalPages: Math.ceil(total / PER_PAGE), onPage: (p) => setQuery({ page: p }) }}
        />
      )}
    </>
  );
}

/** Name, slug and host: the form of a new calendar and of a calendar's page. */
function CalendarForm({ calendar, onSaved }: { calendar?: Calendar; onSaved: (c: Calendar) => void }) {
  const [name, setName] = useState(calendar?.name ?? '');
  const [slug, setSlug] = useState(calendar?.slug ?? '');
  const [host, setHost] = useState(calendar?.host ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const isDefault = calendar?.default === true;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setMessage(undefined);
    try {
      const body: Record<string, string> = { name };
      if (!isDefault) Object.assign(body, { slug, host });
      const res = calendar ? await api<Calendar>(`${NS}/calendars/${calendar.id}`, { method: 'PATCH', body }) : await api<Calendar>(`${NS}/calendars`, { method: 'POST', body });
      onSaved(res.data);
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormErrors message={message} fields={errors} />
      <Fieldset legend={t('calendars.details')}>
        <TextField label={t('calendars.name')} name="name" required value={name} onInput={setName} error={errors.name} />
        {!isDefault && (
          <>
            <TextField label={t('calendars.slug')} name="slug" required value={slug} onInput={setSlug} error={errors.slug} help={t('calendars.slugHelp')} autoComplete="off" />
            <TextField label={t('calendars.host')} name="host" value={host} onInput={setHost} error={errors.host} help={t('calendars.hostHelp')} autoComplete="off" inputMode="url" />
          </>
        )}
      </Fieldset>
      <button type="submit" disabled={busy}>
        {calendar ? t('calendars.save') : t('calendars.create')}
      </button>
    </form>
  );
}

function NewCalendar() {
  return (
    <>
      <PageHeader title={t('calendars.add')} />
      <p>
        <Link to="/calendars">{t('calendars.back')}</Link>
      </p>
      <CalendarForm
        onSaved={(c) => {
          toast(t('calendars.created', { name: c.name }));
          navigate(`/calendars/${c.id}`, { replace: true });
        }}
      />
    </>
  );
}

function CalendarPage({ params }: { params: Record<string, string> }) {
  if (params.id === 'new') return <NewCalendar />;
  return <CalendarDetails id={Number(params.id)} />;
}

function CalendarDetails({ id }: { id: number }) {
  const calendar = useApi<Calendar>(`${NS}/calendars/${id}`);
  if (calendar.error) return <ErrorState error={calendar.error} onRetry={calendar.reload} />;
  if (!calendar.data) return <Loading />;
  const c = calendar.data;
  const setStatus = async (status: 'active' | 'suspended') => {
    if (status === 'suspended' && !(await confirmDialog({ title: t('calendars.suspend'), message: t('calendars.suspendQ', { name: c.name }), confirm: t('calendars.suspend') }))) return;
    try {
      await api(`${NS}/calendars/${c.id}`, { method: 'PATCH', body: { status } });
      toast(status === 'suspended' ? t('calendars.suspendedNow', { name: c.name }) : t('calendars.resumedNow', { name: c.name }));
      calendar.reload();
    } catch (err) {
      toast(messageOf(err), 'error');
    }
  };
  const remove = async () => {
    if (!(await confirmDialog({ title: t('calendars.delete'), message: t('calendars.deleteQ', { name: c.name }), confirm: t('calendars.delete'), danger: true }))) return;
    try {
      await api(`${NS}/calendars/${c.id}`, { method: 'DELETE', query: { force: true } });
      toast(t('calendars.deleted', { name: c.name }));
      navigate('/calendars', { replace: true });
    } catch (err) {
      toast(messageOf(err), 'error');
    }
  };
  return (
    <>
      <PageHeader title={c.name}>
        {!c.default &&
          (c.status === 'active' ? (
            <button type="button" class="secondary" onClick={() => void setStatus('suspended')}>
              {t('calendars.suspend')}
            </button>
          ) : (
            <button type="button" onClick={() => void setStatus('active')}>
              {t('calendars.resume')}
            </button>
          ))}
        {!c.default && (
          <button type="button" class="danger" onClick={() => void remove()}>
            {t('calendars.delete')}
          </button>
        )}
      </PageHeader>
      <p>
        <Link to="/calendars">{t('calendars.back')}</Link>
      </p>
      <dl>
        <dt>{t('calendars.status')}</dt>
        <dd id="calendar-status">{statusText(c)}</dd>
        <dt>{t('calendars.url')}</dt>
        <dd>
          <a href={adminUrlOf(c)}>{c.url}</a>
        </dd>
        <dt>{t('calendars.createdAt')}</dt>
        <dd>{formatDate(new Date(c.created.replace(' ', 'T') + 'Z'))}</dd>
      </dl>
      {c.default && <p class="help">{t('calendars.defaultHelp')}</p>}
      <CalendarForm key={`${c.id}-${c.name}-${c.slug}-${c.host ?? ''}`} calendar={c} onSaved={() => (toast(t('calendars.saved')), calendar.reload())} />
      <QuotasSection key={`${c.id}-${JSON.stringify(c.quotas)}`} calendarId={c.id} quotas={c.quotas} />
      {!c.default && <Members id={c.id} />}
    </>
  );
}

function Members({ id }: { id: number }) {
  const members = useApi<Member[]>(`${NS}/calendars/${id}/members`);
  const [login, setLogin] = useState('');
  const [role, setRole] = useState('editor');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const give = async (who: string, what: string) => {
    setBusy(true);
    setErrors({});
    setMessage(undefined);
    try {
      await api(`${NS}/calendars/${id}/members`, { method: 'POST', body: { login: who, role: what } });
      toast(what ? t('calendars.roleGiven', { login: who, role: t(`calendars.role.${what}`) }) : t('calendars.roleRemoved', { login: who }));
      if (who === login) setLogin('');
      members.reload();
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const columns: Column<Member & { id: number }>[] = [
    { key: 'login', label: t('calendars.login'), render: (m) => m.login },
    { key: 'role', label: t('calendars.roleColumn'), render: (m) => t(`calendars.role.${m.role}`) },
    {
      key: 'actions',
      label: t('calendars.actions'),
      render: (m) => (
        <button type="button" class="secondary" disabled={busy} onClick={() => void give(m.login, '')} aria-label={t('calendars.removeNamed', { login: m.login })}>
          {t('calendars.remove')}
        </button>
      ),
    },
  ];
  return (
    <section class="card" aria-labelledby="members">
      <h2 id="members">{t('calendars.members')}</h2>
      {members.error ? (
        <ErrorState error={members.error} onRetry={members.reload} />
      ) : (
        <DataTable caption={t('calendars.members')} columns={columns} rows={members.data?.map((m) => ({ ...m, id: m.user_id })) ?? null} loading={members.loading} empty={t('calendars.noMembers')} />
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void give(login.trim(), role);
        }}
        noValidate
      >
        <FormErrors message={message} fields={errors} />
        <Fieldset legend={t('calendars.giveRole')}>
          <TextField label={t('calendars.login')} name="login" required value={login} onInput={setLogin} error={errors.login} autoComplete="off" />
          <SelectField label={t('calendars.roleColumn')} name="role" value={role} onChange={setRole} error={errors.role} options={ROLES.map((r) => ({ value: r, label: t(`calendars.role.${r}`) }))} />
        </Fieldset>
        <button type="submit" disabled={busy}>
          {t('calendars.give')}
        </button>
      </form>
    </section>
  );
}

export const screens: ScreenDef[] = [
  { path: '/calendars', nav: { labelKey: 'calendars.nav', group: 'system', order: 5 }, roles: ['administrator'], feature: 'network', component: CalendarList },
  { path: '/calendars/:id', roles: ['administrator'], feature: 'network', component: CalendarPage },
];
