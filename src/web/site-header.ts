/**
 * The site's header, shared by the calendar's pages and the submission pages so a visitor who
 * goes from one to the other stays on the same site: the site's name, the calendar's views and,
 * when the public may propose events (SUBMISSIONS not off), a link to the form. Each face gives
 * the labels in its page's language; the markup and its styles are the same.
 *
 * @example
 *   siteHeader({ siteName: 'Town', url: (p) => `https://town.example${p}`, labels: HEADER_LABELS.en, submissions: true })
 */
import { html, type SafeHtml } from './html.js';

/** The site path of the submission form. */
export const SUBMIT_FORM_PATH = '/events/submit/';

export interface HeaderLabels {
  views: string;
  list: string;
  month: string;
  today: string;
  propose: string;
}

/** The header's words in the languages the pages are written in. */
export const HEADER_LABELS: Record<'en' | 'fr', HeaderLabels> = {
  en: { views: 'Calendar views', list: 'List', month: 'Month', today: 'Today', propose: 'Propose an event' },
  fr: { views: 'Vues du calendrier', list: 'Liste', month: 'Mois', today: 'Aujourd’hui', propose: 'Proposer un événement' },
};

export interface SiteHeader {
  siteName: string;
  /** an absolute URL of a site path */
  url: (path: string) => string;
  labels: HeaderLabels;
  /** whether the link to the submission form is shown (SUBMISSIONS is not off) */
  submissions: boolean;
  /** the page is the form itself: its link is marked as the current page */
  current?: 'propose';
}

export function siteHeader(h: SiteHeader): SafeHtml {
  const l = h.labels;
  return html`<header class="site-header">
<p class="site-name"><a href="${h.url('/events/')}">${h.siteName}</a></p>
<nav aria-label="${l.views}">
<ul>
<li><a href="${h.url('/events/list/')}">${l.list}</a></li>
<li><a href="${h.url('/events/month/')}">${l.month}</a></li>
<li><a href="${h.url('/events/today/')}">${l.today}</a></li>
${h.submissions ? html`<li><a class="propose" href="${h.url(SUBMIT_FORM_PATH)}"${h.current === 'propose' ? html` aria-current="page"` : ''}>${l.propose}</a></li>\n` : ''}</ul>
</nav>
</header>`;
}

/** The header's styles, for a face whose stylesheet has none of its own (the calendar's pages' stylesheet styles it already). */
export const SITE_HEADER_CSS = `.site-header{max-width:72rem;margin:0 auto;padding:1rem;display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;border-bottom:1px solid #d0d5dd}
.site-name{margin:0;font-size:1.25rem;font-weight:700}.site-name a{color:#1d2327;text-decoration:none}
.site-header nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
`;
