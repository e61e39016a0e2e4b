/**
 * People: the signed-in user's account inside the app (`/my-account`: name, e-mail, a password
 * change with a strength meter, two-factor sign-in's state with a link to its set-up on the
 * account page, application passwords, and the sessions in words: "Firefox on Windows", address,
 * signed in, last seen in the site's time zone, sign out one or everywhere else), and invitations
 * (`/invitations`, administrators: invite by e-mail, resend, revoke). The meter asks the server's
 * own check (`calendar/admin/v1/password-strength`): the dictionaries stay there, out of the app's
 * JavaScript budget, and the meter never disagrees with the check that decides.
 */
import { useState } from 'preact/hooks';
import { api, fieldErrors } from '../../lib/api';
import { formatDate, t } from '../../lib/i18n';
import { boot } from '../../lib/session';
import type { ScreenDef } from '../../lib/screens';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { DataTable, type Column } from '../../components/DataTable';
import { Fieldset, FormErrors, SelectField, TextField } from '../../components/Fields';
import { ErrorState, Loading } from '../../components/States';
import { confirmDialog } from '../../components/ConfirmDialog';
import { toast } from '../../components/Toast';
import { NewPassword } from '../../components/PasswordMeter';

const NS = 'calendar/admin/v1';
const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];
const problemMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));
/** A GMT time (`YYYY-MM-DD HH:MM:SS`) in the site's time zone. */
const siteTime = (gmt: string) => formatDate(gmt.replace('T', ' '), { dateStyle: 'medium', timeStyle: 'short', timeZone: boot.timezone });

interface Me {
  id: number;
  username: string;
  name: string;
  email: string;
  roles: string[];
}

interface SessionRow {
  id: number;
  created_gmt: string;
  last_used_gmt: string;
  ip: string;
  device: { browser: string; os: string };
  remember: boolean;
  current: boolean;
}

function Profile({ me, onSaved }: { me: Me; onSaved: () => void }) {
  const [form, setForm] = useState({ name: me.name, email: me.email });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setMessage(undefined);
    try {
      await api<Me>(`${NS}/me`, { method: 'PATCH', body: form });
      toast(t('people.saved'));
      onSaved();
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(problemMessage(err));
    }
  };
  return (
    <form onSubmit={save} noValidate>
      <FormErrors message={message} fields={errors} />
      <Fieldset legend={t('people.profile')}>
        <p>
          {t('people.username')}: <strong>{me.username}</strong>
        </p>
        <TextField label={t('people.name')} name="name" value={form.name} onInput={(v) => setForm({ ...form, name: v })} error={errors.name} autoComplete="name" />
        <TextField label={t('people.email')} name="email" type="email" value={form.email} onInput={(v) => setForm({ ...form, email: v })} error={errors.email} autoComplete="email" />
        <button type="submit">{t('people.saveProfile')}</button>
      </Fieldset>
    </form>
  );
}

