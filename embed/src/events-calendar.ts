/**
 * `<events-calendar>`: the service's events on any page, in a Shadow DOM, without a
 * framework. Views `list` (events grouped by day), `upcoming` (compact) and `month` (a grid with
 * arrow-key navigation and a roving tabindex). It reads the service's FullCalendar event source
 * (`{service}/wp-json/calendar/embed/v1/fullcalendar`) without credentials, and refreshes every
 * `refresh` seconds with `If-None-Match` (a 304 keeps what is shown).
 *
 * @example
 *   <script type="module" src="https://events.example.org/embed/events-calendar.js"></script>
 *   <events-calendar view="month" category="concerts" locale="fr"></events-calendar>
 */
import { CSS } from './styles.js';
import { plural, stringsFor, type Strings } from './i18n.js';

/** One event as the component shows it: wall times in the zone it is shown in. */
interface Item {
  id: string;
  title: string;
  url: string;
  allDay: boolean;
  /** `YYYY-MM-DDTHH:mm:ss` (timed) or `YYYY-MM-DD` (all day) */
  start: string;
  /** the end: a wall time, or the day after the last (all day) */
  end: string;
  abbr: string;
  venue: string;
  cost: string;
  categories: string[];
  featured: boolean;
  /** the featured image, shown in the list */
  image: { src: string; srcset: string; alt: string; width: number | null; height: number | null } | null;
}

interface SourceEvent {
  id: string;
  title: string;
  url: string;
  allDay: boolean;
  start: string;
  end: string;
  extendedProps: {
    venue: { name: string; city?: string } | null;
    cost: string;
    categories: Array<{ name: string }>;
    featured: boolean;
    image?: string | null;
    imageAlt?: string;
    imageSrcset?: string;
    imageWidth?: number | null;
    imageHeight?: number | null;
    timezoneAbbr: string;
    localStart: string;
    localEnd: string;
  };
}

const ATTRIBUTES = ['service', 'view', 'category', 'tag', 'venue', 'organizer', 'featured', 'search', 'limit', 'locale', 'time-zone', 'refresh', 'month', 'week-start'] as const;
const DAY_MS = 86_400_000;
const MAX_PER_DAY = 3;

/** `YYYY-MM-DD` of a UTC date. */
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
/** The UTC midnight of a `YYYY-MM-DD` (wall dates are computed in UTC). */
const dateOf = (day: string) => new Date(`${day.slice(0, 10)}T00:00:00Z`);
const addDays = (day: string, n: number) => dayOf(new Date(dateOf(day).getTime() + n * DAY_MS));

/** The scripts's own origin: the default service (the component is served by the service). */
const OWN_SERVICE = (() => {
  try {
    return new URL('..', import.meta.url).href.replace(/\/$/, '');
  } catch {
    return '';
  }
})();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, string> = {}, ...children: Array<Node | string | null>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null) node.append(c);
  return node;
}

