/**
 * Users and roles, and application passwords, over `calendar/admin/v1/users`: the list
 * (search, role filter, paging), a form to add a user, and a user's page (name, e-mail, role,
 * password; removal with their records given to another user; application passwords: the secret
 * shown once). Administrators only.
 */
import { useState } from 'preact/hooks';
import { api, fieldErrors } from '../../lib/api';
import { formatDate, t } from '../../lib/i18n';
import { navigate, query, setQuery } from '../../lib/router';
import { currentUser } from '../../lib/session';
import type { ScreenDef } from '../../lib/screens';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { Link } from '../../components/Link';
import { DataTable, type Column } from '../../components/DataTable';
import { Fieldset, FormErrors, SelectField, TextField } from '../../components/Fields';
import { ErrorState, Loading } from '../../components/States';
import { confirmDialog } from '../../components/ConfirmDialog';
import { toast } from '../../components/Toast';
import { NewPassword } from '../../components/PasswordMeter';

const NS = 'calendar/admin/v1';
const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];
const PER_PAGE = 20;

interface User {
  id: number;
  username: string;
  name: string;
  email: string;
  roles: string[];
  registered_date: string;
  has_password: boolean;
}

interface AppPassword {
  uuid: string;
  name: string;
  created: string;
  last_used: string | null;
}

const roleOptions = () => ROLES.map((r) => ({ value: r, label: t(`users.role.${r}`) }));
const problemMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

function UsersList() {
  const q = query.value;
  const page = Number(q.get('page') ?? 1) || 1;
  const search = q.get('search') ?? '';
  const role = q.get('role') ?? '';
  const list = useApi<User[]>(`${NS}/users`, { search: search || undefined, role: role || undefined, page, per_page: PER_PAGE });
  const total = Number(list.headers?.get('x-wp-total') ?? 0);
  const columns: Column<User>[] = [
    { key: 'username', label: t('users.username'), render: (u) => <Link to={`/users/${u.id}`}>{u.username}</Link> },
    { key: 'name', label: t('users.name'), render: (u) => u.name },
    { key: 'email', label: t('users.email'), render: (u) => u.email || '—', optional: true },
    { key: 'role', label: t('users.roleLabel'), render: (u) => t(`users.role.${u.roles[0] ?? 'subscriber'}`) },
    { key: 'registered', label: t('users.registered'), render: (u) => formatDate(u.registered_date.replace('T', ' ')), optional: true },
  ];
  return (
    <>
      <PageHeader title={t('users.title')}>
        <button type="button" onClick={() => navigate('/users/new')}>
          {t('users.add')}
        </button>{' '}
        <button type="button" class="secondary" onClick={() => navigate('/invitations')}>
          {t('users.inviteByEmail')}
        </button>
      </PageHeader>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <TextField label={t('users.search')} name="search" type="search" value={search} onInput={(v) => setQuery({ search: v, page: undefined })} />
        <SelectField
          label={t('users.roleFilter')}
          name="role"
          value={role}
          onChange={(v) => setQuery({ role: v, page: undefined })}
          options={[{ value: '', label: t('users.allRoles') }, ...roleOptions()]}
        />
      </form>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable
          caption={t('users.title')}
          columns={columns}
          rows={list.data}
          loading={list.loading}
          empty={t('users.empty')}
          paging={{ page, total, totalPages: Math.ceil(total / PER_PAGE), onPage: (p) => setQuery({ page: p }) }}
        />
      )}
    </>
  );
}

