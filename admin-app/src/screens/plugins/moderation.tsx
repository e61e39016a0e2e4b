/**
 * The moderation screens, a plug-in of the admin app: the queue of community
 * submissions (`/moderation`: filters, paging, selection and bulk actions), one submission
 * (`/moderation/:id`: the event as submitted, the submitter, duplicate flags, approve now or at a
 * time, edit then approve, merge a new venue or organizer into an existing one, reject or ask for
 * changes with a reason, its log) and the moderation log (`/moderation/log`). Over
 * `calendar/admin/v1/submissions` (docs/submissions.md); editors and administrators.
 */
import { useState } from 'preact/hooks';
import { api, ApiProblem, fieldErrors } from '../../lib/api';
import { formatDate, t } from '../../lib/i18n';
import { query, setQuery } from '../../lib/router';
import type { ScreenDef } from '../../lib/screens';
import { Checkbox, DataTable, Empty, ErrorState, FormErrors, Link, Loading, PageHeader, SelectField, TextArea, TextField, toast, useApi, type Column } from '../../components';

const BASE = 'calendar/admin/v1/submissions';
const EVENTS = 'calendar/events/v1';

interface Submitter {
  user_id: number;
  name: string;
  email: string;
  ip: string;
  locale: string;
  erased: string | null;
}

interface SubmittedEvent {
  id: number;
  status: string;
  title: string;
  description: string;
  start_date: string;
  end_date: string;
  timezone: string;
  all_day: boolean;
  cost: string;
  website: string;
  image: string | null;
  venue: { id: number; venue: string; city?: string; status: string } | null;
  organizer: Array<{ id: number; organizer: string; email?: string; status: string }>;
  categories: Array<{ id: number; name: string }>;
}

interface LogEntry {
  id: number;
  submission_id: number;
  actor_id: number;
  actor: string;
  action: string;
  reason: string;
  detail: Record<string, unknown>;
  date: string;
}

interface Submission {
  id: number;
  status: string;
  reason: string;
  created: string;
  decided: string | null;
  publish_at: string | null;
  submitter: Submitter;
  flags: { duplicates?: number[] };
  event_id: number;
  event: SubmittedEvent | null;
  new_venue_id: number | null;
  new_organizer_ids: number[];
  log?: LogEntry[];
}

const STATUSES = ['open', 'pending', 'changes_requested', 'approved', 'rejected', 'withdrawn', 'any'];

const statusLabel = (s: string) => t(`moderation.status.${s}`);
const decoded = (s: string) => {
  const el = document.createElement('textarea');
  el.innerHTML = s;
  return el.value;
};

function problemMessage(e: unknown): string {
  return e instanceof ApiProblem ? e.message : String(e);
}

