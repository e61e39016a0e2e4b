/**
 * Import and export over `calendar/admin/v1/imports` and `/export`: an import from an
 * `.ics` file, an `.ics` URL or a The Events Calendar site, queued and followed with a live progress
 * bar (`imports/{id}` polled until it ends: phase, done of total, then the counts and each message);
 * the import history; the JSON export and the iCalendar export as downloads. Administrators only.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, apiUrl, fieldErrors } from '../../lib/api';
import { formatDate, formatNumber, t } from '../../lib/i18n';
import { query, setQuery } from '../../lib/router';
import { boot } from '../../lib/session';
import type { ScreenDef } from '../../lib/screens';
import { textOf } from '../../lib/text';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { DataTable, type Column } from '../../components/DataTable';
import { Checkbox, Fieldset, FormErrors, SelectField, TextField } from '../../components/Fields';
import { ErrorState, Loading } from '../../components/States';
import { toast } from '../../components/Toast';
import { Link } from '../../components/Link';
import { Combobox, type Choice } from '../../components/Combobox';

const NS = 'calendar/admin/v1';
const POLL_MS = 700;
/** The history is polled this often while an import in it is queued or running. */
const HISTORY_POLL_MS = 2000;
/** …and this often otherwise. */
const HISTORY_IDLE_POLL_MS = 10_000;
const PER_PAGE = 10;
/** Links to the events written, a page at a time. */
const IDS_PER_PAGE = 20;

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
}

interface Review {
  location: string;
  events: number[];
  venue?: number;
}

interface ImportJob {
  id: number;
  kind: 'ics' | 'tec';
  status: 'queued' | 'running' | 'done' | 'failed';
  dry_run: boolean;
  source: string;
  progress: { phase: string; done: number; total: number };
  counts: (Counts & { by_kind: Record<string, Counts>; events?: { created: number[]; updated: number[] }; venues_for_review?: Review[] }) | null;
  messages: Array<{ type: string; message: string }>;
  error: string | null;
  created_gmt: string;
  started_gmt: string | null;
  finished_gmt: string | null;
}

type Source = 'file' | 'url' | 'tec';
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
const ended = (j: ImportJob) => j.status === 'done' || j.status === 'failed';

/** POST an .ics file as it is (text/calendar: up to 10 MiB, more than a JSON body takes). */
async function uploadIcs(file: File, options: Record<string, string | boolean | undefined>): Promise<ImportJob> {
  const res = await fetch(apiUrl(`${NS}/imports`, { ...options, filename: file.name }), {
    method: 'POST',
    headers: { 'content-type': 'text/calendar', 'x-wp-nonce': boot.nonce, accept: 'application/json' },
    body: file,
    credentials: 'same-origin',
  });
  const data = (await res.json().catch(() => ({}))) as ImportJob & { code?: string; message?: string; data?: Record<string, unknown> };
  if (!res.ok) throw new ApiProblem(data.code ?? `http_${res.status}`, data.message ?? res.statusText, res.status, data.data ?? {});
  return data;
}

