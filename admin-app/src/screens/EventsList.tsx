/**
 * The events list: search and filters (status, category, tag, venue, date range) kept in the URL,
 * sorted by start (the API's order; newest first is read from the end of the API's pages), paged
 * with `X-WP-Total`, bulk actions (publish, trash, restore, delete permanently: one API call per event, with a progress
 * summary and each failure named), and others' changes shown within seconds: the list's
 * `X-Sync-Token` is polled with `?sync_token=`, and the page reloads when something changed.
 * On a narrow screen the filters fold behind a "Filters" disclosure (saying how many are in use),
 * so the list itself is on the first screen; on a wide one they are always shown. A series' dates
 * on a page are one row that opens into them (SeriesRows.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem } from '../lib/api';
import { NS, STATUSES, type EventList, type EventRecord, type TermRef } from '../lib/events';
import { formatDate, t } from '../lib/i18n';
import { query, setQuery } from '../lib/router';
import { can } from '../lib/session';
import { useApi } from '../components/useApi';
import { PageHeader } from '../components/PageHeader';
import { Link } from '../components/Link';
import { DataTable, type Column, type Sort } from '../components/DataTable';
import { SelectField, TextField } from '../components/Fields';
import { ErrorState } from '../components/States';
import { confirmDialog } from '../components/ConfirmDialog';
import { toast } from '../components/Toast';
import { groupSeries, seriesBulk, SeriesTitle, type ListRow } from './SeriesRows';

const PER_PAGE = 20;
/** The width under which the filters fold (the layout's own narrow breakpoint). */
const NARROW = '(max-width: 780px)';