/** Reject or ask for changes: the reason is required and shown to the submitter. */
function ReasonForm({ id, action, onDone, label }: { id: string; action: (reason: string) => Promise<void>; onDone?: () => void; label: string }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        if (reason.trim() === '') {
          setError(t('moderation.reasonRequired'));
          return;
        }
        setBusy(true);
        try {
          await action(reason.trim());
          setReason('');
          setError(undefined);
          onDone?.();
        } catch (err) {
          setError(fieldErrors(err).reason ?? problemMessage(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <TextArea label={t('moderation.reason')} name={`${id}-reason`} id={`${id}-reason`} value={reason} onInput={setReason} error={error} help={t('moderation.reasonHelp')} rows={3} />
      <button type="submit" disabled={busy}>
        {label}
      </button>
    </form>
  );
}

function Queue() {
  const q = query.value;
  const status = q.get('status') ?? 'open';
  const flagged = q.get('flagged') === 'true';
  const page = Number(q.get('page') ?? '1') || 1;
  const statusQuery = status === 'open' ? 'pending,changes_requested' : status;
  const { data, headers, error, loading, reload } = useApi<Submission[]>(BASE, { status: statusQuery, ...(flagged ? { flagged: true } : {}), page, per_page: 20 });
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [bulkAction, setBulkAction] = useState('approve');
  const [bulkReason, setBulkReason] = useState('');
  const [bulkError, setBulkError] = useState<string | undefined>();
  const totalPages = Number(headers?.get('X-TEC-TotalPages') ?? '1') || 1;
  const total = Number(headers?.get('X-TEC-Total') ?? '0') || 0;

  const columns: Column<Submission>[] = [
    { key: 'title', label: t('moderation.col.title'), render: (s) => <Link to={`/moderation/${s.id}`}>{decoded(s.event?.title ?? '') || t('moderation.untitled')}</Link> },
    { key: 'start', label: t('moderation.col.start'), render: (s) => (s.event ? `${s.event.start_date.slice(0, 16)} (${s.event.timezone})` : '') },
    { key: 'submitter', label: t('moderation.col.submitter'), render: (s) => (s.submitter.erased ? t('moderation.erased') : `${s.submitter.name} <${s.submitter.email}>`), optional: true },
    { key: 'status', label: t('moderation.col.status'), render: (s) => statusLabel(s.status) },
    { key: 'flags', label: t('moderation.col.flags'), render: (s) => (s.flags.duplicates?.length ? <span class="badge warning">{t('moderation.duplicate')}</span> : '') },
    { key: 'received', label: t('moderation.col.received'), render: (s) => formatDate(s.created), optional: true },
  ];

  async function runBulk(e: Event) {
    e.preventDefault();
    if (selected.size === 0) return;
    if (bulkAction !== 'approve' && bulkReason.trim() === '') {
      setBulkError(t('moderation.reasonRequired'));
      return;
    }
    setBulkError(undefined);
    try {
      const res = await api<Array<{ id: number; ok: boolean; error?: { message: string } }>>(`${BASE}/bulk`, {
        method: 'POST',
        body: { ids: [...selected], action: bulkAction, ...(bulkReason.trim() ? { reason: bulkReason.trim() } : {}) },
      });
      const failed = res.data.filter((r) => !r.ok);
      toast(t('moderation.bulkDone', { ok: res.data.length - failed.length, failed: failed.length }), failed.length ? 'error' : 'success');
      setSelected(new Set());
      setBulkReason('');
      await reload();
    } catch (err) {
      setBulkError(problemMessage(err));
    }
  }

  return (
    <>
      <PageHeader title={t('moderation.title')}>
        <Link to="/moderation/log">{t('moderation.logLink')}</Link>
      </PageHeader>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label={t('moderation.filterStatus')}
          name="status"
          value={status}
          onChange={(v) => setQuery({ status: v === 'open' ? undefined : v, page: undefined })}
          options={STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))}
        />
        <Checkbox label={t('moderation.onlyFlagged')} name="flagged" checked={flagged} onChange={(v) => setQuery({ flagged: v ? 'true' : undefined, page: undefined })} />
      </form>
      {error ? (
        <ErrorState error={error} onRetry={reload} />
      ) : (
        <>
          {selected.size > 0 && (
            <form class="bulk card" onSubmit={runBulk} aria-labelledby="bulk-title">
              <h2 id="bulk-title">{t('moderation.bulkTitle', { n: selected.size })}</h2>
              <FormErrors fields={{}} message={bulkError} />
              <SelectField
                label={t('moderation.bulkAction')}
                name="bulk-action"
                value={bulkAction}
                onChange={setBulkAction}
                options={[
                  { value: 'approve', label: t('moderation.approve') },
                  { value: 'reject', label: t('moderation.reject') },
                  { value: 'request_changes', label: t('moderation.requestChanges') },
                ]}
              />
              {bulkAction !== 'approve' && <TextArea label={t('moderation.reason')} name="bulk-reason" value={bulkReason} onInput={setBulkReason} help={t('moderation.reasonHelp')} rows={2} />}
              <button type="submit">{t('moderation.bulkApply')}</button>
            </form>
          )}
          <DataTable
            caption={t('moderation.title')}
            columns={columns}
            rows={data}
            loading={loading}
            empty={t('moderation.empty')}
            selected={selected}
            onSelect={(ids) => setSelected(new Set([...ids].map(Number)))}
            rowLabel={(s) => decoded(s.event?.title ?? String(s.id))}
            paging={{ page, totalPages, total, onPage: (p) => setQuery({ page: p === 1 ? undefined : p }) }}
          />
        </>
      )}
    </>
  );
}