function ImportForm({ onQueued }: { onQueued: (job: ImportJob) => void }) {
  const [source, setSource] = useState<Source>('file');
  const [file, setFile] = useState<File | null>(null);
  const [f, setF] = useState({ url: '', status: 'publish', strict: false, dryRun: false, from: '', namespace: 'tribe/events/v1', user: '', appPassword: '', author: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set =
    <K extends keyof typeof f>(k: K) =>
    (v: (typeof f)[K]) =>
      setF({ ...f, [k]: v });
  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setMessage(undefined);
    if (source === 'file' && !file) {
      setErrors({ file: t('io.chooseFile') });
      return;
    }
    setBusy(true);
    try {
      let job: ImportJob;
      if (source === 'file') job = await uploadIcs(file!, { status: f.status, strict: f.strict || undefined, dry_run: f.dryRun || undefined });
      else if (source === 'url') job = (await api<ImportJob>(`${NS}/imports`, { method: 'POST', body: { url: f.url, status: f.status, strict: f.strict, dry_run: f.dryRun } })).data;
      else
        job = (
          await api<ImportJob>(`${NS}/imports`, {
            method: 'POST',
            body: {
              type: 'tec',
              from: f.from,
              namespace: f.namespace || undefined,
              user: f.user || undefined,
              app_password: f.user ? f.appPassword : undefined,
              author: f.author || undefined,
              dry_run: f.dryRun,
            },
          })
        ).data;
      toast(t('io.queued'));
      onQueued(job);
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate class="card">
      <h2>{t('io.importTitle')}</h2>
      <FormErrors message={message} fields={errors} />
      <Fieldset legend={t('io.source')}>
        {(['file', 'url', 'tec'] as const).map((s) => (
          <div class="field radio" key={s}>
            <input type="radio" id={`io-source-${s}`} name="source" value={s} checked={source === s} onChange={() => setSource(s)} />
            <label for={`io-source-${s}`}>{t(`io.source.${s}`)}</label>
          </div>
        ))}
      </Fieldset>
      {source === 'file' && (
        <div class={`field${errors.file ? ' has-error' : ''}`}>
          <label for="f-file">{t('io.file')}</label>
          <input
            id="f-file"
            name="file"
            type="file"
            accept=".ics,text/calendar"
            onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
            aria-describedby={`f-file-help${errors.file ? ' f-file-error' : ''}`}
            aria-invalid={errors.file ? 'true' : undefined}
          />
          <p class="help" id="f-file-help">
            {t('io.fileHelp')}
          </p>
          {errors.file && (
            <p class="field-error" id="f-file-error" role="alert">
              {errors.file}
            </p>
          )}
        </div>
      )}
      {source === 'url' && <TextField label={t('io.url')} name="url" type="url" inputMode="url" required value={f.url} onInput={set('url')} error={errors.url} help={t('io.privateHelp')} />}
      {source !== 'tec' && (
        <>
          <SelectField
            label={t('io.status')}
            name="status"
            value={f.status}
            onChange={set('status')}
            options={['publish', 'draft', 'pending', 'private'].map((s) => ({ value: s, label: t(`io.status.${s}`) }))}
          />
          <Checkbox label={t('io.strict')} name="strict" checked={f.strict} onChange={set('strict')} help={t('io.strictHelp')} />
        </>
      )}
      {source === 'tec' && (
        <>
          <TextField label={t('io.from')} name="from" type="url" inputMode="url" required value={f.from} onInput={set('from')} error={errors.from} help={t('io.fromHelp')} />
          <TextField label={t('io.namespace')} name="namespace" value={f.namespace} onInput={set('namespace')} error={errors.namespace} />
          <TextField label={t('io.user')} name="user" value={f.user} onInput={set('user')} error={errors.user} autoComplete="off" />
          <div class={`field${errors.app_password ? ' has-error' : ''}`}>
            <label for="f-app_password">{t('io.appPassword')}</label>
            <input
              id="f-app_password"
              name="app_password"
              type="password"
              autoComplete="off"
              value={f.appPassword}
              onInput={(e) => set('appPassword')((e.target as HTMLInputElement).value)}
              aria-invalid={errors.app_password ? 'true' : undefined}
              aria-describedby={errors.app_password ? 'f-app_password-error' : undefined}
            />
            {errors.app_password && (
              <p class="field-error" id="f-app_password-error" role="alert">
                {errors.app_password}
              </p>
            )}
          </div>
          <TextField label={t('io.author')} name="author" value={f.author} onInput={set('author')} error={errors.author} help={t('io.authorHelp')} />
        </>
      )}
      <Checkbox label={t('io.dryRun')} name="dry_run" checked={f.dryRun} onChange={set('dryRun')} />
      <button type="submit" disabled={busy}>
        {t('io.start')}
      </button>
    </form>
  );
}

function CountsLine({ counts, dryRun }: { counts: Counts; dryRun?: boolean }) {
  return (
    <>
      {t(dryRun ? 'io.countsDry' : 'io.counts', {
        created: counts.created,
        updated: counts.updated,
        unchanged: counts.unchanged,
        skipped: counts.skipped,
        failed: counts.failed,
      })}
    </>
  );
}

/** One import followed until it ends. */
function ImportProgress({ id }: { id: number }) {
  const [job, setJob] = useState<ImportJob | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const res = await api<ImportJob>(`${NS}/imports/${id}`);
        if (stop) return;
        setJob(res.data);
        setError(null);
        if (!ended(res.data)) timer = setTimeout(() => void poll(), POLL_MS);
      } catch (err) {
        if (stop) return;
        setError(err);
        timer = setTimeout(() => void poll(), POLL_MS * 3);
      }
    };
    void poll();
    return () => {
      stop = true;
      if (timer) clearTimeout(timer);
    };
  }, [id]);
  if (error && !job) return <ErrorState error={error} />;
  if (!job) return <Loading />;
  const { done, total, phase } = job.progress;
  return (
    <section class="card" aria-labelledby="import-progress">
      <h2 id="import-progress">
        {t('io.importNamed', { id: job.id, source: job.source })} {job.dry_run && <DryRunMark />}
      </h2>
      {job.dry_run && <p class="help">{t('io.dryRunNote')}</p>}
      <p role="status" aria-live="polite" id="import-status">
        {t(`io.state.${job.status}`)}
        {job.status === 'running' && phase ? ` · ${t('io.phase', { phase, done: formatNumber(done), total: formatNumber(total) })}` : ''}
      </p>
      {!ended(job) && <progress max={Math.max(total, 1)} value={job.status === 'queued' ? undefined : done} aria-labelledby="import-status" />}
      {job.status === 'done' && <progress max={1} value={1} aria-labelledby="import-status" />}
      {job.counts && (
        <p id="import-counts">
          <CountsLine counts={job.counts} dryRun={job.dry_run} />
        </p>
      )}
      {job.counts?.events && <WrittenEvents ids={job.counts.events} />}
      {job.counts?.venues_for_review && job.counts.venues_for_review.length > 0 && (
        <VenueReview id={job.id} dryRun={job.dry_run} review={job.counts.venues_for_review} onChanged={(review) => setJob({ ...job, counts: { ...job.counts!, venues_for_review: review } })} />
      )}
      {job.error && (
        <p class="notice error" role="alert">
          {job.error}
        </p>
      )}
      {job.messages.length > 0 && (
        <details>
          <summary>{t('io.messages', { n: job.messages.length })}</summary>
          <ul class="messages">
            {job.messages.map((m, i) => (
              <li key={i}>
                <strong>{t(job.dry_run && m.type === 'skipped' ? 'io.msg.wouldSkip' : `io.msg.${m.type}`)}</strong> {m.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/** "Dry run": nothing was written. */
function DryRunMark() {
  return <span class="badge">{t('io.dryRun.mark')}</span>;
}


/** The events an import wrote, as links to the editor, a page at a time. */
function WrittenEvents({ ids }: { ids: { created: number[]; updated: number[] } }) {
  const all = [...ids.created.map((id) => ({ id, how: 'created' as const })), ...ids.updated.map((id) => ({ id, how: 'updated' as const }))];
  const [page, setPage] = useState(1);
  if (all.length === 0) return null;
  const pages = Math.ceil(all.length / IDS_PER_PAGE);
  const shown = all.slice((page - 1) * IDS_PER_PAGE, page * IDS_PER_PAGE);
  // The shown page's titles (one request a page; `include` ignores the date window): an id alone says little.
  const titles = useApi<{ events: Array<{ id: number; title: string }> }>(shown.length ? 'calendar/events/v1/events' : null, {
    include: shown.map((e) => e.id).join(','),
    per_page: IDS_PER_PAGE,
    status: 'any',
  });
  const titleOf = new Map((titles.data?.events ?? []).map((e) => [e.id, textOf(e.title)]));
  return (
    <section aria-labelledby="written-events">
      <h3 id="written-events">{t('io.written', { n: all.length })}</h3>
      <ul class="written-events">
        {shown.map((e) => (
          <li key={e.id}>
            <Link to={`/events/${e.id}`}>{t(`io.written.${e.how}`, { id: e.id, title: titleOf.get(e.id) ?? `#${e.id}` })}</Link>
          </li>
        ))}
      </ul>
      {pages > 1 && (
        <nav class="actions" aria-label={t('io.writtenPages')}>
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('io.previous')}
          </button>
          <span aria-live="polite">{t('io.pageOf', { page, pages })}</span>
          <button type="button" class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t('io.next')}
          </button>
        </nav>
      )}
    </section>
  );
}

/** Locations that matched no venue: created here in one click (each, or all), or left as they are. */
function VenueReview({ id, dryRun, review, onChanged }: { id: number; dryRun: boolean; review: Review[]; onChanged: (review: Review[]) => void }) {
  const [busy, setBusy] = useState(false);
  const create = async (location?: string) => {
    setBusy(true);
    try {
      const res = await api<Review[]>(`${NS}/imports/${id}/venues`, { method: 'POST', body: location === undefined ? {} : { location } });
      onChanged(res.data);
      toast(location === undefined ? t('io.review.createdAll') : t('io.review.created', { name: location }));
    } catch (err) {
      toast(messageOf(err), 'error');
    } finally {
      setBusy(false);
    }
  };
  const open = review.filter((r) => r.venue === undefined);
  return (
    <section aria-labelledby="venue-review">
      <h3 id="venue-review">{t('io.review.title', { n: review.length })}</h3>
      <p class="help">{dryRun ? t('io.review.helpDry') : t('io.review.help')}</p>
      <ul class="venue-review">
        {review.map((r) => (
          <li key={r.location}>
            <span>{r.location}</span> <span class="help">{t('io.review.events', { n: r.events.length })}</span>{' '}
            {r.venue !== undefined ? (
              <Link to={`/venues/${r.venue}`}>{t('io.review.open', { name: r.location })}</Link>
            ) : (
              !dryRun && (
                <button type="button" class="secondary" disabled={busy} onClick={() => void create(r.location)} aria-label={t('io.review.createNamed', { name: r.location })}>
                  {t('io.review.create')}
                </button>
              )
            )}
          </li>
        ))}
      </ul>
      {!dryRun && open.length > 1 && (
        <button type="button" disabled={busy} onClick={() => void create()}>
          {t('io.review.createAll', { n: open.length })}
        </button>
      )}
    </section>
  );
}

function History({ onShow, refresh }: { onShow: (id: number) => void; refresh: number }) {
  const page = Number(query.value.get('page') ?? 1) || 1;
  const list = useApi<ImportJob[]>(`${NS}/imports`, { page, per_page: PER_PAGE, r: refresh || undefined });
  const total = Number(list.headers?.get('x-wp-total') ?? 0);
  // Live: every 2 s while an import in it has not ended (its state and progress follow without a
  // reload), else now and then, for imports queued elsewhere (another tab, the CLI, a colleague).
  const live = (list.data ?? []).some((j) => !ended(j));
  useEffect(() => {
    const timer = setInterval(
      () => {
        if (document.visibilityState === 'visible') void list.reload();
      },
      live ? HISTORY_POLL_MS : HISTORY_IDLE_POLL_MS,
    );
    return () => clearInterval(timer);
  }, [live, list.reload]);
  const columns: Column<ImportJob>[] = [
    {
      key: 'source',
      label: t('io.sourceCol'),
      render: (j) => (
        <>
          {`${j.kind === 'tec' ? 'TEC' : 'iCalendar'} · ${j.source}`} {j.dry_run && <DryRunMark />}
        </>
      ),
    },
    {
      key: 'status',
      label: t('io.statusCol'),
      render: (j) =>
        j.status === 'running' && j.progress.total > 0
          ? `${t('io.state.running')} · ${t('io.phase', { phase: j.progress.phase, done: formatNumber(j.progress.done), total: formatNumber(j.progress.total) })}`
          : t(`io.state.${j.status}`),
    },
    { key: 'counts', label: t('io.countsCol'), render: (j) => (j.counts ? <CountsLine counts={j.counts} dryRun={j.dry_run} /> : '—'), optional: true },
    { key: 'created', label: t('io.createdCol'), render: (j) => formatDate(j.created_gmt), optional: true },
    {
      key: 'show',
      label: t('io.actions'),
      render: (j) => (
        <button type="button" class="secondary" onClick={() => onShow(j.id)} aria-label={t('io.showNamed', { id: j.id })}>
          {t('io.show')}
        </button>
      ),
    },
  ];
  return (
    <section class="card" aria-labelledby="import-history">
      <h2 id="import-history">{t('io.history')}</h2>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable
          caption={t('io.history')}
          columns={columns}
          rows={list.data}
          loading={list.loading && !list.data}
          empty={t('io.noHistory')}
          paging={{ page, total, totalPages: Math.ceil(total / PER_PAGE), onPage: (p) => setQuery({ page: p }) }}
        />
      )}
    </section>
  );
}

async function findCategories(text: string): Promise<Choice[]> {
  const res = await api<{ categories: Array<{ id: number; name: string; slug: string }> }>('calendar/events/v1/categories', {
    query: { search: text.trim() || undefined, per_page: 20, hide_empty: false },
  });
  return [{ value: '', label: t('io.export.anyCategory') }, ...res.data.categories.map((c) => ({ value: String(c.id), label: c.name, hint: c.slug }))];
}

function Exports() {
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [category, setCategory] = useState<{ id: string; name: string }>({ id: '', name: '' });
  const backwards = start !== '' && end !== '' && end < start;
  const link = (format: 'json' | 'ics') =>
    apiUrl(`${NS}/export`, {
      format,
      ...(format === 'ics' ? { start_date: start || undefined, end_date: end || undefined, category: category.id || undefined } : {}),
      _wpnonce: boot.nonce,
    });
  return (
    <section class="card" aria-labelledby="exports">
      <h2 id="exports">{t('io.exportTitle')}</h2>
      <p class="help">{t('io.exportHelp')}</p>
      <p class="actions">
        <a class="button" href={link('json')} download id="export-json">
          {t('io.exportJson')}
        </a>
      </p>
      <Fieldset legend={t('io.export.icsTitle')}>
        <div class="field-row">
          <TextField label={t('io.export.start')} name="export-start" type="date" value={start} onInput={setStart} />
          <TextField label={t('io.export.end')} name="export-end" type="date" value={end} onInput={setEnd} error={backwards ? t('io.export.backwards') : undefined} />
        </div>
        <Combobox
          label={t('io.export.category')}
          name="export-category"
          text={category.name}
          search={findCategories}
          delay={250}
          onPick={(c) => setCategory({ id: c.value, name: c.value ? c.label : '' })}
          help={t('io.export.categoryHelp')}
        />
        <p class="help">{t('io.export.named', { name: boot.siteName ?? '' })}</p>
        <p class="actions">
          {backwards ? (
            <span class="button secondary" aria-disabled="true" id="export-ics">
              {t('io.exportIcs')}
            </span>
          ) : (
            <a class="button secondary" href={link('ics')} download id="export-ics">
              {t('io.exportIcs')}
            </a>
          )}
        </p>
      </Fieldset>
    </section>
  );
}

function ImportExport() {
  const watched = Number(query.value.get('import') ?? 0) || 0;
  const [refresh, setRefresh] = useState(0);
  const show = (id: number) => setQuery({ import: id });
  return (
    <>
      <PageHeader title={t('io.title')} />
      <ImportForm
        onQueued={(job) => {
          show(job.id);
          setRefresh((n) => n + 1);
        }}
      />
      {watched > 0 && <ImportProgress key={watched} id={watched} />}
      <History onShow={show} refresh={refresh} />
      <Exports />
    </>
  );
}

export const screens: ScreenDef[] = [{ path: '/import-export', nav: { labelKey: 'io.nav', group: 'system', order: 30 }, roles: ['administrator'], component: ImportExport }];