/** Whether the window is narrow, following resizes. */
function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => typeof matchMedia !== 'undefined' && matchMedia(NARROW).matches);
  useEffect(() => {
    const mq = matchMedia(NARROW);
    const on = () => setNarrow(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return narrow;
}
const POLL_MS = 3000;

type Query = Record<string, string | number | undefined>;

/** The API query of the list's filters. */
function listQuery(q: URLSearchParams): Query {
  const from = q.get('from');
  const to = q.get('to');
  return {
    search: q.get('search') || undefined,
    status: q.get('status') || 'any',
    categories: q.get('category') || undefined,
    tags: q.get('tag') || undefined,
    venue: q.get('venue') || undefined,
    start_date: from ? `${from} 00:00:00` : undefined,
    end_date: to ? `${to} 23:59:59` : undefined,
  };
}

/** One page of the list, newest first when `desc` (the API sorts by start ascending only). */
async function loadPage(filters: Query, page: number, desc: boolean): Promise<{ rows: EventRecord[]; total: number; totalPages: number; token: string | null }> {
  const first = await api<EventList>(`${NS}/events`, { query: { ...filters, page: desc ? 1 : page, per_page: PER_PAGE } });
  const total = Number(first.headers.get('x-wp-total') ?? first.data.total ?? 0);
  const totalPages = Math.max(1, Math.ceil(total / PER_PAGE));
  const token = first.headers.get('x-sync-token');
  if (!desc) return { rows: first.data.events, total, totalPages, token };
  const end = Math.max(0, total - (page - 1) * PER_PAGE);
  const start = Math.max(0, total - page * PER_PAGE);
  if (end === 0) return { rows: [], total, totalPages, token };
  const p1 = Math.floor(start / PER_PAGE) + 1;
  const p2 = Math.floor((end - 1) / PER_PAGE) + 1;
  const pages: EventRecord[] = [];
  for (let p = p1; p <= p2; p++) pages.push(...(p === 1 ? first.data.events : (await api<EventList>(`${NS}/events`, { query: { ...filters, page: p, per_page: PER_PAGE } })).data.events));
  const offset = (p1 - 1) * PER_PAGE;
  return { rows: pages.slice(start - offset, end - offset).reverse(), total, totalPages, token };
}

type Bulk = 'publish' | 'trash' | 'restore' | 'delete';
type Progress = { done: number; total: number; failed: Array<{ id: number; title: string; message: string }>; action: Bulk };

/**
 * Others' changes: polls the list's sync token; a change reloads the page shown (`reloadRef`).
 * Says when the list was last updated so.
 */
function useChangesPoll(key: string, filters: Query, token: { current: string | null }, reloadRef: { current: () => Promise<void> }): string {
  const [updated, setUpdated] = useState('');
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      if (token.current && !document.hidden) {
        try {
          const res = await api<EventList>(`${NS}/events`, { query: { ...filters, start_date: filters.start_date ?? undefined, sync_token: token.current, per_page: 1 } });
          const changed = Number(res.headers.get('x-wp-total') ?? res.data.events.length) > 0;
          token.current = res.headers.get('x-sync-token') ?? token.current;
          if (changed && !stopped) {
            await reloadRef.current();
            setUpdated(t('events.updated', { time: formatDate(Date.now(), { timeStyle: 'medium' }) }));
          }
        } catch (e) {
          if (e instanceof ApiProblem && e.status === 410) await reloadRef.current();
        }
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key]);
  return updated;
}

/** The list's columns; a series row's title opens into its dates (SeriesRows.tsx). */
function eventColumns(filters: Query): Column<EventRecord>[] {
  return [
    {
      key: 'title',
      label: t('events.col.title'),
      render: (e) =>
        (e as ListRow).seriesRow ? (
          <SeriesTitle row={e as ListRow} filters={filters} />
        ) : (
          <>
            <Link to={`/events/${e.id}`}>{e.title || t('events.untitled')}</Link>
            {e.recurring_event_id ? <span class="badge">{t('events.occurrence')}</span> : null}
          </>
        ),
    },
    {
      key: 'start',
      label: t('events.col.start'),
      sort: 'start',
      render: (e) => formatDate(e.utc_start_date, { dateStyle: 'medium', timeStyle: e.all_day ? undefined : 'short', timeZone: e.timezone || undefined }),
    },
    { key: 'status', label: t('events.col.status'), render: (e) => <span class={`badge ${e.status}`}>{t(`status.${e.status}`)}</span> },
    { key: 'venue', label: t('events.col.venue'), optional: true, render: (e) => ('venue' in e.venue ? (e.venue as { venue: string }).venue : '—') },
    { key: 'categories', label: t('events.col.categories'), optional: true, render: (e) => e.categories.map((c) => c.name).join(', ') || '—' },
  ];
}

/** The search and filters, kept in the URL; folded behind a disclosure on a narrow screen. */
function EventFilters({ q }: { q: URLSearchParams }) {
  const [search, setSearch] = useState(q.get('search') ?? '');
  const categories = useApi<{ categories: TermRef[] }>(`${NS}/categories`, { per_page: 100, hide_empty: false });
  const tags = useApi<{ tags: TermRef[] }>(`${NS}/tags`, { per_page: 100, hide_empty: false });
  const venues = useApi<{ venues: Array<{ id: number; venue: string }> }>(`${NS}/venues`, { per_page: 100, context: 'edit' });
  const status = q.get('status') ?? '';
  const narrow = useNarrow();
  const [unfolded, setUnfolded] = useState(false);
  const inUse = ['search', 'status', 'category', 'tag', 'venue', 'from', 'to'].filter((k) => q.get(k)).length;
  const termOptions = (list: TermRef[] | undefined) => [{ value: '', label: t('events.filter.all') }, ...(list ?? []).map((c) => ({ value: String(c.id), label: c.name }))];
  return (
    <details class="filters-fold" open={!narrow || unfolded} onToggle={(e) => narrow && setUnfolded((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('events.filtersToggle', { n: inUse })}</summary>
      <form
        class="card filters"
        role="search"
        aria-label={t('events.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ search, page: undefined });
        }}
      >
        <TextField label={t('common.search')} name="search" type="search" value={search} onInput={setSearch} />
        <SelectField
          label={t('events.col.status')}
          name="status"
          value={status}
          onChange={(v) => setQuery({ status: v, page: undefined })}
          options={[{ value: '', label: t('status.any') }, ...STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))]}
        />
        <SelectField
          label={t('events.col.categories')}
          name="category"
          value={q.get('category') ?? ''}
          onChange={(v) => setQuery({ category: v, page: undefined })}
          options={termOptions(categories.data?.categories)}
        />
        <SelectField label={t('events.filter.tag')} name="tag" value={q.get('tag') ?? ''} onChange={(v) => setQuery({ tag: v, page: undefined })} options={termOptions(tags.data?.tags)} />
        <SelectField
          label={t('events.col.venue')}
          name="venue"
          value={q.get('venue') ?? ''}
          onChange={(v) => setQuery({ venue: v, page: undefined })}
          options={[{ value: '', label: t('events.filter.all') }, ...(venues.data?.venues ?? []).map((v) => ({ value: String(v.id), label: v.venue }))]}
        />
        <TextField label={t('events.filter.from')} name="from" type="date" value={q.get('from') ?? ''} onInput={(v) => setQuery({ from: v, page: undefined })} />
        <TextField label={t('events.filter.to')} name="to" type="date" value={q.get('to') ?? ''} onInput={(v) => setQuery({ to: v, page: undefined })} />
        <div class="actions">
          <button type="submit">{t('common.search')}</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setSearch('');
              setQuery({ search: undefined, status: undefined, category: undefined, tag: undefined, venue: undefined, from: undefined, to: undefined, page: undefined });
            }}
          >
            {t('common.clear')}
          </button>
        </div>
      </form>
    </details>
  );
}