function ChangePassword({ me }: { me: Me }) {
  const [form, setForm] = useState({ current: '', password: '', confirm: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = async (e: Event) => {
    e.preventDefault();
    if (form.password !== form.confirm) {
      setErrors({ confirm: t('people.passwordsDiffer') });
      return;
    }
    setErrors({});
    try {
      await api<Me>(`${NS}/me`, { method: 'PATCH', body: { password: form.password, current_password: form.current } });
      setForm({ current: '', password: '', confirm: '' });
      toast(t('people.passwordChanged'));
    } catch (err) {
      const fields = fieldErrors(err);
      if ((err as { code?: string }).code === 'incorrect_password') fields.current = problemMessage(err);
      setErrors(Object.keys(fields).length ? fields : { password: problemMessage(err) });
    }
  };
  return (
    <form onSubmit={save} noValidate>
      <Fieldset legend={t('people.changePassword')}>
        <TextField id="current-password" name="current" type="password" autoComplete="current-password" label={t('people.currentPassword')} value={form.current} onInput={(v) => setForm({ ...form, current: v })} error={errors.current} />
        <NewPassword id="new-password" label={t('people.newPassword')} value={form.password} onInput={(v) => setForm({ ...form, password: v })} error={errors.password} words={[me.name, me.email]} />
        <TextField id="confirm-password" name="confirm" type="password" autoComplete="new-password" label={t('people.confirmPassword')} value={form.confirm} onInput={(v) => setForm({ ...form, confirm: v })} error={errors.confirm} />
        <p class="help">{t('people.passwordEndsSessions')}</p>
        <button type="submit">{t('people.savePassword')}</button>
      </Fieldset>
    </form>
  );
}

function deviceText(d: { browser: string; os: string }): string {
  if (d.browser && d.os) return t('people.deviceOn', { browser: d.browser, os: d.os });
  return d.browser || d.os || t('people.unknownDevice');
}

function Sessions() {
  const list = useApi<SessionRow[]>(`${NS}/sessions`);
  const end = async (s: SessionRow) => {
    try {
      await api(`${NS}/sessions/${s.id}`, { method: 'DELETE' });
      toast(t('people.sessionEnded'));
      list.reload();
    } catch (err) {
      toast(problemMessage(err), 'error');
    }
  };
  const endOthers = async () => {
    if (!(await confirmDialog({ title: t('people.signOutOthers'), message: t('people.signOutOthersQ'), confirm: t('people.signOutOthers'), danger: true }))) return;
    try {
      const r = await api<{ count: number }>(`${NS}/sessions`, { method: 'DELETE', query: { keep_current: true } });
      toast(t('people.othersEnded', { count: r.data.count }));
      list.reload();
    } catch (err) {
      toast(problemMessage(err), 'error');
    }
  };
  const columns: Column<SessionRow>[] = [
    { key: 'device', label: t('people.device'), render: (s) => (s.current ? `${deviceText(s.device)} (${t('people.thisSession')})` : deviceText(s.device)) },
    { key: 'ip', label: t('people.address'), render: (s) => s.ip || '—', optional: true },
    { key: 'created', label: t('people.signedIn'), render: (s) => siteTime(s.created_gmt), optional: true },
    { key: 'last', label: t('people.lastSeen'), render: (s) => siteTime(s.last_used_gmt) },
    {
      key: 'actions',
      label: t('people.actions'),
      render: (s) =>
        s.current ? (
          <span>{t('people.thisSession')}</span>
        ) : (
          <button type="button" class="secondary" onClick={() => void end(s)} aria-label={t('people.signOutSessionOf', { device: deviceText(s.device), ip: s.ip })}>
            {t('people.signOutSession')}
          </button>
        ),
    },
  ];
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('people.sessions')}</h2>
      <p class="help">{t('people.timesIn', { zone: boot.timezone })}</p>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable caption={t('people.sessions')} columns={columns} rows={list.data} loading={list.loading} empty={t('people.noSessions')} />
      )}
      <button type="button" class="danger" onClick={() => void endOthers()}>
        {t('people.signOutOthers')}
      </button>
    </section>
  );
}

