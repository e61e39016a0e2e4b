/**
 * "Embed on another site": the snippet generator of the embed face (`/embed/snippet.json`) with
 * pickers instead of typed ids (category, venue, organizer: searchable comboboxes over the API),
 * the view, the language and the first day of the week; each snippet (the web component, the
 * iframe, FullCalendar's paste-ready code with script tags and SRI hashes) with a copy button
 * (the clipboard API, else the text selected and copied) and a live region saying it was copied.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { t } from '../../lib/i18n';
import { boot } from '../../lib/session';
import type { ScreenDef } from '../../lib/screens';
import { PageHeader } from '../../components/PageHeader';
import { Checkbox, Fieldset, SelectField, TextField } from '../../components/Fields';
import { Combobox, type Choice } from '../../components/Combobox';
import { ErrorState } from '../../components/States';
import './embed.css';

const NS = 'calendar/events/v1';

interface Snippets {
  component: string;
  iframe: string;
  fullcalendar: string;
  preview: string;
  first_day: number;
}

interface Picked {
  value: string;
  name: string;
}

const none: Picked = { value: '', name: '' };

async function findCategories(text: string): Promise<Choice[]> {
  const res = await api<{ categories: Array<{ id: number; name: string; slug: string }> }>(`${NS}/categories`, { query: { search: text.trim() || undefined, per_page: 20, hide_empty: false } });
  return [{ value: '', label: t('embed.any') }, ...res.data.categories.map((c) => ({ value: c.slug, label: c.name, hint: c.slug }))];
}

async function findVenues(text: string): Promise<Choice[]> {
  const res = await api<{ venues: Array<{ id: number; venue?: string; city?: string }> }>(`${NS}/venues`, { query: { search: text.trim() || undefined, per_page: 20 } });
  return [{ value: '', label: t('embed.any') }, ...res.data.venues.map((v) => ({ value: String(v.id), label: v.venue ?? String(v.id), ...(v.city ? { hint: v.city } : {}) }))];
}

async function findOrganizers(text: string): Promise<Choice[]> {
  const res = await api<{ organizers: Array<{ id: number; organizer?: string }> }>(`${NS}/organizers`, { query: { search: text.trim() || undefined, per_page: 20 } });
  return [{ value: '', label: t('embed.any') }, ...res.data.organizers.map((o) => ({ value: String(o.id), label: o.organizer ?? String(o.id) }))];
}

/** Copy a text: the clipboard API where the page may use it, else the textarea's text selected and copied. */
async function copyText(text: string, area: HTMLTextAreaElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* refused: the fallback below */
  }
  if (!area) return false;
  area.focus();
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

function SnippetBlock({ id, kind, title, help, text, onCopied }: { id: string; kind: string; title: string; help?: string; text: string; onCopied: (kind: string, ok: boolean) => void }) {
  const area = useRef<HTMLTextAreaElement>(null);
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {help && <p class="help">{help}</p>}
      <textarea id={id} ref={area} readOnly rows={Math.min(18, text.split('\n').length + 1)} spellcheck={false} aria-labelledby={`${id}-title`} class="snippet">
        {text}
      </textarea>
      <p class="actions">
        <button type="button" id={`${id}-copy`} onClick={() => void copyText(text, area.current).then((ok) => onCopied(kind, ok))}>
          {t(`embed.copy.${kind}`)}
        </button>
      </p>
    </section>
  );
}