/** The zone the viewer's browser is in (an IANA name), UTC when it cannot be told. */
function viewerZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export class EventsCalendar extends HTMLElement {
  static get observedAttributes() {
    return [...ATTRIBUTES];
  }

  private readonly root: ShadowRoot;
  private items: Item[] = [];
  private etag: string | undefined;
  private lastUrl = '';
  private timer: ReturnType<typeof setInterval> | undefined;
  private state: 'loading' | 'ready' | 'error' = 'loading';
  /** the month shown (`YYYY-MM`) and the focused day of its grid */
  private month = '';
  private focusDay = '';
  private controller: AbortController | undefined;
  private connected = false;
  /** a polite live region that outlives renders (what changed: a refresh, another month) */
  private readonly live: HTMLElement;
  /** what each render replaces */
  private readonly holder: HTMLElement;
  /** said once the next render is ready (the month moved to) */
  private pendingAnnouncement = '';

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.live = el('div', { class: 'sr', role: 'status', 'aria-live': 'polite' });
    this.holder = el('div');
    this.root.append(el('style', { text: CSS }), this.live, this.holder);
  }

  private announce(text: string) {
    this.live.textContent = '';
    setTimeout(() => (this.live.textContent = text), 50);
  }

  connectedCallback() {
    this.connected = true;
    this.load(true);
    this.schedule();
  }

  disconnectedCallback() {
    this.connected = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.controller?.abort();
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null) {
    if (!this.connected || old === value) return;
    if (name === 'month') this.month = '';
    if (name === 'refresh') this.schedule();
    else this.load(true);
  }

  /** The locale: the `locale` attribute, else the closest `lang`, else the browser's. */
  get locale(): string {
    const wanted = this.getAttribute('locale') || this.closest('[lang]')?.getAttribute('lang') || navigator.language || 'en';
    try {
      return Intl.getCanonicalLocales(wanted)[0] ?? 'en';
    } catch {
      return 'en';
    }
  }

  private get strings(): Strings {
    return stringsFor(this.locale);
  }

  private get view(): 'list' | 'month' | 'upcoming' {
    const v = this.getAttribute('view');
    return v === 'month' || v === 'upcoming' ? v : 'list';
  }

  /** The grid's first day of the week: `week-start` 0 (Sunday) to 6 (Saturday); Monday without it. */
  private get weekStart(): number {
    const n = Number(this.getAttribute('week-start') ?? 1);
    return Number.isInteger(n) && n >= 0 && n <= 6 ? n : 1;
  }

  private get eventZone(): boolean {
    return this.getAttribute('time-zone') === 'event';
  }

  private get limit(): number {
    const n = Number(this.getAttribute('limit'));
    return Number.isInteger(n) && n > 0 ? Math.min(n, 1000) : this.view === 'upcoming' ? 5 : 10;
  }

  private schedule() {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const seconds = Number(this.getAttribute('refresh') ?? '300');
    if (this.connected && Number.isFinite(seconds) && seconds > 0) this.timer = setInterval(() => this.load(false), Math.max(seconds, 5) * 1000);
  }

  /** Today in the zone events are shown in (the viewer's). */
  private today(): string {
    const parts = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    return /^\d{4}-\d{2}-\d{2}$/.test(parts) ? parts : dayOf(new Date());
  }

  private currentMonth(): string {
    if (!this.month) {
      const attr = this.getAttribute('month');
      this.month = attr && /^\d{4}-\d{2}$/.test(attr) ? attr : this.today().slice(0, 7);
    }
    return this.month;
  }

  /** The grid's days: the week start on or before the month's first day to the day before it after its last. */
  private gridDays(): string[] {
    const first = `${this.currentMonth()}-01`;
    const ws = this.weekStart;
    const start = addDays(first, -((dateOf(first).getUTCDay() - ws + 7) % 7));
    const next = dateOf(first);
    next.setUTCMonth(next.getUTCMonth() + 1);
    const last = addDays(dayOf(next), -1);
    const end = addDays(last, (ws + 6 - dateOf(last).getUTCDay()) % 7);
    const days: string[] = [];
    for (let d = start; d <= end; d = addDays(d, 1)) days.push(d);
    return days;
  }

  /** The source's URL for what this view shows. */
  private sourceUrl(): string {
    const service = (this.getAttribute('service') || OWN_SERVICE).replace(/\/+$/, '');
    const url = new URL(`${service}/wp-json/calendar/embed/v1/fullcalendar`, location.href);
    const p = url.searchParams;
    const zone = viewerZone();
    if (this.view === 'month') {
      const days = this.gridDays();
      // Event-zone mode places events by their own dates: a day more on each side.
      p.set('start', addDays(days[0]!, -1));
      p.set('end', addDays(days[days.length - 1]!, 2));
    } else {
      const now = new Date();
      now.setUTCSeconds(0, 0);
      p.set('start', now.toISOString().replace('.000Z', 'Z'));
      p.set('end', new Date(now.getTime() + 366 * DAY_MS).toISOString().replace('.000Z', 'Z'));
      p.set('limit', String(this.limit));
    }
    p.set('timeZone', zone);
    const map: Array<[string, string]> = [
      ['category', 'categories'],
      ['tag', 'tags'],
      ['venue', 'venue'],
      ['organizer', 'organizer'],
      ['search', 'search'],
    ];
    for (const [attr, arg] of map) {
      const v = this.getAttribute(attr);
      if (v) p.set(arg, v);
    }
    if (this.hasAttribute('featured') && this.getAttribute('featured') !== 'false') p.set('featured', '1');
    return url.href;
  }

  /** Fetch (conditionally when the URL is the same) and render. */
  async load(fresh: boolean) {
    const url = this.sourceUrl();
    if (url !== this.lastUrl) {
      this.etag = undefined;
      fresh = true;
    }
    if (fresh) {
      this.state = 'loading';
      this.render();
    }
    this.controller?.abort();
    const controller = (this.controller = new AbortController());
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (this.etag && url === this.lastUrl) headers['if-none-match'] = this.etag;
      const res = await fetch(url, { credentials: 'omit', mode: 'cors', cache: 'no-store', headers, signal: controller.signal });
      if (res.status === 304) {
        this.dispatchEvent(new CustomEvent('events-calendar:not-modified'));
        if (this.state !== 'ready') {
          this.state = 'ready';
          this.render();
        }
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = (await res.json()) as SourceEvent[];
      this.etag = res.headers.get('etag') ?? undefined;
      this.lastUrl = url;
      this.items = body.map((e) => this.itemOf(e));
      const refreshed = !fresh;
      this.state = 'ready';
      this.render(refreshed);
      this.dispatchEvent(new CustomEvent('events-calendar:loaded', { detail: { count: this.items.length } }));
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      this.state = 'error';
      this.render();
      this.dispatchEvent(new CustomEvent('events-calendar:error', { detail: { message: (err as Error).message } }));
    }
  }

  private itemOf(e: SourceEvent): Item {
    const x = e.extendedProps;
    const zoned = (s: string) => s.replace(/(Z|[+-]\d{2}:?\d{2})$/, '');
    const start = e.allDay ? e.start : this.eventZone ? x.localStart : zoned(e.start);
    const end = e.allDay ? e.end : this.eventZone ? x.localEnd : zoned(e.end);
    return {
      id: e.id,
      title: e.title,
      url: e.url,
      allDay: e.allDay,
      start,
      end,
      abbr: this.eventZone && !e.allDay ? x.timezoneAbbr : '',
      venue: x.venue ? [x.venue.name, x.venue.city].filter(Boolean).join(', ') : '',
      cost: x.cost,
      categories: x.categories.map((c) => c.name),
      featured: x.featured,
      image: x.image ? { src: x.image, srcset: x.imageSrcset ?? '', alt: x.imageAlt ?? '', width: x.imageWidth ?? null, height: x.imageHeight ?? null } : null,
    };
  }

  /**
   * The days of the month's grid an item covers (an end at midnight does not cover its day),
   * however long before the grid it began.
   */
  private daysOf(item: Item, grid: string[]): string[] {
    const start = item.start.slice(0, 10);
    let last = item.allDay ? addDays(item.end.slice(0, 10), -1) : item.end.slice(0, 10);
    if (!item.allDay && item.end.slice(11) === '00:00:00' && item.end > item.start) last = addDays(last, -1);
    if (last < start) last = start;
    if (last > grid[grid.length - 1]!) last = grid[grid.length - 1]!;
    const days: string[] = [];
    for (let d = start < grid[0]! ? grid[0]! : start; d <= last && days.length < 42; d = addDays(d, 1)) days.push(d);
    return days;
  }

  private fmt(options: Intl.DateTimeFormatOptions, day: string): string {
    return new Intl.DateTimeFormat(this.locale, { ...options, timeZone: 'UTC' }).format(new Date(day.length === 10 ? `${day}T00:00:00Z` : `${day}Z`));
  }

  private timeText(item: Item): string {
    if (item.allDay) return this.strings.allDay;
    const t = (wall: string) => this.fmt({ hour: 'numeric', minute: '2-digit' }, wall);
    const sameDay = item.start.slice(0, 10) === item.end.slice(0, 10);
    const end = sameDay ? t(item.end) : `${this.fmt({ day: 'numeric', month: 'short' }, item.end.slice(0, 10))} ${t(item.end)}`;
    return `${t(item.start)} – ${end}${item.abbr ? ` ${item.abbr}` : ''}`;
  }

  private render(announce = false) {
    const s = this.strings;
    const root = el('div', { class: `root ${this.view}`, part: 'root', role: 'region', 'aria-label': this.getAttribute('aria-label') || s.calendar, lang: this.locale });
    const grid = this.view === 'month' ? this.gridDays() : [];
    if (this.view === 'month') root.append(this.monthView());
    if (this.state === 'loading') {
      root.setAttribute('aria-busy', 'true');
      root.append(el('p', { class: 'status', part: 'status', text: s.loading }));
    } else if (this.state === 'error') {
      const retry = el('button', { type: 'button', part: 'retry button', text: s.retry });
      retry.addEventListener('click', () => this.load(true));
      root.append(el('p', { class: 'status error', part: 'status error', role: 'alert' }, s.error, ' ', retry));
    } else if (this.view !== 'month') {
      root.append(this.items.length ? this.listView() : el('p', { class: 'status', part: 'status empty', text: s.empty }));
    } else if (!this.items.some((i) => this.daysOf(i, grid).some((d) => d.startsWith(this.currentMonth())))) {
      root.append(el('p', { class: 'status', part: 'status empty', text: s.emptyMonth }));
    }
    const hadFocus = this.root.activeElement !== null;
    this.holder.replaceChildren(root);
    if (this.state === 'ready' && this.pendingAnnouncement) {
      this.announce(this.pendingAnnouncement);
      this.pendingAnnouncement = '';
    } else if (announce) this.announce(s.updated);
    if (hadFocus && this.view === 'month') this.root.querySelector<HTMLElement>('[role=gridcell][tabindex="0"]')?.focus();
  }

  private eventLine(item: Item, compact: boolean): HTMLElement {
    const li = el('li', { class: 'event', part: item.featured ? 'event featured' : 'event' });
    const link = el('a', { href: item.url, class: 'name', part: 'event-link', text: item.title });
    const when = el('span', {
      class: 'time',
      part: 'time',
      text: compact ? `${this.fmt({ weekday: 'short', day: 'numeric', month: 'short' }, item.start.slice(0, 10))}, ${this.timeText(item)}` : this.timeText(item),
    });
    li.append(link, when);
    if (!compact && item.image && /^https?:\/\//i.test(item.image.src)) {
      // Decorative beside the event's name unless it has alt text of its own; sized to stop the list jumping.
      const img = el('img', { src: item.image.src, alt: item.image.alt, loading: 'lazy', decoding: 'async', part: 'image', class: 'image' });
      if (item.image.srcset) {
        img.setAttribute('srcset', item.image.srcset);
        img.setAttribute('sizes', '(max-width: 480px) 100vw, 160px');
      }
      if (item.image.width && item.image.height) {
        img.setAttribute('width', String(item.image.width));
        img.setAttribute('height', String(item.image.height));
      }
      li.prepend(img);
    }
    if (!compact) {
      if (item.venue) li.append(el('span', { class: 'venue', part: 'venue', text: item.venue }));
      if (item.cost) li.append(el('span', { class: 'cost', part: 'cost', text: item.cost }));
      if (item.categories.length) li.append(el('span', { class: 'terms', part: 'categories', text: item.categories.join(', ') }));
    }
    return li;
  }

  private listView(): HTMLElement {
    if (this.view === 'upcoming') return el('ul', { class: 'list', part: 'list' }, ...this.items.map((i) => this.eventLine(i, true)));
    const wrap = el('div', { part: 'list' });
    const byDay = new Map<string, Item[]>();
    const today = this.today();
    for (const item of this.items) {
      // An event that began before today and still runs is listed under today.
      const day = item.start.slice(0, 10) < today ? today : item.start.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), item]);
    }
    for (const [day, items] of byDay) {
      wrap.append(el('h3', { class: 'day-heading', part: 'day-heading', text: this.fmt({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }, day) }));
      wrap.append(el('ul', { class: 'list' }, ...items.map((i) => this.eventLine(i, false))));
    }
    return wrap;
  }

  private monthView(): HTMLElement {
    const s = this.strings;
    const month = this.currentMonth();
    const days = this.gridDays();
    const today = this.today();
    if (!this.focusDay || !days.includes(this.focusDay)) this.focusDay = today.startsWith(month) ? today : `${month}-01`;
    const title = this.fmt({ month: 'long', year: 'numeric' }, `${month}-01`);
    const titleId = `ec-title-${month}`;
    const prev = el('button', { type: 'button', part: 'nav-button previous', 'aria-label': s.previous, text: '‹' });
    const next = el('button', { type: 'button', part: 'nav-button next', 'aria-label': s.next, text: '›' });
    prev.addEventListener('click', () => this.moveMonth(-1));
    next.addEventListener('click', () => this.moveMonth(1));
    const header = el('div', { class: 'header', part: 'header' }, prev, el('h2', { class: 'title', part: 'title', id: titleId, text: title }), next);

    const byDay = new Map<string, Item[]>();
    if (this.state === 'ready') for (const item of this.items) for (const d of this.daysOf(item, days)) byDay.set(d, [...(byDay.get(d) ?? []), item]);
    const table = el('table', { role: 'grid', part: 'grid', 'aria-labelledby': titleId, 'aria-describedby': `${titleId}-help` });
    const head = el('tr');
    for (let i = 0; i < 7; i++) {
      const d = addDays('2023-12-31', this.weekStart + i); // 31 December 2023: a Sunday
      head.append(el('th', { scope: 'col', abbr: this.fmt({ weekday: 'long' }, d), text: this.fmt({ weekday: 'short' }, d) }));
    }
    table.append(el('thead', {}, head));
    const body = el('tbody');
    for (let w = 0; w < days.length; w += 7) {
      const row = el('tr');
      for (const day of days.slice(w, w + 7)) {
        const items = byDay.get(day) ?? [];
        const active = day === this.focusDay;
        const classes = [day.startsWith(month) ? '' : 'other', day === today ? 'today' : ''].filter(Boolean).join(' ');
        const label = `${this.fmt({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }, day)}${day === today ? `, ${s.today}` : ''}, ${items.length ? plural(s.events, items.length, this.locale) : s.noEvents}`;
        const cell = el('td', {
          role: 'gridcell',
          'data-day': day,
          tabindex: active ? '0' : '-1',
          part: ['day', day === today ? 'today' : '', day.startsWith(month) ? '' : 'other-month'].filter(Boolean).join(' '),
        });
        if (classes) cell.className = classes;
        if (active) cell.setAttribute('aria-selected', 'true');
        // The day's name for screen readers is in its content (a label would hide the events' text).
        cell.append(el('span', { class: 'num', 'aria-hidden': 'true', text: String(Number(day.slice(8))) }), el('span', { class: 'sr', text: label }));
        for (const item of items.slice(0, MAX_PER_DAY)) {
          const time = item.allDay ? '' : `${this.fmt({ hour: 'numeric', minute: '2-digit' }, item.start)} `;
          cell.append(el('a', { href: item.url, class: 'chip', part: 'event event-link', tabindex: active ? '0' : '-1', text: `${item.start.slice(0, 10) === day ? time : ''}${item.title}` }));
        }
        if (items.length > MAX_PER_DAY) cell.append(el('span', { class: 'more', text: s.more.replace('{n}', String(items.length - MAX_PER_DAY)) }));
        cell.addEventListener('keydown', (e) => this.onKey(e, day));
        cell.addEventListener('click', (e) => {
          if ((e.target as HTMLElement).tagName !== 'A') this.focusOn(day);
        });
        row.append(cell);
      }
      body.append(row);
    }
    table.append(body);
    return el('div', {}, header, el('p', { class: 'sr', id: `${titleId}-help`, text: s.grid }), table);
  }

  private moveMonth(delta: number) {
    const d = dateOf(`${this.currentMonth()}-01`);
    d.setUTCMonth(d.getUTCMonth() + delta);
    this.month = dayOf(d).slice(0, 7);
    this.focusDay = `${this.month}-01`;
    this.pendingAnnouncement = this.fmt({ month: 'long', year: 'numeric' }, `${this.month}-01`);
    this.load(true);
  }

  /** Move the roving focus to a day, changing the month when it lies outside this one. */
  private focusOn(day: string) {
    this.focusDay = day;
    if (!day.startsWith(this.currentMonth())) {
      this.month = day.slice(0, 7);
      this.pendingAnnouncement = this.fmt({ month: 'long', year: 'numeric' }, `${this.month}-01`);
      this.load(true).then(() => this.root.querySelector<HTMLElement>(`[data-day="${day}"]`)?.focus());
      this.root.querySelector<HTMLElement>(`[data-day="${day}"]`)?.focus();
      return;
    }
    for (const cell of this.root.querySelectorAll<HTMLElement>('[role=gridcell]')) {
      const on = cell.dataset.day === day;
      cell.tabIndex = on ? 0 : -1;
      if (on) cell.setAttribute('aria-selected', 'true');
      else cell.removeAttribute('aria-selected');
      for (const a of cell.querySelectorAll('a')) a.tabIndex = on ? 0 : -1;
      if (on) cell.focus();
    }
  }

  private onKey(e: KeyboardEvent, day: string) {
    if (e.target !== e.currentTarget) return; // keys on an event link are the link's
    const weekday = (dateOf(day).getUTCDay() - this.weekStart + 7) % 7;
    const month = (n: number) => {
      const d = dateOf(day);
      const want = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + n);
      const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(want, last));
      return dayOf(d);
    };
    const moves: Record<string, () => string> = {
      ArrowLeft: () => addDays(day, -1),
      ArrowRight: () => addDays(day, 1),
      ArrowUp: () => addDays(day, -7),
      ArrowDown: () => addDays(day, 7),
      Home: () => addDays(day, -weekday),
      End: () => addDays(day, 6 - weekday),
      PageUp: () => month(-1),
      PageDown: () => month(1),
    };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    this.focusOn(move());
  }
}

if (!customElements.get('events-calendar')) customElements.define('events-calendar', EventsCalendar);