/** What was submitted: the event's fields, its description, and the events it may duplicate. */
function SubmittedEvent({ s }: { s: Submission }) {
  const ev = s.event;
  return (
    <section class="card" aria-labelledby="sub-event">
      <h2 id="sub-event">{t('moderation.event')}</h2>
      <dl class="details">
        <dt>{t('moderation.col.status')}</dt>
        <dd id="submission-status">{statusLabel(s.status)}</dd>
        {s.reason && (
          <>
            <dt>{t('moderation.reason')}</dt>
            <dd>{s.reason}</dd>
          </>
        )}
        {ev && (
          <>
            <dt>{t('moderation.col.start')}</dt>
            <dd>{`${ev.start_date} – ${ev.end_date} (${ev.timezone})${ev.all_day ? ` · ${t('moderation.allDay')}` : ''}`}</dd>
            <dt>{t('moderation.venue')}</dt>
            <dd>{ev.venue ? `${decoded(ev.venue.venue)}${ev.venue.status === 'pending' ? ` (${t('moderation.new')})` : ''}` : t('common.none')}</dd>
            <dt>{t('moderation.organizer')}</dt>
            <dd>{ev.organizer.length ? ev.organizer.map((o) => `${decoded(o.organizer)}${o.status === 'pending' ? ` (${t('moderation.new')})` : ''}`).join(', ') : t('common.none')}</dd>
            <dt>{t('moderation.categories')}</dt>
            <dd>{ev.categories.length ? ev.categories.map((c) => decoded(c.name)).join(', ') : t('common.none')}</dd>
            {ev.cost && (
              <>
                <dt>{t('moderation.cost')}</dt>
                <dd>{ev.cost}</dd>
              </>
            )}
            {ev.website && (
              <>
                <dt>{t('moderation.website')}</dt>
                <dd>{ev.website}</dd>
              </>
            )}
            {ev.image && /^https?:\/\//.test(ev.image) && (
              <>
                <dt>{t('media.picture')}</dt>
                <dd>
                  <a href={ev.image}>
                    <img class="image-preview" src={ev.image} alt={t('media.proposalPicture')} loading="lazy" />
                  </a>
                </dd>
              </>
            )}
          </>
        )}
      </dl>
      {ev?.description && <div class="description" dangerouslySetInnerHTML={{ __html: ev.description }} />}
      {s.flags.duplicates?.length ? (
        <p class="warning" role="note">
          {t('moderation.duplicatesOf')}{' '}
          {s.flags.duplicates.map((d, i) => (
            <span key={d}>
              {i > 0 && ', '}
              <Link to={`/events/${d}`}>#{d}</Link>
            </span>
          ))}
        </p>
      ) : null}
    </section>
  );
}

/** Who submitted it, and when (or when their details were erased). */
function Submitter({ s }: { s: Submission }) {
  return (
    <section class="card" aria-labelledby="sub-who">
      <h2 id="sub-who">{t('moderation.submitter')}</h2>
      {s.submitter.erased ? (
        <p>{t('moderation.erasedOn', { date: formatDate(s.submitter.erased) })}</p>
      ) : (
        <dl class="details">
          <dt>{t('common.name')}</dt>
          <dd>{s.submitter.name}</dd>
          <dt>{t('moderation.email')}</dt>
          <dd>{s.submitter.email}</dd>
          <dt>{t('moderation.address')}</dt>
          <dd>{s.submitter.ip}</dd>
          <dt>{t('moderation.col.received')}</dt>
          <dd>{formatDate(s.created)}</dd>
        </dl>
      )}
    </section>
  );
}

