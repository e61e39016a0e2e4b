/**
 * What the pages say of recurring events: on an occurrence's page (or the series' own), "This event
 * repeats: every Tuesday until March 30, 2027" with links to its next dates and to all of them; on
 * list cards and in the month grid, a mark that the event repeats; and the preview banner of a
 * draft seen through a signed link. Strings in English and French (the pages are English today:
 * `PAGE_LOCALE`; the French ones are ready for when they follow the visitor's language).
 *
 * @example seriesBlock(e, others, 'en', formats) // <section class="series">…</section>
 */
import { describeRecurrence, type WordsLocale } from '../domain/recurrence-words.js';
import { html, plainText, type SafeHtml } from './html.js';
import type { PublicEvent } from '../domain/public-records.js';
import { eventDay, isoOf, timeText, type DateFormats } from './view-helpers.js';

/** The language the pages are written in. */
export const PAGE_LOCALE: WordsLocale = 'en';

export const SERIES_STRINGS: Record<WordsLocale, { repeats: string; otherDates: string; allDates: string; repeating: string; preview: string; previewText: string; noOtherDates: string }> = {
  en: {
    repeats: 'This event repeats:',
    otherDates: 'Other dates',
    allDates: 'See all dates',
    repeating: 'Repeating event',
    preview: 'Preview',
    previewText: 'This event is not published: only people with this link can see this page.',
    noOtherDates: 'No other upcoming dates.',
  },
  fr: {
    repeats: 'Cet événement se répète :',
    otherDates: 'Autres dates',
    allDates: 'Voir toutes les dates',
    repeating: 'Événement récurrent',
    preview: 'Aperçu',
    previewText: 'Cet événement n’est pas publié : seules les personnes ayant ce lien peuvent voir cette page.',
    noOtherDates: 'Aucune autre date à venir.',
  },
};

/** What the pages read of an occurrence or a series beyond the public event shape. */
export type RecurringEvent = PublicEvent & { recurrence?: string[]; recurring_event_id?: number; original_start_date?: string };

/** The series an event belongs to (an occurrence's, or the series itself), or undefined for a single event. */
export function seriesIdOf(e: PublicEvent): number | undefined {
  const r = e as RecurringEvent;
  if (typeof r.recurring_event_id === 'number') return r.recurring_event_id;
  return Array.isArray(r.recurrence) && r.recurrence.length ? e.id : undefined;
}

/** The series' page of all its dates, from an occurrence's URL (`/event/{slug}/{date}/`) or the series' own. */
export function allDatesUrl(e: PublicEvent): string {
  return e.url.replace(/\/(\d{4}-\d{2}-\d{2}|all)\/$/, '/all/');
}

/** The rules of an occurrence or series in words ("every Tuesday until …"). */
export function repeatWords(e: PublicEvent, locale: WordsLocale = PAGE_LOCALE): string {
  const r = e as RecurringEvent;
  return describeRecurrence(r.recurrence ?? [], r.original_start_date ?? e.start_date, locale);
}

/** The event page's section: the rules in words, the next other dates, all dates. */
export function seriesBlock(e: PublicEvent, others: PublicEvent[], formats: DateFormats, locale: WordsLocale = PAGE_LOCALE): SafeHtml {
  const s = SERIES_STRINGS[locale];
  const when = (o: PublicEvent) => (o.all_day ? eventDay(o.start_date, formats) : `${eventDay(o.start_date, formats)}, ${timeText(o.start_date, formats.time)}`);
  return html`<section class="series" aria-labelledby="series-heading">
<h2 id="series-heading">${s.otherDates}</h2>
<p class="repeats">${s.repeats} ${repeatWords(e, locale)}</p>
${
  others.length
    ? html`<ul class="other-dates">${others.map((o) => html`<li><a href="${o.url}"><time datetime="${isoOf(o.start_date, o.utc_start_date, o.all_day)}">${when(o)}</time></a></li>`)}</ul>`
    : html`<p>${s.noOtherDates}</p>`
}
<p><a href="${allDatesUrl(e)}">${s.allDates}<span class="sr-only">: ${plainText(e.title)}</span></a></p>
</section>`;
}

/** A list card's mark of a repeating event. */
export function repeatingMark(e: PublicEvent, locale: WordsLocale = PAGE_LOCALE): SafeHtml {
  if (seriesIdOf(e) === undefined) return html``;
  const s = SERIES_STRINGS[locale];
  return html`<p class="repeats"><span aria-hidden="true">↻</span> ${s.repeating} · <a href="${allDatesUrl(e)}">${s.allDates}<span class="sr-only">: ${plainText(e.title)}</span></a></p>`;
}

/** The month grid's mark of a repeating event (words for screen readers, a symbol for the eye). */
export function repeatingIcon(e: PublicEvent, locale: WordsLocale = PAGE_LOCALE): SafeHtml {
  if (seriesIdOf(e) === undefined) return html``;
  return html` <span class="repeats-mark" title="${SERIES_STRINGS[locale].repeating}"><span aria-hidden="true">↻</span><span class="sr-only">(${SERIES_STRINGS[locale].repeating})</span></span>`;
}

/** The banner of a page seen through a signed preview link. */
export function previewBanner(locale: WordsLocale = PAGE_LOCALE): SafeHtml {
  const s = SERIES_STRINGS[locale];
  return html`<div class="preview-banner" role="note"><strong>${s.preview}</strong> ${s.previewText}</div>`;
}

/** The stylesheet's rules for these pieces. */
export const SERIES_STYLES = `.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.series{margin-top:1.5rem}.other-dates{padding-left:1.25rem}.repeats{color:var(--muted)}
.preview-banner{border:2px solid #b45309;background:#fffbeb;color:#1d2327;padding:.75rem 1rem;border-radius:6px;margin-bottom:1rem}
`;
