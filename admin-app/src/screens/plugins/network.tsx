/**
 * The network screen (`/network`), over `calendar/network/v1`:
 *
 * - "Propose an event to another calendar" (administrators, editors, authors): one of this
 *   calendar's published events (a searchable picker over `calendar/events/v1/events`, an author's
 *   own events only), the other calendar's slug, Propose (`POST proposals`); the answer (the pending
 *   submission, the calendar's name) or the refusal, at its field or for the form, in the server's
 *   words;
 * - "Calendars this calendar follows" (administrators only: the routes are theirs): the follows
 *   (`GET follows`) with how many of each calendar's events are published here (`copies`; linked to
 *   them in the events list by their tag `from: {its name}`) and how many its events quota refused (`not_copied`), Unfollow after a confirmation (`DELETE follows/{slug}`), and a form to
 *   follow a calendar, all its events or some of its categories (`POST follows`), which says what
 *   happened: followed, its categories changed, events the events quota refused.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, fieldErrors } from '../../lib/api';
import { formatDate, t } from '../../lib/i18n';
import type { ScreenDef } from '../../lib/screens';
import { textOf } from '../../lib/text';
import { can, currentUser, hasRole } from '../../lib/session';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { Link } from '../../components/Link';
import { DataTable, type Column } from '../../components/DataTable';
import { FormErrors, TextField } from '../../components/Fields';
import { Combobox, type Choice } from '../../components/Combobox';
import { ErrorState } from '../../components/States';
import { confirmDialog } from '../../components/ConfirmDialog';
import { toast } from '../../components/Toast';

const NS = 'calendar/network/v1';
const EVENTS = 'calendar/events/v1';

interface CalendarRef {
  id: number;
  slug: string;
  name: string;
  url: string;
}

interface Follow {
  id: number;
  /** null: the calendar was deleted (its follow ends at the network job's next step) */
  calendar: CalendarRef | null;
  categories: string[];
  created: string;
  /** the calendar's events this calendar's events quota refused at the last sync (copied once there is room) */
  not_copied: number;
  copies: number;
}

interface Proposal {
  id: number;
  status: string;
  to: { slug: string; name: string };
  event_id: number;
}

