/**
 * The events list's series rows: a page's occurrences of one recurring event are shown as one row
 * (the series' title, "Repeats weekly · 12 dates", its next date) with a disclosure that opens its
 * dates, loaded when opened and paged ("More dates"). Bulk actions on such a row act on the whole
 * series: trash and restore through the admin routes (one transaction), publish on the series,
 * delete permanently the series with its occurrences.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { NS, type EventList, type EventRecord } from '../lib/events';
import { formatDate, t } from '../lib/i18n';
import { Link } from '../components/Link';
import { seriesAction } from './EventActions';
import './SeriesRows.css';

/** A row of the list: an event, or the first occurrence on the page of a series standing for it. */
export type ListRow = EventRecord & { seriesRow?: true };

type Query = Record<string, string | number | undefined>;

const DATES_PER_PAGE = 10;

/** The page's rows with each series' occurrences folded into its first one. */
export function groupSeries(rows: EventRecord[]): ListRow[] {
  const seen = new Set<number>();
  const out: ListRow[] = [];
  for (const row of rows) {
    const series = row.recurring_event_id;
    if (!series) {
      out.push(row);
      continue;
    }
    if (seen.has(series)) continue;
    seen.add(series);
    out.push({ ...row, seriesRow: true });
  }
  return out;
}

/** The rules' frequency in the catalogue's words ("weekly"). */
function frequencyOf(lines: string[] | undefined): string {
  const freq = /FREQ=(DAILY|WEEKLY|MONTHLY|YEARLY)/.exec((lines ?? []).find((l) => l.startsWith('RRULE:')) ?? '')?.[1];
  return t(freq ? `series.freq.${freq}` : 'series.freq.custom');
}

const when = (e: EventRecord) => formatDate(e.utc_start_date, { dateStyle: 'medium', timeStyle: e.all_day ? undefined : 'short', timeZone: e.timezone || undefined });

/** The title cell of a series row: its summary and the disclosure of its dates. */
export function SeriesTitle({ row, filters }: { row: ListRow; filters: Query }) {
  const seriesId = row.recurring_event_id!;
  const query = { ...filters, post_parent: seriesId };
  const [summary, setSummary] = useState<{ total: number; next: EventRecord | undefined } | null>(null);
  const [open, setOpen] = useState(false);
  const [dates, setDates] = useState<{ events: EventRecord[]; page: number; totalPages: number } | null>(null);
  const [loading, setLoading] = useState(false);
  const key = JSON.stringify(query);
  useEffect(() => {
    let live = true;
    void api<EventList>(`${NS}/events`, { query: { ...query, per_page: 1 } }).then(
      (res) => live && setSummary({ total: Number(res.headers.get('x-wp-total') ?? res.data.total ?? 0), next: res.data.events[0] }),
      () => live && setSummary(null),
    );
    setDates(null);
    return () => {
      live = false;
    };
  }, [key]);

  const load = async (page: number) => {
    setLoading(true);
    try {
      const res = await api<EventList>(`${NS}/events`, { query: { ...query, per_page: DATES_PER_PAGE, page } });
      const totalPages = Number(res.headers.get('x-wp-totalpages') ?? 1);
      setDates((d) => ({ events: page === 1 || !d ? res.data.events : [...d.events, ...res.data.events], page, totalPages }));
    } finally {
      setLoading(false);
    }
  };
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next && !dates) void load(1);
  };
  const panel = `series-dates-${seriesId}`;
  return (
    <div class="series-row">
      <Link to={`/events/${seriesId}`}>{row.title || t('events.untitled')}</Link> <span class="badge">{t('series.badge')}</span>
      <p class="series-summary">
        {t('series.repeats', { freq: frequencyOf(row.recurrence), n: summary?.total ?? 0 })}
        {summary?.next ? <> · {t('series.next', { date: when(summary.next) })}</> : null}
      </p>
      <button type="button" class="link series-toggle" aria-expanded={open} aria-controls={panel} onClick={toggle}>
        {open ? t('series.hide') : t('series.show')}
        <span class="sr-only"> {t('series.datesOf', { title: row.title })}</span>
      </button>
      <div id={panel} hidden={!open}>
        {loading && !dates ? <p class="help">{t('series.loading')}</p> : null}
        {dates && (
          <>
            <ul class="series-dates" aria-label={t('series.datesOf', { title: row.title })}>
              {dates.events.map((e) => (
                <li key={e.id}>
                  <Link to={`/events/${e.id}`}>{when(e)}</Link> <span class={`badge ${e.status}`}>{t(`status.${e.status}`)}</span>
                </li>
              ))}
            </ul>
            {dates.page < dates.totalPages && (
              <button type="button" class="secondary" disabled={loading} onClick={() => void load(dates.page + 1)}>
                {t('series.more')}
              </button>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/** A bulk action on a series row: the whole series. */
export async function seriesBulk(action: 'publish' | 'trash' | 'restore' | 'delete', row: ListRow): Promise<void> {
  const seriesId = row.recurring_event_id!;
  if (action === 'trash' || action === 'restore') await seriesAction(action, row.id, 'all');
  else if (action === 'delete') await api(`calendar/admin/v1/events/${seriesId}`, { method: 'DELETE' });
  else await api(`${NS}/events/${seriesId}`, { method: 'POST', body: { status: 'publish' } });
}