function Detail({ params }: { params: Record<string, string> }) {
  const id = Number(params.id);
  const { data: s, error, loading, reload } = useApi<Submission>(`${BASE}/${id}`);
  const venues = useApi<{ venues: Array<{ id: number; venue: string }> }>(s?.new_venue_id ? `${EVENTS}/venues` : null, { per_page: 50 });
  const organizers = useApi<{ organizers: Array<{ id: number; organizer: string }> }>(s?.new_organizer_ids.length ? `${EVENTS}/organizers` : null, { per_page: 50 });
  const [publishAt, setPublishAt] = useState('');
  const [title, setTitle] = useState<string | null>(null);
  const [mergeVenue, setMergeVenue] = useState('');
  const [mergeOrganizer, setMergeOrganizer] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();

  if (error) return <ErrorState error={error} onRetry={reload} />;
  if (!s || loading) return <Loading />;
  const ev = s.event;
  const open = s.status === 'pending' || s.status === 'changes_requested';
  const decide = async (path: string, body: Record<string, unknown>, done: string) => {
    await api(`${BASE}/${id}/${path}`, { method: 'POST', body });
    toast(done);
    await reload();
  };

  async function approve(e: Event) {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    if (publishAt) body.publish_at = publishAt.replace('T', ' ');
    if (title !== null && ev && title !== decoded(ev.title)) body.event = { title };
    if (mergeVenue) body.merge_venue = Number(mergeVenue);
    if (mergeOrganizer) body.merge_organizers = [Number(mergeOrganizer)];
    try {
      await decide('approve', body, t('moderation.approved'));
      setErrors({});
      setMessage(undefined);
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(problemMessage(err));
    }
  }

  return (
    <>
      <PageHeader title={t('moderation.detailTitle', { title: decoded(ev?.title ?? '') })}>
        <Link to="/moderation">{t('common.back')}</Link>
      </PageHeader>
      <SubmittedEvent s={s} />
      <Submitter s={s} />
      {open && (
        <>
          <section class="card" aria-labelledby="sub-approve">
            <h2 id="sub-approve">{t('moderation.approve')}</h2>
            <form class="stack" onSubmit={approve}>
              <FormErrors fields={errors} message={message} />
              <TextField label={t('moderation.editTitle')} name="title" value={title ?? decoded(ev?.title ?? '')} onInput={setTitle} error={errors.title} help={t('moderation.editHelp')} />
              <TextField
                label={t('moderation.publishAt')}
                name="publish_at"
                type="datetime-local"
                value={publishAt}
                onInput={setPublishAt}
                error={errors.publish_at}
                help={t('moderation.publishAtHelp')}
              />
              {s.new_venue_id && (
                <SelectField
                  label={t('moderation.mergeVenue')}
                  name="merge_venue"
                  value={mergeVenue}
                  onChange={setMergeVenue}
                  error={errors.merge_venue}
                  options={[
                    { value: '', label: t('moderation.keepNew') },
                    ...(venues.data?.venues ?? []).filter((v) => v.id !== s.new_venue_id).map((v) => ({ value: String(v.id), label: decoded(v.venue) })),
                  ]}
                />
              )}
              {s.new_organizer_ids.length > 0 && (
                <SelectField
                  label={t('moderation.mergeOrganizer')}
                  name="merge_organizers"
                  value={mergeOrganizer}
                  onChange={setMergeOrganizer}
                  error={errors.merge_organizers}
                  options={[
                    { value: '', label: t('moderation.keepNew') },
                    ...(organizers.data?.organizers ?? []).filter((o) => !s.new_organizer_ids.includes(o.id)).map((o) => ({ value: String(o.id), label: decoded(o.organizer) })),
                  ]}
                />
              )}
              <button type="submit">{publishAt ? t('moderation.schedule') : t('moderation.approveNow')}</button>
            </form>
            <p>
              <Link to={`/events/${s.event_id}`}>{t('moderation.openEditor')}</Link>
            </p>
          </section>
          {s.status === 'pending' && (
            <section class="card" aria-labelledby="sub-changes">
              <h2 id="sub-changes">{t('moderation.requestChanges')}</h2>
              <ReasonForm id="changes" label={t('moderation.requestChanges')} action={(reason) => decide('request-changes', { reason }, t('moderation.changesRequested'))} />
            </section>
          )}
          <section class="card" aria-labelledby="sub-reject">
            <h2 id="sub-reject">{t('moderation.reject')}</h2>
            <ReasonForm id="reject" label={t('moderation.reject')} action={(reason) => decide('reject', { reason }, t('moderation.rejected'))} />
          </section>
        </>
      )}
      <section class="card" aria-labelledby="sub-log">
        <h2 id="sub-log">{t('moderation.log')}</h2>
        <LogList entries={s.log ?? []} />
      </section>
    </>
  );
}