function NewUser() {
  const [form, setForm] = useState({ username: '', name: '', email: '', role: 'author', password: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const made = await api<User>(`${NS}/users`, { method: 'POST', body: { username: form.username, name: form.name, email: form.email, roles: [form.role], password: form.password || undefined } });
      toast(t('users.created', { name: made.data.username }));
      navigate(`/users/${made.data.id}`, { replace: true });
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(problemMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <PageHeader title={t('users.add')} />
      <p>
        <Link to="/users">{t('users.back')}</Link>
      </p>
      <form onSubmit={submit} noValidate>
        <FormErrors message={message} fields={errors} />
        <Fieldset legend={t('users.account')}>
          <TextField label={t('users.username')} name="username" required value={form.username} onInput={set('username')} error={errors.username} autoComplete="off" />
          <TextField label={t('users.name')} name="name" value={form.name} onInput={set('name')} error={errors.name} />
          <TextField label={t('users.email')} name="email" type="email" value={form.email} onInput={set('email')} error={errors.email} />
          <SelectField label={t('users.roleLabel')} name="roles" value={form.role} onChange={set('role')} options={roleOptions()} error={errors.roles} />
          <PasswordField value={form.password} onInput={set('password')} error={errors.password} help={t('users.passwordHelpNew')} words={[form.username, form.name, form.email]} />
        </Fieldset>
        <button type="submit" disabled={busy}>
          {t('users.create')}
        </button>
      </form>
    </>
  );
}

function PasswordField(o: { value: string; onInput: (v: string) => void; error?: string; help: string; words?: string[] }) {
  return <NewPassword id="f-password" label={t('users.password')} value={o.value} onInput={o.onInput} error={o.error} words={o.words} help={o.help} />;
}

function UserPage({ params }: { params: Record<string, string> }) {
  if (params.id === 'new') return <NewUser />;
  return <UserEditor id={Number(params.id)} />;
}

function UserEditor({ id }: { id: number }) {
  const user = useApi<User>(`${NS}/users/${id}`);
  if (user.error) return <ErrorState error={user.error} onRetry={user.reload} />;
  if (!user.data) return <Loading />;
  return <UserForm key={user.data.id} user={user.data} onSaved={user.reload} />;
}

function UserForm({ user, onSaved }: { user: User; onSaved: () => void }) {
  const [form, setForm] = useState({ name: user.name, email: user.email, role: user.roles[0] ?? 'subscriber', password: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setMessage(undefined);
    try {
      await api<User>(`${NS}/users/${user.id}`, { method: 'PATCH', body: { name: form.name, email: form.email, roles: [form.role], ...(form.password ? { password: form.password } : {}) } });
      setForm({ ...form, password: '' });
      toast(t('users.saved'));
      onSaved();
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(problemMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <PageHeader title={t('users.editTitle', { name: user.username })} />
      <p>
        <Link to="/users">{t('users.back')}</Link>
      </p>
      <form onSubmit={save} noValidate>
        <FormErrors message={message} fields={errors} />
        <Fieldset legend={t('users.account')}>
          <p>
            {t('users.username')}: <strong>{user.username}</strong>
          </p>
          <TextField label={t('users.name')} name="name" value={form.name} onInput={set('name')} error={errors.name} />
          <TextField label={t('users.email')} name="email" type="email" value={form.email} onInput={set('email')} error={errors.email} />
          <SelectField label={t('users.roleLabel')} name="roles" value={form.role} onChange={set('role')} options={roleOptions()} error={errors.roles} />
          <PasswordField value={form.password} onInput={set('password')} error={errors.password} help={t('users.passwordHelp')} words={[user.username, form.name, form.email]} />
        </Fieldset>
        <button type="submit" disabled={busy}>
          {t('users.save')}
        </button>
      </form>
      <AppPasswords user={user} />
      <RemoveUser user={user} />
    </>
  );
}

function AppPasswords({ user }: { user: User }) {
  const list = useApi<AppPassword[]>(`${NS}/users/${user.id}/application-passwords`);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [secret, setSecret] = useState<{ name: string; password: string } | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const made = await api<AppPassword & { password: string }>(`${NS}/users/${user.id}/application-passwords`, { method: 'POST', body: { name } });
      setSecret({ name: made.data.name, password: made.data.password });
      setName('');
      list.reload();
    } catch (err) {
      setError(fieldErrors(err).name ?? problemMessage(err));
    }
  };
  const revoke = async (a: AppPassword) => {
    if (!(await confirmDialog({ title: t('users.app.revoke'), message: t('users.app.revokeQ', { name: a.name }), confirm: t('users.app.revoke'), danger: true }))) return;
    try {
      await api(`${NS}/users/${user.id}/application-passwords/${encodeURIComponent(a.uuid)}`, { method: 'DELETE' });
      toast(t('users.app.revoked', { name: a.name }));
      list.reload();
    } catch (err) {
      toast(problemMessage(err), 'error');
    }
  };
  const columns: Column<AppPassword & { id: string }>[] = [
    { key: 'name', label: t('users.app.name'), render: (a) => a.name },
    { key: 'created', label: t('users.app.created'), render: (a) => formatDate(a.created.replace('T', ' ')), optional: true },
    { key: 'last_used', label: t('users.app.lastUsed'), render: (a) => (a.last_used ? formatDate(a.last_used.replace('T', ' ')) : t('users.app.never')) },
    {
      key: 'actions',
      label: t('users.actions'),
      render: (a) => (
        <button type="button" class="secondary danger" onClick={() => void revoke(a)} aria-label={t('users.app.revokeNamed', { name: a.name })}>
          {t('users.app.revoke')}
        </button>
      ),
    },
  ];
  return (
    <section class="card" aria-labelledby="app-passwords">
      <h2 id="app-passwords">{t('users.app.title')}</h2>
      <p class="help">{t('users.app.help')}</p>
      {secret && (
        <div class="notice success" role="status">
          <p>{t('users.app.shownOnce', { name: secret.name })}</p>
          <p>
            <code class="secret" id="new-app-password">
              {secret.password}
            </code>
          </p>
          <button type="button" class="secondary" onClick={() => setSecret(null)}>
            {t('users.app.done')}
          </button>
        </div>
      )}
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable caption={t('users.app.title')} columns={columns} rows={list.data?.map((a) => ({ ...a, id: a.uuid })) ?? null} empty={t('users.app.empty')} />
      )}
      <form onSubmit={create} class="inline-form" noValidate>
        <TextField label={t('users.app.newName')} name="app-name" value={name} onInput={setName} error={error} required />
        <button type="submit">{t('users.app.add')}</button>
      </form>
    </section>
  );
}

function RemoveUser({ user }: { user: User }) {
  const admins = useApi<User[]>(`${NS}/users`, { per_page: 100 });
  const [heir, setHeir] = useState('');
  const [error, setError] = useState<string | undefined>();
  const others = (admins.data ?? []).filter((u) => u.id !== user.id);
  const remove = async () => {
    if (!(await confirmDialog({ title: t('users.remove'), message: t('users.removeQ', { name: user.username }), confirm: t('users.remove'), danger: true }))) return;
    setError(undefined);
    try {
      await api(`${NS}/users/${user.id}`, { method: 'DELETE', query: { reassign: heir || undefined, force: true } });
      toast(t('users.removed', { name: user.username }));
      navigate('/users', { replace: true });
    } catch (err) {
      setError(problemMessage(err));
    }
  };
  if (user.id === currentUser.value.id) return null;
  return (
    <section class="card" aria-labelledby="remove-user">
      <h2 id="remove-user">{t('users.remove')}</h2>
      <SelectField
        label={t('users.reassign')}
        name="reassign"
        value={heir}
        onChange={setHeir}
        help={t('users.reassignHelp')}
        options={[{ value: '', label: t('users.reassignNone') }, ...others.map((u) => ({ value: String(u.id), label: `${u.name} (${u.username})` }))]}
      />
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" class="danger" onClick={() => void remove()}>
        {t('users.remove')}
      </button>
    </section>
  );
}

export const screens: ScreenDef[] = [
  { path: '/users', nav: { labelKey: 'users.nav', group: 'people', order: 10 }, roles: ['administrator'], needs: 'network', component: UsersList },
  { path: '/users/:id', roles: ['administrator'], needs: 'network', component: UserPage },
];