function EmbedScreen() {
  const [view, setView] = useState('month');
  const [category, setCategory] = useState<Picked>(none);
  const [venue, setVenue] = useState<Picked>(none);
  const [organizer, setOrganizer] = useState<Picked>(none);
  const [featured, setFeatured] = useState(false);
  const [search, setSearch] = useState('');
  const [locale, setLocale] = useState(boot.locale === 'fr' ? 'fr' : '');
  const [firstDay, setFirstDay] = useState<string>('');
  const [snippets, setSnippets] = useState<Snippets | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [copied, setCopied] = useState('');

  useEffect(() => {
    const q = new URLSearchParams({ view });
    if (category.value) q.set('category', category.value);
    if (venue.value) q.set('venue', venue.value);
    if (organizer.value) q.set('organizer', organizer.value);
    if (featured) q.set('featured', '1');
    if (search.trim()) q.set('search', search.trim());
    if (locale) q.set('locale', locale);
    if (firstDay !== '') q.set('first-day', firstDay);
    let stale = false;
    const timer = setTimeout(() => {
      fetch(`/embed/snippet.json?${q}`, { credentials: 'omit', headers: { accept: 'application/json' } })
        .then(async (res) => {
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          const data = (await res.json()) as Snippets;
          if (stale) return;
          setSnippets(data);
          setError(null);
          if (firstDay === '') setFirstDay(String(data.first_day));
        })
        .catch((err: unknown) => !stale && setError(err));
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [view, category.value, venue.value, organizer.value, featured, search, locale, firstDay]);

  const weekday = (d: number) => new Intl.DateTimeFormat(boot.locale || 'en', { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 7 + d)));
  const onCopied = (kind: string, ok: boolean) => setCopied(ok ? t(`embed.copied.${kind}`) : t('embed.copyFailed'));
  const picker = (name: string, label: string, value: Picked, set: (p: Picked) => void, search: (text: string) => Promise<Choice[]>) => (
    <Combobox label={label} name={name} text={value.name} search={search} delay={250} onPick={(c) => set(c.value ? { value: c.value, name: c.label } : none)} help={t('embed.pickerHelp')} />
  );

  return (
    <>
      <PageHeader title={t('embed.title')} />
      <p>{t('embed.intro')}</p>
      <form class="card" onSubmit={(e) => e.preventDefault()}>
        <Fieldset legend={t('embed.options')}>
          <SelectField
            label={t('embed.view')}
            name="view"
            value={view}
            onChange={setView}
            options={[
              { value: 'month', label: t('embed.view.month') },
              { value: 'list', label: t('embed.view.list') },
              { value: 'upcoming', label: t('embed.view.upcoming') },
            ]}
          />
          {picker('embed-category', t('embed.category'), category, setCategory, findCategories)}
          {picker('embed-venue', t('embed.venue'), venue, setVenue, findVenues)}
          {picker('embed-organizer', t('embed.organizer'), organizer, setOrganizer, findOrganizers)}
          <Checkbox label={t('embed.featured')} name="embed-featured" checked={featured} onChange={setFeatured} />
          <TextField label={t('embed.search')} name="embed-search" type="search" value={search} onInput={setSearch} />
          <SelectField
            label={t('embed.locale')}
            name="embed-locale"
            value={locale}
            onChange={setLocale}
            options={[
              { value: '', label: t('embed.locale.auto') },
              { value: 'en', label: 'English' },
              { value: 'fr', label: 'Français' },
            ]}
          />
          <SelectField
            label={t('embed.firstDay')}
            name="embed-first-day"
            value={firstDay}
            onChange={setFirstDay}
            options={[0, 1, 2, 3, 4, 5, 6].map((d) => ({ value: String(d), label: weekday(d) }))}
          />
        </Fieldset>
      </form>
      <p role="status" aria-live="polite" id="embed-copied">
        {copied}
      </p>
      {error ? <ErrorState error={error} /> : null}
      {snippets && (
        <>
          <SnippetBlock id="snippet-fullcalendar" kind="fullcalendar" title={t('embed.fullcalendar')} help={t('embed.fullcalendarHelp')} text={snippets.fullcalendar} onCopied={onCopied} />
          {snippets.component && <SnippetBlock id="snippet-component" kind="component" title={t('embed.component')} help={t('embed.componentHelp')} text={snippets.component} onCopied={onCopied} />}
          <SnippetBlock id="snippet-iframe" kind="iframe" title={t('embed.iframe')} help={t('embed.iframeHelp')} text={snippets.iframe} onCopied={onCopied} />
          <p>
            <a href={snippets.preview} target="_blank" rel="noopener">
              {t('embed.preview')}
            </a>
          </p>
        </>
      )}
    </>
  );
}

export const screens: ScreenDef[] = [{ path: '/embed', nav: { labelKey: 'embed.nav', group: 'system', order: 35 }, roles: ['administrator', 'editor'], component: EmbedScreen }];
