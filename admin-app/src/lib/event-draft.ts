/**
 * The event editor's model: what the form edits (`Draft`, strings as the inputs hold them), made
 * from an event's REST representation and turned back into a write's body, and its fields grouped
 * as the three-way merge and the conflict panel compare them (a start date and time are one field).
 *
 * @example
 *   const draft = draftOf(event);
 *   const body = bodyOf({ ...draft, title: 'New' }, false, event);
 */
import { t } from './i18n';
import { boot } from './session';
import { EMPTY_RULE, parseLines, toLines, type Rule } from './recurrence';
import type { FieldGroup } from './merge';
import type { EventRecord } from './events';

/** What the form edits (strings as the inputs hold them). */
export interface Draft {
  title: string;
  description: string;
  excerpt: string;
  slug: string;
  status: string;
  /** password protected (WordPress' visibility "Password protected"), with `password` */
  protect: boolean;
  password: string;
  /** publication date, YYYY-MM-DDTHH:MM in the site's zone ('' = now) */
  publish: string;
  timezone: string;
  all_day: boolean;
  startDate: string;
  startTime: string;
  endDate: string;
  endTime: string;
  image: string;
  cost: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  categories: number[];
  newCategories: string[];
  tags: number[];
  newTags: string[];
  venue: number | null;
  organizer: number[];
  rule: Rule;
}

const today = () => new Date().toISOString().slice(0, 10);

export function emptyDraft(): Draft {
  return {
    title: '',
    description: '',
    excerpt: '',
    slug: '',
    status: 'draft',
    protect: false,
    password: '',
    publish: '',
    timezone: boot.timezone,
    all_day: false,
    startDate: today(),
    startTime: '10:00',
    endDate: today(),
    endTime: '11:00',
    image: '',
    cost: '',
    website: '',
    show_map: true,
    show_map_link: true,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    categories: [],
    newCategories: [],
    tags: [],
    newTags: [],
    venue: null,
    organizer: [],
    rule: { ...EMPTY_RULE },
  };
}

export function draftOf(e: EventRecord): Draft {
  const venue = e.venue && 'id' in e.venue ? (e.venue as { id: number }).id : null;
  return {
    title: e.title ?? '',
    description: e.description ?? '',
    excerpt: (e.excerpt ?? '').replace(/<[^>]+>/g, ''),
    slug: e.slug ?? '',
    status: e.status,
    protect: (e.password ?? '') !== '',
    password: e.password ?? '',
    publish: e.status === 'future' ? e.date.slice(0, 16).replace(' ', 'T') : '',
    timezone: e.timezone || boot.timezone,
    all_day: e.all_day,
    startDate: e.start_date.slice(0, 10),
    startTime: e.start_date.slice(11, 16),
    endDate: e.end_date.slice(0, 10),
    endTime: e.end_date.slice(11, 16),
    image: e.image && typeof e.image === 'object' ? e.image.url : '',
    cost: e.cost ?? '',
    website: e.website ?? '',
    show_map: e.show_map,
    show_map_link: e.show_map_link,
    hide_from_listings: e.hide_from_listings,
    sticky: e.sticky,
    featured: e.featured,
    categories: (e.categories ?? []).map((c) => c.id),
    newCategories: [],
    tags: (e.tags ?? []).map((c) => c.id),
    newTags: [],
    venue,
    organizer: (e.organizer ?? []).map((o) => o.id),
    rule: parseLines(e.recurrence),
  };
}

/** The API body of a draft. */
export function bodyOf(d: Draft, isNew: boolean, original: EventRecord | null): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: d.title,
    description: d.description,
    excerpt: d.excerpt,
    status: d.status,
    // Unticked, or ticked with no password: anyone may read it (WordPress' empty post password).
    password: d.protect ? d.password : '',
    timezone: d.timezone,
    all_day: d.all_day,
    start_date: `${d.startDate} ${d.all_day ? '00:00' : d.startTime}:00`,
    end_date: `${d.endDate} ${d.all_day ? '23:59' : d.endTime}:${d.all_day ? '59' : '00'}`,
    image: d.image,
    cost: d.cost,
    website: d.website,
    show_map: d.show_map,
    show_map_link: d.show_map_link,
    hide_from_listings: d.hide_from_listings,
    sticky: d.sticky,
    featured: d.featured,
    categories: [...d.categories, ...d.newCategories],
    tags: [...d.tags, ...d.newTags],
    venue: d.venue ?? '',
    organizer: d.organizer,
  };
  if (d.slug) body.slug = d.slug;
  if (d.publish && (d.status === 'publish' || d.status === 'future')) body.date = `${d.publish.replace('T', ' ')}:00`;
  if (!original?.recurring_event_id) {
    const lines = toLines(d.rule, d.startDate);
    if (!isNew || lines.length) body.recurrence = lines;
  }
  if (isNew && !d.image) delete body.image;
  return body;
}