function LogList({ entries }: { entries: LogEntry[] }) {
  if (entries.length === 0) return <Empty>{t('moderation.logEmpty')}</Empty>;
  return (
    <ol class="log">
      {entries.map((e) => (
        <li key={e.id}>
          <strong>{t(`moderation.action.${e.action}`)}</strong> · {e.actor === 'submitter' ? t('moderation.bySubmitter') : e.actor} · {formatDate(e.date)}
          {e.reason && <q class="reason">{e.reason}</q>}
        </li>
      ))}
    </ol>
  );
}

function Log() {
  const page = Number(query.value.get('page') ?? '1') || 1;
  const { data, headers, error, loading, reload } = useApi<LogEntry[]>(`${BASE}/log`, { page, per_page: 50 });
  const totalPages = Number(headers?.get('X-TEC-TotalPages') ?? '1') || 1;
  return (
    <>
      <PageHeader title={t('moderation.logTitle')}>
        <Link to="/moderation">{t('common.back')}</Link>
      </PageHeader>
      {error ? (
        <ErrorState error={error} onRetry={reload} />
      ) : !data || loading ? (
        <Loading />
      ) : (
        <>
          <ol class="log">
            {data.map((e) => (
              <li key={e.id}>
                <Link to={`/moderation/${e.submission_id}`}>#{e.submission_id}</Link> · <strong>{t(`moderation.action.${e.action}`)}</strong> ·{' '}
                {e.actor === 'submitter' ? t('moderation.bySubmitter') : e.actor} · {formatDate(e.date)}
                {e.reason && <q class="reason">{e.reason}</q>}
              </li>
            ))}
          </ol>
          {data.length === 0 && <Empty>{t('moderation.logEmpty')}</Empty>}
          {totalPages > 1 && (
            <nav class="paging" aria-label={t('moderation.logTitle')}>
              {page > 1 && (
                <button type="button" onClick={() => setQuery({ page: page - 1 === 1 ? undefined : page - 1 })}>
                  {t('moderation.previous')}
                </button>
              )}
              {page < totalPages && (
                <button type="button" onClick={() => setQuery({ page: page + 1 })}>
                  {t('moderation.next')}
                </button>
              )}
            </nav>
          )}
        </>
      )}
    </>
  );
}

const MODERATORS = ['administrator', 'editor'];

export const screens: ScreenDef[] = [
  { path: '/moderation', nav: { labelKey: 'moderation.nav', group: 'content', order: 30 }, roles: MODERATORS, feature: 'submissions', component: Queue },
  { path: '/moderation/log', roles: MODERATORS, feature: 'submissions', component: Log },
  { path: '/moderation/:id', roles: MODERATORS, feature: 'submissions', component: Detail },
];