/** A bulk action's progress, and each failure named. */
function BulkProgress({ progress }: { progress: Progress }) {
  return (
    <div class={`notice ${progress.failed.length ? 'error' : 'success'}`} role="status" aria-live="polite">
      <p>
        <progress class="progress" max={progress.total} value={progress.done} aria-label={t('events.bulk.progressLabel')} />{' '}
        {t('events.bulk.progress', { done: progress.done, n: progress.total, failed: progress.failed.length })}
      </p>
      {progress.failed.length > 0 && (
        <ul>
          {progress.failed.map((f) => (
            <li key={f.id}>
              {f.title || f.id}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function EventsList() {
  const q = query.value;
  const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
  const sort: Sort = { by: 'start', order: q.get('order') === 'desc' ? 'desc' : 'asc' };
  const filters = listQuery(q);
  const key = JSON.stringify([filters, page, sort.order]);
  const [state, setState] = useState<{ rows: EventRecord[] | null; total: number; totalPages: number; error: unknown; loading: boolean }>({
    rows: null,
    total: 0,
    totalPages: 0,
    error: null,
    loading: true,
  });
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [progress, setProgress] = useState<Progress | null>(null);
  const token = useRef<string | null>(null);
  const reloadRef = useRef<() => Promise<void>>(async () => {});

  const reload = async () => {
    setState((s) => ({ ...s, loading: true, error: null }));
    try {
      const r = await loadPage(filters, page, sort.order === 'desc');
      token.current = r.token;
      setState({ rows: r.rows, total: r.total, totalPages: r.totalPages, error: null, loading: false });
      setSelected((sel) => new Set([...sel].filter((id) => r.rows.some((row) => row.id === id))));
    } catch (e) {
      setState((s) => ({ ...s, error: e, loading: false }));
    }
  };
  reloadRef.current = reload;
  useEffect(() => {
    void reload();
  }, [key]);
  const updated = useChangesPoll(key, filters, token, reloadRef);

  // A series' occurrences on the page are one row (SeriesRows.tsx).
  const shownRows = groupSeries(state.rows ?? []);
  const runBulk = async (action: Bulk) => {
    const rows = shownRows.filter((r) => selected.has(r.id));
    if (rows.length === 0) return;
    if (action === 'trash' && !(await confirmDialog({ title: t('events.bulk.trash'), message: t('events.bulk.trashQ', { n: rows.length }), confirm: t('events.bulk.trash'), danger: true }))) return;
    if (action === 'delete' && !(await confirmDialog({ title: t('events.bulk.delete'), message: t('events.bulk.deleteQ', { n: rows.length }), confirm: t('events.bulk.delete'), danger: true })))
      return;
    const failed: Array<{ id: number; title: string; message: string }> = [];
    setProgress({ done: 0, total: rows.length, failed, action });
    let done = 0;
    for (const row of rows) {
      try {
        // A series row stands for its whole series (SeriesRows.tsx).
        if ((row as ListRow).seriesRow) await seriesBulk(action, row as ListRow);
        else if (action === 'trash') await api(`${NS}/events/${row.id}`, { method: 'DELETE' });
        // Delete permanently (from the trash): the admin namespace's route; a series goes with its occurrences.
        else if (action === 'delete') await api(`calendar/admin/v1/events/${row.id}`, { method: 'DELETE' });
        else await api(`${NS}/events/${row.id}`, { method: 'POST', body: { status: action === 'publish' ? 'publish' : 'draft' } });
      } catch (e) {
        failed.push({ id: row.id, title: row.title, message: e instanceof Error ? e.message : String(e) });
      }
      done++;
      setProgress({ done, total: rows.length, failed: [...failed], action });
    }
    toast(t('events.bulk.done', { ok: rows.length - failed.length, n: rows.length }), failed.length ? 'error' : 'success');
    setSelected(new Set());
    await reload();
  };

  const status = q.get('status') ?? '';
  const bulkActions: Array<{ value: Bulk; label: string }> = [];
  if (status === 'trash') bulkActions.push({ value: 'restore', label: t('events.bulk.restore') }, { value: 'delete', label: t('events.bulk.delete') });
  else {
    if (can('publish_tribe_events')) bulkActions.push({ value: 'publish', label: t('events.bulk.publish') });
    bulkActions.push({ value: 'trash', label: t('events.bulk.trash') });
  }
  const [bulk, setBulk] = useState<string>('');
  return (
    <>
      <PageHeader title={t('events.title')}>
        <Link to="/events/new" class="button">
          {t('events.add')}
        </Link>
      </PageHeader>
      <EventFilters q={q} />
      <p class="help">{t('events.windowHelp')}</p>
      <div class="bulk">
        <SelectField label={t('events.bulk.label')} name="bulk" value={bulk} onChange={setBulk} options={[{ value: '', label: t('events.bulk.choose') }, ...bulkActions]} />
        <button type="button" disabled={!bulk || selected.size === 0 || (progress !== null && progress.done < progress.total)} onClick={() => void runBulk(bulk as Bulk)}>
          {t('events.bulk.apply', { n: selected.size })}
        </button>
      </div>
      {progress && <BulkProgress progress={progress} />}
      <p class="sr-only" role="status" aria-live="polite">
        {updated}
      </p>
      {updated && (
        <p class="help" aria-hidden="true">
          {updated}
        </p>
      )}
      {state.error ? <ErrorState error={state.error} onRetry={() => void reload()} /> : null}
      <DataTable
        caption={t('events.title')}
        columns={eventColumns(filters)}
        rows={state.rows ? shownRows : null}
        loading={state.loading && state.rows !== null}
        empty={t('events.empty')}
        sort={sort}
        onSort={(s) => setQuery({ order: s.order === 'desc' ? 'desc' : undefined, page: undefined })}
        selected={selected}
        onSelect={setSelected}
        rowLabel={(e) => e.title}
        paging={{ page, totalPages: state.totalPages, total: state.total, onPage: (p) => setQuery({ page: p === 1 ? undefined : p }) }}
      />
    </>
  );
}
