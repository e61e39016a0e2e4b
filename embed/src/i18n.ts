/**
 * The component's strings, English and French. Month and weekday names, dates and times
 * come from `Intl` in the chosen locale; these are the rest. `{n}` is a number.
 */
export const STRINGS = {
  en: {
    calendar: 'Events calendar',
    loading: 'Loading events…',
    empty: 'No upcoming events.',
    emptyMonth: 'No events this month.',
    error: 'The events could not be loaded.',
    retry: 'Try again',
    previous: 'Previous month',
    next: 'Next month',
    today: 'Today',
    allDay: 'All day',
    events: { one: '{n} event', other: '{n} events' },
    noEvents: 'no events',
    updated: 'Events updated.',
    more: '+ {n} more',
    featured: 'Featured',
    grid: 'Use the arrow keys to move between days; Tab reaches the events of the selected day.',
  },
  fr: {
    calendar: 'Calendrier des événements',
    loading: 'Chargement des événements…',
    empty: 'Aucun événement à venir.',
    emptyMonth: 'Aucun événement ce mois-ci.',
    error: 'Les événements n’ont pas pu être chargés.',
    retry: 'Réessayer',
    previous: 'Mois précédent',
    next: 'Mois suivant',
    today: 'Aujourd’hui',
    allDay: 'Toute la journée',
    events: { one: '{n} événement', other: '{n} événements' },
    noEvents: 'aucun événement',
    updated: 'Événements mis à jour.',
    more: '+ {n} de plus',
    featured: 'À la une',
    grid: 'Utilisez les flèches pour passer d’un jour à l’autre ; Tab atteint les événements du jour choisi.',
  },
};

export type Strings = (typeof STRINGS)['en'];

/** The catalogue of a BCP 47 locale (its language), English when there is none. */
export function stringsFor(locale: string): Strings {
  const language = locale.toLowerCase().split(/[-_]/)[0] as keyof typeof STRINGS;
  return STRINGS[language] ?? STRINGS.en;
}

/** `{n} events` in the locale's plural form. */
export function plural(forms: { one: string; other: string }, n: number, locale: string): string {
  let rule = 'other';
  try {
    rule = new Intl.PluralRules(locale).select(n);
  } catch {
    rule = n === 1 ? 'one' : 'other';
  }
  return (rule === 'one' ? forms.one : forms.other).replace('{n}', String(n));
}