/** The fields the conflict panel compares: groups of draft keys, labelled `editor.<name>`. */
export const FIELDS: ReadonlyArray<FieldGroup<Draft>> = [
  { name: 'title', keys: ['title'] },
  { name: 'description', keys: ['description'] },
  { name: 'excerpt', keys: ['excerpt'] },
  { name: 'status', keys: ['status'] },
  { name: 'password', keys: ['protect', 'password'] },
  { name: 'publishDate', keys: ['publish'] },
  { name: 'slug', keys: ['slug'] },
  { name: 'timezone', keys: ['timezone'] },
  { name: 'allDay', keys: ['all_day'] },
  { name: 'startDate', keys: ['startDate', 'startTime'] },
  { name: 'endDate', keys: ['endDate', 'endTime'] },
  { name: 'venue', keys: ['venue'] },
  { name: 'organizers', keys: ['organizer'] },
  { name: 'featured', keys: ['featured'] },
  { name: 'sticky', keys: ['sticky'] },
  { name: 'hide', keys: ['hide_from_listings'] },
  { name: 'showMap', keys: ['show_map'] },
  { name: 'showMapLink', keys: ['show_map_link'] },
  { name: 'image', keys: ['image'] },
  { name: 'cost', keys: ['cost'] },
  { name: 'website', keys: ['website'] },
  { name: 'categories', keys: ['categories', 'newCategories'] },
  { name: 'tags', keys: ['tags', 'newTags'] },
  { name: 'recurrence', keys: ['rule'] },
];
export const fieldNamed = (name: string) => FIELDS.find((f) => f.name === name)!;
export const fieldLabel = (name: string) => t(name === 'recurrence' ? 'recurrence.title' : `editor.${name}`);

/** Names of the linked records and terms the event versions mention (`v12`, `o3`, `c4`, `t5`). */
export function namesOf(...records: Array<EventRecord | null>): Map<string, string> {
  const names = new Map<string, string>();
  for (const e of records) {
    if (!e) continue;
    if (e.venue && 'id' in e.venue) names.set(`v${(e.venue as { id: number }).id}`, (e.venue as { venue: string }).venue);
    for (const o of e.organizer ?? []) names.set(`o${o.id}`, o.organizer);
    for (const c of e.categories ?? []) names.set(`c${c.id}`, c.name);
    for (const c of e.tags ?? []) names.set(`t${c.id}`, c.name);
  }
  return names;
}

/** A field's value in one version, as the conflict panel shows it. */
export function shown(name: string, d: Draft, names: Map<string, string>): string {
  const named = (prefix: string, ids: number[]) => ids.map((id) => names.get(`${prefix}${id}`) ?? `#${id}`);
  const g = fieldNamed(name);
  switch (name) {
    case 'description':
      return d.description
        .replace(/<\/(p|h\d|li|blockquote)>/g, '\n')
        .replace(/<[^>]+>/g, '')
        .trim();
    case 'status':
      return t(`status.${d.status}`);
    case 'password':
      return d.protect && d.password !== '' ? d.password : t('editor.notProtected');
    case 'startDate':
      return `${d.startDate} ${d.all_day ? '' : d.startTime}`.trim();
    case 'endDate':
      return `${d.endDate} ${d.all_day ? '' : d.endTime}`.trim();
    case 'venue':
      return d.venue === null ? '' : named('v', [d.venue]).join('');
    case 'organizers':
      return named('o', d.organizer).join(', ');
    case 'categories':
      return [...named('c', d.categories), ...d.newCategories].join(', ');
    case 'tags':
      return [...named('t', d.tags), ...d.newTags].join(', ');
    case 'recurrence':
      return toLines(d.rule, d.startDate).join('\n');
  }
  const v = d[g.keys[0]!];
  return typeof v === 'boolean' ? t(v ? 'editor.yes' : 'editor.no') : String(v ?? '');
}
