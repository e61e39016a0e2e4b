/**
 * The dashboard: upcoming events, drafts, what waits for review, and recent changes (the changes
 * to the event list since this browser's last visit, then live: the list's `X-Sync-Token` is kept
 * in localStorage and polled every few seconds with `?sync_token=`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { NS, isTombstone, type EventList, type EventRecord } from '../lib/events';
import { formatDate, t } from '../lib/i18n';
import { currentUser, keptName } from '../lib/session';
import { useApi } from '../components/useApi';
import { PageHeader } from '../components/PageHeader';
import { Link } from '../components/Link';
import { Empty, ErrorState, Loading } from '../components/States';

const FAR_PAST = '1900-01-01 00:00:00';
const FAR_FUTURE = '2200-01-01 00:00:00';
const POLL_MS = 4000;

function EventLine({ e }: { e: EventRecord }) {
  return (
    <li>
      <Link to={`/events/${e.id}`}>{e.title || t('events.untitled')}</Link>
      <span class="muted"> · {formatDate(e.utc_start_date, { dateStyle: 'medium', timeStyle: e.all_day ? undefined : 'short', timeZone: e.timezone || undefined })}</span>
    </li>
  );
}

function Box({ title, id, path, query, empty, more }: { title: string; id: string; path: string; query: Record<string, string | number>; empty: string; more: string }) {
  const { data, error, loading, reload } = useApi<EventList>(path, query);
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {error ? <ErrorState error={error} onRetry={reload} /> : loading && !data ? <Loading /> : data && data.events.length === 0 ? <Empty>{empty}</Empty> : null}
      {data && data.events.length > 0 && (
        <>
          <ul>
            {data.events.map((e) => (
              <EventLine key={e.id} e={e} />
            ))}
          </ul>
          <p>
            <Link to={more}>{t('dashboard.all', { n: data.total })}</Link>
          </p>
        </>
      )}
    </section>
  );
}

interface Change {
  id: number;
  title: string;
  status: string;
  when: number;
}

function RecentChanges() {
  // Kept per calendar: a sync token of one calendar is refused in another (410), and would start it over.
  const key = keptName(`calendar-admin-sync-${currentUser.value.id}`);
  const [changes, setChanges] = useState<Change[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let token: string | null = localStorage.getItem(key);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const seen: Change[] = [];
    const poll = async () => {
      try {
        if (!token) {
          const first = await api<EventList>(`${NS}/events`, { query: { per_page: 1, status: 'any' } });
          token = first.headers.get('x-sync-token');
        } else {
          let more = true;
          while (more && !stopped) {
            const res: { data: EventList; headers: Headers } = await api<EventList>(`${NS}/events`, {
              query: { sync_token: token ?? undefined, per_page: 50, status: 'any', start_date: FAR_PAST, end_date: FAR_FUTURE },
            });
            for (const e of res.data.events) {
              const i = seen.findIndex((c) => c.id === e.id);
              if (i !== -1) seen.splice(i, 1);
              seen.unshift({ id: e.id, title: isTombstone(e) ? '' : e.title, status: e.status, when: Date.now() });
            }
            token = res.headers.get('x-sync-token') ?? token;
            more = res.headers.get('x-sync-more') === 'true';
          }
        }
        if (token) localStorage.setItem(key, token);
        if (!stopped) {
          setChanges(seen.slice(0, 15));
          setError(null);
        }
      } catch (e) {
        if ((e as { status?: number }).status === 410) token = null;
        else if (!stopped) setError(e);
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return (
    <section class="card" aria-labelledby="dash-recent">
      <h2 id="dash-recent">{t('dashboard.recent')}</h2>
      <p class="help">{t('dashboard.recentHelp')}</p>
      {error ? <ErrorState error={error} /> : null}
      {changes === null ? (
        <Loading />
      ) : changes.length === 0 ? (
        <Empty>{t('dashboard.noRecent')}</Empty>
      ) : (
        <ul aria-live="polite">
          {changes.map((c) => (
            <li key={c.id}>
              {c.title ? <Link to={`/events/${c.id}`}>{c.title}</Link> : t('dashboard.removed', { id: c.id })} <span class={`badge ${c.status}`}>{t(`status.${c.status}`)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Dashboard() {
  return (
    <>
      <PageHeader title={t('dashboard.title')}>
        <Link to="/events/new" class="button">
          {t('events.add')}
        </Link>
      </PageHeader>
      <div class="dashboard">
        <Box title={t('dashboard.upcoming')} id="dash-upcoming" path={`${NS}/events`} query={{ per_page: 5, status: 'publish' }} empty={t('dashboard.noUpcoming')} more="/events?status=publish" />
        <Box
          title={t('dashboard.drafts')}
          id="dash-drafts"
          path={`${NS}/events`}
          query={{ per_page: 5, status: 'draft', start_date: FAR_PAST, end_date: FAR_FUTURE }}
          empty={t('dashboard.noDrafts')}
          more="/events?status=draft&from=1900-01-01"
        />
        <Box
          title={t('dashboard.pending')}
          id="dash-pending"
          path={`${NS}/events`}
          query={{ per_page: 5, status: 'pending', start_date: FAR_PAST, end_date: FAR_FUTURE }}
          empty={t('dashboard.noPending')}
          more="/events?status=pending&from=1900-01-01"
        />
        <RecentChanges />
      </div>
    </>
  );
}
