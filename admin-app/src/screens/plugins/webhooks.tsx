/**
 * Webhook endpoints over `calendar/admin/v1/webhooks`: the list, a form to add one
 * (URL, event types, description; the signing secret shown once), an endpoint's page (edit,
 * disable and re-enable, remove, send a test delivery and see how it went) with its deliveries
 * (status, attempts, each attempt's response) and a "Send again" per delivery. The event types
 * offered are the server's list. Administrators only.
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
import { Checkbox, Fieldset, FormErrors, SelectField, TextField } from '../../components/Fields';
import { ErrorState, Loading } from '../../components/States';
import { confirmDialog } from '../../components/ConfirmDialog';
import { toast } from '../../components/Toast';

const NS = 'calendar/admin/v1';
const KINDS = ['event', 'venue', 'organizer', 'category', 'tag'];
const ACTIONS = ['created', 'updated', 'trashed', 'deleted'];
const PER_PAGE = 20;

interface Endpoint {
  id: number;
  url: string;
  description: string;
  events: string[];
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created: string;
}

interface Attempt {
  time: string;
  outcome: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

interface Delivery {
  id: string;
  type: string;
  status: string;
  attempts: number;
  next_attempt: string | null;
  last_response_code: number | null;
  created: string;
  log: Attempt[];
}

const when = (iso: string | null) => (iso ? formatDate(new Date(iso)) : '—');
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The event types as checkboxes: all (`*`) or chosen ones. */
function EventsChooser({ value, onChange, error }: { value: string[]; onChange: (v: string[]) => void; error?: string }) {
  const all = value.includes('*');
  // The server's list: every type it delivers (submission.* included), never a copy that drifts.
  const served = useApi<string[]>(`${NS}/webhook-event-types`);
  const types = served.data ?? KINDS.flatMap((k) => ACTIONS.map((a) => `${k}.${a}`));
  const toggle = (type: string, on: boolean) => onChange(on ? [...value.filter((v) => v !== '*'), type] : value.filter((v) => v !== type));
  return (
    <Fieldset legend={t('webhooks.events')}>
      <Checkbox label={t('webhooks.allEvents')} name="events-all" checked={all} onChange={(on) => onChange(on ? ['*'] : [])} />
      {!all && (
        <div class="checkbox-grid">
          {types.map((type) => (
            <Checkbox key={type} id={`f-ev-${type.replace(/[._]/g, '-')}`} label={type} name="events" checked={value.includes(type)} onChange={(on) => toggle(type, on)} />
          ))}
        </div>
      )}
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </Fieldset>
  );
}

function WebhookList() {
  const list = useApi<Endpoint[]>(`${NS}/webhooks`);
  const columns: Column<Endpoint>[] = [
    { key: 'url', label: t('webhooks.url'), render: (e) => <Link to={`/webhooks/${e.id}`}>{e.url}</Link> },
    { key: 'status', label: t('webhooks.status'), render: (e) => (e.enabled ? t('webhooks.enabled') : t('webhooks.disabled')) },
    { key: 'events', label: t('webhooks.events'), render: (e) => (e.events.includes('*') ? t('webhooks.allEvents') : e.events.join(', ')), optional: true },
    { key: 'description', label: t('webhooks.description'), render: (e) => e.description || '—', optional: true },
  ];
  return (
    <>
      <PageHeader title={t('webhooks.title')}>
        <button type="button" onClick={() => navigate('/webhooks/new')}>
          {t('webhooks.add')}
        </button>
      </PageHeader>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable caption={t('webhooks.title')} columns={columns} rows={list.data} loading={list.loading} empty={t('webhooks.empty')} />
      )}
    </>
  );
}

function EndpointForm({ endpoint, onSaved }: { endpoint?: Endpoint; onSaved: (e: Endpoint, created: boolean) => void }) {
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<string[]>(endpoint?.events ?? ['*']);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setMessage(undefined);
    try {
      const body = { url, description, events: events.length ? events : ['*'] };
      const res = endpoint ? await api<Endpoint>(`${NS}/webhooks/${endpoint.id}`, { method: 'PATCH', body }) : await api<Endpoint>(`${NS}/webhooks`, { method: 'POST', body });
      onSaved(res.data, !endpoint);
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
      <Fieldset legend={t('webhooks.endpoint')}>
        <TextField label={t('webhooks.url')} name="url" type="url" inputMode="url" required value={url} onInput={setUrl} error={errors.url} help={t('webhooks.urlHelp')} />
        <TextField label={t('webhooks.description')} name="description" value={description} onInput={setDescription} error={errors.description} />
      </Fieldset>
      <EventsChooser value={events} onChange={setEvents} error={errors.events} />
      <button type="submit" disabled={busy}>
        {endpoint ? t('webhooks.save') : t('webhooks.create')}
      </button>
    </form>
  );
}