function AppPasswordsSummary({ me }: { me: Me }) {
  const list = useApi<Array<{ uuid: string; name: string; last_used: string | null }>>(`${NS}/users/${me.id}/application-passwords`);
  return (
    <section class="card" aria-labelledby="apps-title">
      <h2 id="apps-title">{t('people.appPasswords')}</h2>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.length === 0 ? (
        <p>{t('people.noAppPasswords')}</p>
      ) : (
        <ul>
          {list.data.map((a) => (
            <li key={a.uuid}>
              {a.name} — {a.last_used ? t('people.lastUsedOn', { when: siteTime(a.last_used) }) : t('people.neverUsed')}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Account() {
  const me = useApi<Me>(`${NS}/me`);
  if (me.error) return <ErrorState error={me.error} onRetry={me.reload} />;
  if (!me.data) return <Loading />;
  return (
    <>
      <PageHeader title={t('people.accountTitle')} />
      <Profile key={me.data.id} me={me.data} onSaved={me.reload} />
      <ChangePassword me={me.data} />
      <section class="card" aria-labelledby="tf-title">
        <h2 id="tf-title">{t('people.twoFactor')}</h2>
        <p>{t('people.twoFactorHelp')}</p>
        <p>
          <a href={`${boot.adminPath}/account`}>{t('people.twoFactorManage')}</a>
        </p>
      </section>
      <AppPasswordsSummary me={me.data} />
      <Sessions />
    </>
  );
}

interface Invitation {
  user_id: number;
  username: string;
  email: string;
  name: string;
  roles: string[];
  invited: string;
  expires: string;
  expired: boolean;
}

function Invitations() {
  const list = useApi<Invitation[]>(`${NS}/invitations`);
  const [form, setForm] = useState({ email: '', name: '', role: 'author' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [link, setLink] = useState<string | undefined>();
  const invite = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setMessage(undefined);
    setLink(undefined);
    try {
      const made = await api<{ user: { username: string }; link?: string }>(`${NS}/invitations`, { method: 'POST', body: { email: form.email, name: form.name, roles: [form.role] } });
      toast(t('people.invited', { email: form.email }));
      setLink(made.data.link);
      setForm({ email: '', name: '', role: form.role });
      list.reload();
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(problemMessage(err));
    }
  };
  const resend = async (i: Invitation) => {
    try {
      const r = await api<{ link?: string }>(`${NS}/invitations/${i.user_id}`, { method: 'POST' });
      setLink(r.data.link);
      toast(t('people.resent', { email: i.email }));
      list.reload();
    } catch (err) {
      toast(problemMessage(err), 'error');
    }
  };
  const revoke = async (i: Invitation) => {
    if (!(await confirmDialog({ title: t('people.revoke'), message: t('people.revokeQ', { email: i.email }), confirm: t('people.revoke'), danger: true }))) return;
    try {
      await api(`${NS}/invitations/${i.user_id}`, { method: 'DELETE' });
      toast(t('people.revoked', { email: i.email }));
      list.reload();
    } catch (err) {
      toast(problemMessage(err), 'error');
    }
  };
  const columns: Column<Invitation & { id: number }>[] = [
    { key: 'email', label: t('people.email'), render: (i) => i.email },
    { key: 'role', label: t('people.role'), render: (i) => t(`people.roles.${i.roles[0] ?? 'subscriber'}`), optional: true },
    { key: 'expires', label: t('people.expires'), render: (i) => (i.expired ? t('people.expired') : siteTime(i.expires)) },
    {
      key: 'actions',
      label: t('people.actions'),
      render: (i) => (
        <span class="actions">
          <button type="button" class="secondary" onClick={() => void resend(i)} aria-label={t('people.resendTo', { email: i.email })}>
            {t('people.resend')}
          </button>{' '}
          <button type="button" class="secondary danger" onClick={() => void revoke(i)} aria-label={t('people.revokeFor', { email: i.email })}>
            {t('people.revoke')}
          </button>
        </span>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('people.invitationsTitle')} />
      <form onSubmit={invite} noValidate>
        <FormErrors message={message} fields={errors} />
        <Fieldset legend={t('people.inviteLegend')}>
          <p class="help">{t('people.inviteHelp')}</p>
          <TextField label={t('people.email')} name="email" type="email" required value={form.email} onInput={(v) => setForm({ ...form, email: v })} error={errors.email} autoComplete="off" />
          <TextField label={t('people.name')} name="name" value={form.name} onInput={(v) => setForm({ ...form, name: v })} error={errors.name} autoComplete="off" />
          <SelectField
            label={t('people.role')}
            name="role"
            value={form.role}
            onChange={(v) => setForm({ ...form, role: v })}
            options={ROLES.map((r) => ({ value: r, label: t(`people.roles.${r}`) }))}
            error={errors.roles}
          />
          <button type="submit">{t('people.invite')}</button>
        </Fieldset>
      </form>
      {link && (
        <div class="notice success" role="status">
          <p>{t('people.linkToGive')}</p>
          <p>
            <code class="secret" id="invitation-link" style={{ overflowWrap: 'anywhere', wordBreak: 'break-all' }}>
              {link}
            </code>
          </p>
        </div>
      )}
      <section class="card" aria-labelledby="pending-title">
        <h2 id="pending-title">{t('people.pending')}</h2>
        {list.error ? (
          <ErrorState error={list.error} onRetry={list.reload} />
        ) : (
          <DataTable caption={t('people.pending')} columns={columns} rows={list.data?.map((i) => ({ ...i, id: i.user_id })) ?? null} loading={list.loading} empty={t('people.noPending')} />
        )}
      </section>
    </>
  );
}

interface PendingEvent {
  id: number;
  title: string;
  start_date: string;
  author: string;
}

/** Events waiting for review: publish one, or send it back to its contributor with a note. */
function Reviews() {
  const list = useApi<{ events: PendingEvent[] }>('calendar/events/v1/events', { status: 'pending', per_page: 50, start_date: '1970-01-01', end_date: '2999-12-31' });
  const [open, setOpen] = useState<number | null>(null);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | undefined>();
  const publish = async (e: PendingEvent) => {
    try {
      await api(`calendar/events/v1/events/${e.id}`, { method: 'POST', body: { status: 'publish' } });
      toast(t('people.published', { title: e.title }));
      list.reload();
    } catch (err) {
      toast(problemMessage(err), 'error');
    }
  };
  const sendBack = async (ev: Event, e: PendingEvent) => {
    ev.preventDefault();
    setError(undefined);
    try {
      await api(`${NS}/events/${e.id}/send-back`, { method: 'POST', body: { note } });
      toast(t('people.sentBack', { title: e.title }));
      setOpen(null);
      setNote('');
      list.reload();
    } catch (err) {
      setError(fieldErrors(err).note ?? problemMessage(err));
    }
  };
  const columns: Column<PendingEvent>[] = [
    { key: 'title', label: t('people.eventTitle'), render: (e) => e.title },
    { key: 'start', label: t('people.eventStart'), render: (e) => e.start_date.slice(0, 16), optional: true },
    {
      key: 'actions',
      label: t('people.actions'),
      render: (e) =>
        open === e.id ? (
          <form onSubmit={(ev) => void sendBack(ev, e)} noValidate>
            <div class={`field${error ? ' has-error' : ''}`}>
              <label for={`note-${e.id}`}>{t('people.note')}</label>
              <textarea
                id={`note-${e.id}`}
                rows={3}
                value={note}
                onInput={(ev) => setNote((ev.target as HTMLTextAreaElement).value)}
                aria-describedby={error ? `note-${e.id}-error` : undefined}
                aria-invalid={error ? 'true' : undefined}
              />
              {error && (
                <p class="field-error" id={`note-${e.id}-error`} role="alert">
                  {error}
                </p>
              )}
            </div>
            <button type="submit">{t('people.sendBack')}</button>{' '}
            <button type="button" class="secondary" onClick={() => setOpen(null)}>
              {t('people.cancel')}
            </button>
          </form>
        ) : (
          <span class="actions">
            <button type="button" onClick={() => void publish(e)} aria-label={t('people.publishNamed', { title: e.title })}>
              {t('people.publish')}
            </button>{' '}
            <button type="button" class="secondary" onClick={() => (setOpen(e.id), setNote(''), setError(undefined))} aria-label={t('people.sendBackNamed', { title: e.title })}>
              {t('people.sendBack')}
            </button>
          </span>
        ),
    },
  ];
  return (
    <>
      <PageHeader title={t('people.reviewsTitle')} />
      <p class="help">{t('people.reviewsHelp')}</p>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable caption={t('people.reviewsTitle')} columns={columns} rows={list.data?.events ?? null} loading={list.loading} empty={t('people.noReviews')} />
      )}
    </>
  );
}

export const screens: ScreenDef[] = [
  { path: '/reviews', nav: { labelKey: 'people.reviewsNav', group: 'content', order: 15 }, roles: ['administrator', 'editor'], component: Reviews },
  { path: '/my-account', roles: ['administrator', 'editor', 'author', 'contributor'], component: Account },
  { path: '/invitations', nav: { labelKey: 'people.invitationsNav', group: 'people', order: 11 }, roles: ['administrator'], needs: 'network', component: Invitations },
];