interface EventSummary {
  id: number;
  title: string;
  author: number | string;
  timezone: string;
  utc_start_date: string;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Move the focus to a field once the error shown under it is rendered. */
function useFocusOnError(errors: Record<string, string>, order: string[]) {
  useEffect(() => {
    const first = order.find((name) => errors[name]);
    if (first) document.getElementById(`f-${first}`)?.focus();
  }, [errors]);
}

/**
 * Where a refusal belongs: a field of the form (`fields`; by the API's code, or the fields a 400
 * names), else the form as a whole. The message is the server's.
 */
function placeError(err: unknown, fields: string[], byCode: Record<string, string>): { fields: Record<string, string>; message?: string } {
  const named = fieldErrors(err);
  if (Object.keys(named).length > 0 && Object.keys(named).every((name) => fields.includes(name))) return { fields: named };
  const field = err instanceof ApiProblem ? byCode[err.code] : undefined;
  return field ? { fields: { [field]: messageOf(err) } } : { fields: {}, message: messageOf(err) };
}

/** Pages of the events list an author's picker reads at most, looking for their own events among everyone's (the list has no author filter). */
const OWN_PAGES = 5;

/** This calendar's published events matching `text` (an author's own only: they may propose no other). */
async function findEvents(text: string): Promise<Choice[]> {
  const everyone = can('edit_others_tribe_events');
  const mayPropose: EventSummary[] = [];
  for (let page = 1; page <= (everyone ? 1 : OWN_PAGES) && mayPropose.length < 20; page++) {
    const res = await api<{ events: EventSummary[]; total_pages?: number }>(`${EVENTS}/events`, { query: { search: text.trim() || undefined, status: 'publish', per_page: everyone ? 20 : 50, page } });
    mayPropose.push(...(everyone ? res.data.events : res.data.events.filter((e) => Number(e.author) === currentUser.value.id)));
    if (page >= Number(res.headers.get('x-wp-totalpages') ?? res.data.total_pages ?? 1)) break;
  }
  return mayPropose.slice(0, 20).map((e) => ({
    value: String(e.id),
    label: textOf(e.title) || `#${e.id}`,
    hint: formatDate(e.utc_start_date, { dateStyle: 'medium', timeStyle: 'short', timeZone: e.timezone }),
  }));
}

/** The refusals of a proposal that belong to one field (the others are the pair's: the form's). */
const PROPOSAL_FIELDS: Record<string, string> = {
  'rest-event-not-found': 'event',
  network_not_public: 'event',
  rest_forbidden: 'event',
  calendar_not_found: 'to',
  network_same_calendar: 'to',
  network_calendar_suspended: 'to',
  network_proposals_closed: 'to',
};

function ProposeSection() {
  const [event, setEvent] = useState<Choice | null>(null);
  const [to, setTo] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [made, setMade] = useState<{ proposal: Proposal; title: string } | null>(null);
  const [busy, setBusy] = useState(false);
  useFocusOnError(errors, ['event', 'to']);

  const submit = async (e: Event) => {
    e.preventDefault();
    setMessage(undefined);
    setMade(null);
    const slug = to.trim().toLowerCase();
    const missing: Record<string, string> = {};
    if (!event) missing.event = t('network.propose.eventMissing');
    if (!slug) missing.to = t('network.propose.toMissing');
    setErrors(missing);
    if (!event || !slug) return;
    setBusy(true);
    try {
      const res = await api<Proposal>(`${NS}/proposals`, { method: 'POST', body: { event: Number(event.value), to: slug } });
      setMade({ proposal: res.data, title: event.label });
    } catch (err) {
      const placed = placeError(err, ['event', 'to'], PROPOSAL_FIELDS);
      setErrors(placed.fields);
      setMessage(placed.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="network-propose">
      <h2 id="network-propose">{t('network.propose.title')}</h2>
      <p class="help">{t('network.propose.help')}</p>
      <form onSubmit={submit} noValidate>
        <FormErrors message={message} fields={{}} />
        <Combobox
          label={t('network.propose.event')}
          name="event"
          text={event?.label ?? ''}
          search={findEvents}
          delay={250}
          onPick={(c) => {
            setEvent(c);
            setErrors((old) => Object.fromEntries(Object.entries(old).filter(([k]) => k !== 'event')));
          }}
          help={t('network.propose.eventHelp')}
          error={errors.event}
        />
        <TextField label={t('network.propose.to')} name="to" value={to} onInput={setTo} autoComplete="off" help={t('network.propose.toHelp')} error={errors.to} />
        <button type="submit" disabled={busy}>
          {busy ? t('network.propose.sending') : t('network.propose.submit')}
        </button>
      </form>
      <div role="status" aria-live="polite" id="network-proposal-result">
        {made && (
          <div class="notice success">
            <p>{t('network.propose.done', { title: made.title, name: made.proposal.to.name })}</p>
            <p class="help">{t('network.propose.doneDetail', { id: made.proposal.id, status: t(`status.${made.proposal.status}`) })}</p>
          </div>
        )}
      </div>
    </section>
  );
}

/**
 * How many of a followed calendar's events are published here (`copies`, counted by the server from
 * each copy's tie to the follow), as a link to them in the events list by their `from:` tag when a tag
 * of the calendar's current name is found (after a rename, the copies are retagged at the network job's next step).
 */
function CopiesHere({ name, count, version }: { name: string; count: number; version: number }) {
  const [tag, setTag] = useState<number | null>(null);
  useEffect(() => {
    let stale = false;
    setTag(null);
    if (count === 0) return;
    const wanted = `from: ${name}`;
    api<{ tags: Array<{ id: number; name: string }> }>(`${EVENTS}/tags`, { query: { search: wanted, per_page: 100, hide_empty: false } }).then(
      (tags) => !stale && setTag(tags.data.tags.find((x) => textOf(x.name) === wanted)?.id ?? null),
      // Without the tag the count is shown without its link.
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, [name, count, version]);
  const text = t('network.follows.copiesCount', { n: count });
  return tag === null || count === 0 ? <span>{text}</span> : <Link to={`/events?tag=${tag}&status=publish`}>{text}</Link>;
}

/** The refusals of a follow that belong to the calendar's slug. */
const FOLLOW_FIELDS: Record<string, string> = {
  calendar_not_found: 'calendar',
  network_same_calendar: 'calendar',
  network_calendar_suspended: 'calendar',
};

function FollowForm({ onFollowed }: { onFollowed: () => void }) {
  const [slug, setSlug] = useState('');
  const [categories, setCategories] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [answer, setAnswer] = useState<{ follow: Follow; made: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  useFocusOnError(errors, ['calendar', 'categories']);

  const submit = async (e: Event) => {
    e.preventDefault();
    setMessage(undefined);
    setAnswer(null);
    const calendar = slug.trim().toLowerCase();
    if (!calendar) return setErrors({ calendar: t('network.follow.slugMissing') });
    setErrors({});
    setBusy(true);
    try {
      const list = categories
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
      const res = await api<Follow>(`${NS}/follows`, { method: 'POST', body: { calendar, categories: list } });
      setAnswer({ follow: res.data, made: res.status === 201 });
      setSlug('');
      setCategories('');
      onFollowed();
    } catch (err) {
      const placed = placeError(err, ['calendar', 'categories'], FOLLOW_FIELDS);
      setErrors(placed.fields);
      setMessage(placed.message);
    } finally {
      setBusy(false);
    }
  };

  const name = answer?.follow.calendar?.name ?? '';
  return (
    <form onSubmit={submit} noValidate aria-labelledby="network-follow">
      <h3 id="network-follow">{t('network.follow.title')}</h3>
      <FormErrors message={message} fields={{}} />
      <TextField label={t('network.follow.slug')} name="calendar" value={slug} onInput={setSlug} autoComplete="off" help={t('network.follow.slugHelp')} error={errors.calendar} />
      <TextField
        label={t('network.follow.categories')}
        name="categories"
        value={categories}
        onInput={setCategories}
        autoComplete="off"
        help={t('network.follow.categoriesHelp')}
        error={errors.categories}
      />
      <button type="submit" disabled={busy}>
        {busy ? t('network.follow.sending') : t('network.follow.submit')}
      </button>
      <div role="status" aria-live="polite" id="network-follow-result">
        {answer && (
          <>
            <div class="notice success">
              <p>{answer.made ? t('network.follow.done', { name }) : t('network.follow.changed', { name })}</p>
              <p class="help">{answer.follow.categories.length ? t('network.follow.doneCategories', { categories: answer.follow.categories.join(', ') }) : t('network.follow.doneAll')}</p>
            </div>
            {answer.follow.not_copied > 0 && (
              <div class="notice warning">
                <p>{t('network.follow.notCopied', { n: answer.follow.not_copied })}</p>
              </div>
            )}
          </>
        )}
      </div>
    </form>
  );
}

function FollowsSection() {
  const follows = useApi<Follow[]>(`${NS}/follows`);
  // Counts of copies are read again after each follow or unfollow.
  const [version, setVersion] = useState(0);
  const refresh = () => {
    setVersion((v) => v + 1);
    follows.reload();
  };
  const unfollow = async (f: Follow & { calendar: CalendarRef }) => {
    const name = f.calendar.name;
    if (!(await confirmDialog({ title: t('network.unfollow.title', { name }), message: t('network.unfollow.question', { name }), confirm: t('network.unfollow.confirm'), danger: true }))) return;
    try {
      await api(`${NS}/follows/${encodeURIComponent(f.calendar.slug)}`, { method: 'DELETE' });
      toast(t('network.unfollow.done', { name }));
    } catch (err) {
      toast(messageOf(err), 'error');
    }
    refresh();
  };
  const columns: Column<Follow>[] = [
    {
      key: 'calendar',
      label: t('network.follows.calendar'),
      render: (f) => (f.calendar ? <a href={f.calendar.url}>{f.calendar.name}</a> : t('network.follows.gone')),
    },
    { key: 'slug', label: t('network.follows.slug'), render: (f) => (f.calendar ? <code>{f.calendar.slug}</code> : '—') },
    { key: 'categories', label: t('network.follows.categories'), render: (f) => (f.categories.length ? f.categories.join(', ') : t('network.follows.allEvents')) },
    {
      key: 'copies',
      label: t('network.follows.copies'),
      render: (f) =>
        f.calendar ? (
          <>
            <CopiesHere name={f.calendar.name} count={f.copies} version={version} />
            {f.not_copied > 0 && <p class="field-error">{t('network.follows.notCopied', { n: f.not_copied })}</p>}
          </>
        ) : (
          '—'
        ),
    },
    { key: 'created', label: t('network.follows.since'), render: (f) => formatDate(f.created, { dateStyle: 'medium' }) },
    {
      key: 'actions',
      label: t('network.follows.actions'),
      render: (f) =>
        f.calendar ? (
          <button type="button" class="secondary" onClick={() => void unfollow(f as Follow & { calendar: CalendarRef })} aria-label={t('network.unfollow.named', { name: f.calendar.name })}>
            {t('network.unfollow.button')}
          </button>
        ) : (
          '—'
        ),
    },
  ];
  return (
    <section class="card" aria-labelledby="network-follows">
      <h2 id="network-follows">{t('network.follows.title')}</h2>
      <p class="help">{t('network.follows.help')}</p>
      {follows.error ? (
        <ErrorState error={follows.error} onRetry={follows.reload} />
      ) : (
        <DataTable caption={t('network.follows.title')} columns={columns} rows={follows.data} loading={follows.loading && follows.data !== null} empty={t('network.follows.empty')} />
      )}
      <FollowForm onFollowed={refresh} />
    </section>
  );
}

function NetworkScreen() {
  return (
    <>
      <PageHeader title={t('network.title')} />
      <p class="help">{t('network.intro')}</p>
      <ProposeSection />
      {hasRole(['administrator']) && <FollowsSection />}
    </>
  );
}

export const screens: ScreenDef[] = [{ path: '/network', nav: { labelKey: 'network.nav', group: 'content', order: 70 }, roles: ['administrator', 'editor', 'author'], component: NetworkScreen }];