function NewEndpoint() {
  const [made, setMade] = useState<Endpoint | null>(null);
  return (
    <>
      <PageHeader title={t('webhooks.add')} />
      <p>
        <Link to="/webhooks">{t('webhooks.back')}</Link>
      </p>
      {made ? (
        <div class="notice success" role="status">
          <p>{t('webhooks.secretOnce')}</p>
          <p>
            <code class="secret">{made.secret}</code>
          </p>
          <button type="button" onClick={() => navigate(`/webhooks/${made.id}`, { replace: true })}>
            {t('webhooks.continue')}
          </button>
        </div>
      ) : (
        <EndpointForm
          onSaved={(e) => {
            toast(t('webhooks.created'));
            setMade(e);
          }}
        />
      )}
    </>
  );
}

function WebhookPage({ params }: { params: Record<string, string> }) {
  if (params.id === 'new') return <NewEndpoint />;
  return <EndpointPage id={Number(params.id)} />;
}

function EndpointPage({ id }: { id: number }) {
  const endpoint = useApi<Endpoint>(`${NS}/webhooks/${id}`);
  if (endpoint.error) return <ErrorState error={endpoint.error} onRetry={endpoint.reload} />;
  if (!endpoint.data) return <Loading />;
  const e = endpoint.data;
  const setEnabled = async (enabled: boolean) => {
    try {
      await api(`${NS}/webhooks/${e.id}`, { method: 'PATCH', body: { enabled } });
      toast(enabled ? t('webhooks.reenabled') : t('webhooks.disabledNow'));
      endpoint.reload();
    } catch (err) {
      toast(messageOf(err), 'error');
    }
  };
  const remove = async () => {
    if (!(await confirmDialog({ title: t('webhooks.remove'), message: t('webhooks.removeQ', { url: e.url }), confirm: t('webhooks.remove'), danger: true }))) return;
    try {
      await api(`${NS}/webhooks/${e.id}`, { method: 'DELETE' });
      toast(t('webhooks.removed'));
      navigate('/webhooks', { replace: true });
    } catch (err) {
      toast(messageOf(err), 'error');
    }
  };
  return (
    <>
      <PageHeader title={t('webhooks.endpointTitle', { id: e.id })}>
        {e.enabled ? (
          <button type="button" class="secondary" onClick={() => void setEnabled(false)}>
            {t('webhooks.disable')}
          </button>
        ) : (
          <button type="button" onClick={() => void setEnabled(true)}>
            {t('webhooks.enable')}
          </button>
        )}
        <button type="button" class="danger" onClick={() => void remove()}>
          {t('webhooks.remove')}
        </button>
      </PageHeader>
      <p>
        <Link to="/webhooks">{t('webhooks.back')}</Link>
      </p>
      <p role="status">
        {e.enabled ? t('webhooks.enabled') : t('webhooks.disabled')}
        {e.disabled_reason ? ` (${e.disabled_reason})` : ''}
        {e.failing_since ? ` · ${t('webhooks.failingSince', { when: when(e.failing_since) })}` : ''}
      </p>
      <TestDelivery id={e.id} />
      <EndpointForm key={`${e.id}-${e.url}`} endpoint={e} onSaved={() => (toast(t('webhooks.saved')), endpoint.reload())} />
      <Deliveries id={e.id} />
    </>
  );
}

