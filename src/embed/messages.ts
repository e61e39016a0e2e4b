/**
 * The embed face's strings (the iframe view and the snippet generator), English and French,
 * chosen by `?locale=` or the request's `Accept-Language`. `{n}` is a number.
 *
 * @example messagesFor(localeOf(query.locale, req.headers['accept-language'])).empty
 */
import { pickLanguage } from '../domain/languages.js';

export const MESSAGES = {
  en: {
    calendar: 'Events',
    upcoming: 'Upcoming events',
    empty: 'No upcoming events.',
    emptyMonth: 'No events this month.',
    allDay: 'All day',
    previous: 'Previous month',
    next: 'Next month',
    more: '+ {n} more',
    events: { one: '{n} event', other: '{n} events' },
    noEvents: 'no events',
    unavailable: 'The events cannot be shown right now. Please try again later.',
    badRequest: 'This calendar view was asked with a value it cannot read: {name}.',
    notFound: 'There is nothing at this address.',
    unreadable: 'This page was asked with a request it cannot read.',
    snippetTitle: 'Embed the calendar',
    snippetIntro: 'Choose what to show, then copy the markup into your page: the web component, or an iframe for sites that do not allow scripts.',
    options: 'Options',
    view: 'View',
    viewList: 'List',
    viewMonth: 'Month',
    viewUpcoming: 'Upcoming (compact)',
    category: 'Categories (slugs or IDs, comma-separated)',
    tag: 'Tags (slugs or IDs, comma-separated)',
    venue: 'Venue IDs (comma-separated)',
    organizer: 'Organizer IDs (comma-separated)',
    featured: 'Featured events only',
    search: 'Search',
    limit: 'Number of events (list views)',
    locale: 'Language',
    localeAuto: 'The page’s language',
    timeZone: 'Times shown in',
    tzViewer: 'the visitor’s time zone',
    tzEvent: 'each event’s own time zone',
    refresh: 'Refresh every (seconds, 0 for never)',
    make: 'Make the snippet',
    componentSnippet: 'Web component (with Subresource Integrity)',
    componentNote: 'The script’s integrity hash pins this exact version: when the service updates the component, make a new snippet, or use the stable URL {stable} without the integrity attribute.',
    iframeSnippet: 'Iframe (no script needed)',
    fullcalendarSnippet: 'FullCalendar (script tags, no build step)',
    fullcalendarNote: 'FullCalendar’s files are served by this calendar with their integrity hashes; paste the whole block where the calendar should appear.',
    firstDay: 'Weeks start on',
    preview: 'Preview',
    previewIframe: 'Preview of the iframe',
    invalid: 'Not used, it is not valid: {names}.',
  },
  fr: {
    calendar: 'Événements',
    upcoming: 'Événements à venir',
    empty: 'Aucun événement à venir.',
    emptyMonth: 'Aucun événement ce mois-ci.',
    allDay: 'Toute la journée',
    previous: 'Mois précédent',
    next: 'Mois suivant',
    more: '+ {n} de plus',
    events: { one: '{n} événement', other: '{n} événements' },
    noEvents: 'aucun événement',
    unavailable: 'Les événements ne peuvent pas être affichés pour le moment. Réessayez plus tard.',
    badRequest: 'Cette vue du calendrier a reçu une valeur illisible : {name}.',
    notFound: 'Il n’y a rien à cette adresse.',
    unreadable: 'Cette page a été demandée avec une requête illisible.',
    snippetTitle: 'Intégrer le calendrier',
    snippetIntro: 'Choisissez ce qu’il faut afficher, puis copiez le code dans votre page : le composant web, ou un iframe pour les sites qui n’acceptent pas les scripts.',
    options: 'Options',
    view: 'Vue',
    viewList: 'Liste',
    viewMonth: 'Mois',
    viewUpcoming: 'À venir (compacte)',
    category: 'Catégories (slugs ou identifiants, séparés par des virgules)',
    tag: 'Étiquettes (slugs ou identifiants, séparés par des virgules)',
    venue: 'Identifiants de lieux (séparés par des virgules)',
    organizer: 'Identifiants d’organisateurs (séparés par des virgules)',
    featured: 'Événements à la une seulement',
    search: 'Recherche',
    limit: 'Nombre d’événements (vues en liste)',
    locale: 'Langue',
    localeAuto: 'La langue de la page',
    timeZone: 'Heures affichées dans',
    tzViewer: 'le fuseau horaire du visiteur',
    tzEvent: 'le fuseau horaire de chaque événement',
    refresh: 'Actualiser toutes les (secondes, 0 pour jamais)',
    make: 'Créer le code',
    componentSnippet: 'Composant web (avec Subresource Integrity)',
    componentNote:
      'L’empreinte d’intégrité du script fixe cette version exacte : quand le service met le composant à jour, créez un nouveau code, ou utilisez l’adresse stable {stable} sans l’attribut integrity.',
    iframeSnippet: 'Iframe (sans script)',
    fullcalendarSnippet: 'FullCalendar (balises script, sans compilation)',
    fullcalendarNote: 'Les fichiers de FullCalendar sont servis par ce calendrier avec leurs empreintes d’intégrité ; collez tout le bloc là où le calendrier doit paraître.',
    firstDay: 'Les semaines commencent le',
    preview: 'Aperçu',
    previewIframe: 'Aperçu de l’iframe',
    invalid: 'Non utilisé, car invalide : {names}.',
  },
};

export type Locale = keyof typeof MESSAGES;
const LOCALES = Object.keys(MESSAGES) as Locale[];
export type Messages = (typeof MESSAGES)['en'];

/** `fr` or `en`: the `locale` argument when it names one, else the first of Accept-Language we have. */
export function localeOf(wanted: unknown, acceptLanguage: unknown): Locale {
  // A `locale` argument we do not offer is English, whatever the browser says (the snippet asked for it).
  if (typeof wanted === 'string' && wanted !== '') return pickLanguage(wanted, LOCALES, 'en');
  return pickLanguage(acceptLanguage, LOCALES, 'en');
}

export const messagesFor = (locale: Locale): Messages => MESSAGES[locale];

/** `{n} events` in the locale's plural form (French counts 0 and 1 as one). */
export function plural(forms: { one: string; other: string }, n: number, locale: Locale): string {
  return (new Intl.PluralRules(locale).select(n) === 'one' ? forms.one : forms.other).replace('{n}', String(n));
}