interface TestResult {
  ok: boolean;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** "Send a test delivery": a webhook.test message sent now, and how the receiver answered. */
function TestDelivery({ id }: { id: number }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TestResult | null>(null);
  const send = async () => {
    setBusy(true);
    setResult(null);
    try {
      setResult((await api<TestResult>(`${NS}/webhooks/${id}/test`, { method: 'POST' })).data);
    } catch (err) {
      setResult({ ok: false, response_code: null, duration_ms: 0, error: messageOf(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="test-delivery">
      <h2 id="test-delivery">{t('webhooks.test.title')}</h2>
      <p class="help">{t('webhooks.test.help')}</p>
      <button type="button" id="send-test" onClick={() => void send()} disabled={busy}>
        {busy ? t('webhooks.test.sending') : t('webhooks.test.send')}
      </button>
      <p role="status" aria-live="polite" id="test-result" class={result ? (result.ok ? 'notice success' : 'notice error') : undefined}>
        {result &&
          (result.ok
            ? t('webhooks.test.ok', { code: result.response_code ?? '—', ms: result.duration_ms })
            : t('webhooks.test.failed', { why: result.error ?? (result.response_code !== null ? `HTTP ${result.response_code}` : '—') }))}
      </p>
    </section>
  );
}

function Deliveries({ id }: { id: number }) {
  const q = query.value;
  const page = Number(q.get('page') ?? 1) || 1;
  const status = q.get('status') ?? '';
  const list = useApi<Delivery[]>(`${NS}/webhooks/${id}/deliveries`, { page, per_page: PER_PAGE, status: status || undefined });
  const total = Number(list.headers?.get('x-wp-total') ?? 0);
  const redeliver = async (d: Delivery) => {
    try {
      await api(`${NS}/webhooks/${id}/deliveries/${encodeURIComponent(d.id)}/redeliver`, { method: 'POST' });
      toast(t('webhooks.redelivered'));
      list.reload();
    } catch (err) {
      toast(messageOf(err), 'error');
    }
  };
  const columns: Column<Delivery>[] = [
    { key: 'type', label: t('webhooks.type'), render: (d) => d.type },
    { key: 'status', label: t('webhooks.deliveryStatus'), render: (d) => t(`webhooks.state.${d.status}`) },
    { key: 'response', label: t('webhooks.response'), render: (d) => (d.last_response_code === null ? '—' : String(d.last_response_code)) },
    { key: 'created', label: t('webhooks.created_at'), render: (d) => when(d.created), optional: true },
    {
      key: 'log',
      label: t('webhooks.attempts'),
      render: (d) =>
        d.log.length === 0 ? (
          t('webhooks.noAttempt')
        ) : (
          <details>
            <summary>{t('webhooks.attemptCount', { n: d.attempts })}</summary>
            <ul>
              {d.log.map((a, i) => (
                <li key={i}>
                  {when(a.time)} · {a.outcome} · {a.response_code ?? '—'} · {a.duration_ms} ms{a.error ? ` · ${a.error}` : ''}
                </li>
              ))}
            </ul>
          </details>
        ),
    },
    {
      key: 'actions',
      label: t('webhooks.actions'),
      render: (d) => (
        <button type="button" class="secondary" onClick={() => void redeliver(d)} aria-label={t('webhooks.redeliverNamed', { id: d.id })}>
          {t('webhooks.redeliver')}
        </button>
      ),
    },
  ];
  return (
    <section class="card" aria-labelledby="deliveries">
      <h2 id="deliveries">{t('webhooks.deliveries')}</h2>
      <div class="filters">
        <SelectField
          label={t('webhooks.deliveryStatus')}
          name="status"
          value={status}
          onChange={(v) => setQuery({ status: v, page: undefined })}
          options={[{ value: '', label: t('webhooks.state.any') }, ...['pending', 'succeeded', 'failed'].map((s) => ({ value: s, label: t(`webhooks.state.${s}`) }))]}
        />
        <button type="button" class="secondary" onClick={list.reload}>
          {t('webhooks.refresh')}
        </button>
      </div>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable
          caption={t('webhooks.deliveries')}
          columns={columns}
          rows={list.data}
          loading={list.loading}
          empty={t('webhooks.noDeliveries')}
          paging={{ page, total, totalPages: Math.ceil(total / PER_PAGE), onPage: (p) => setQuery({ page: p }) }}
        />
      )}
    </section>
  );
}

export const screens: ScreenDef[] = [
  { path: '/webhooks', nav: { labelKey: 'webhooks.nav', group: 'system', order: 20 }, roles: ['administrator'], component: WebhookList },
  { path: '/webhooks/:id', roles: ['administrator'], component: WebhookPage },
];
