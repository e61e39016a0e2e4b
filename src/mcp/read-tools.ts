/**
 * The MCP face's reading tools, for anyone: what the calendar is (`about_calendar`), events found by
 * text, dates, categories, tags, venue, organizer or distance from a point (`search_events`), one
 * event with its venue and organizers (`get_event`), and the categories, tags, venues and
 * organizers to filter by (`list_*`, `get_venue`, `get_organizer`). Each reads the REST route of
 * the same name as the caller, so an anonymous caller sees only what is public (never a draft), and a
 * signed-in one what their role may read.
 *
 * @example
 *   registerReadTools(server, ctx); // search_events {search: 'jazz', start_date: '2026-12-01'}
 */
import type { Config } from '../config.js';
import * as z from 'zod';
import { nowWall } from '../domain/dates/wall.js';
import { defineTool, paged, pageInput, pageQuery, type ToolDef } from './tool.js';

type Json = Record<string, any>;

const DATE_HELP =
  'in the calendar’s time zone (see about_calendar) unless an offset is given; "YYYY-MM-DD", "YYYY-MM-DD HH:MM", ISO 8601 ("2026-12-05T19:30:00+01:00") or words ("next friday") are read';

const idInput = (what: string) => z.number().int().min(1).describe(`The ${what}’s ID (from a list or search)`);

/** An event in a list: what an assistant needs to tell it apart and say when and where it is. */
export function eventSummary(e: Json): Json {
  const venue = e.venue && !Array.isArray(e.venue) ? (e.venue as Json) : null;
  return {
    id: e.id,
    title: e.title,
    status: e.status,
    start_date: e.start_date,
    end_date: e.end_date,
    all_day: e.all_day,
    timezone: e.timezone,
    url: e.url,
    venue: venue ? { id: venue.id, venue: venue.venue, city: venue.city, country: venue.country } : null,
    organizer: ((e.organizer ?? []) as Json[]).map((o) => ({ id: o.id, organizer: o.organizer })),
    categories: ((e.categories ?? []) as Json[]).map((c) => c.name),
    tags: ((e.tags ?? []) as Json[]).map((t) => t.name),
    cost: e.cost,
    featured: e.featured,
  };
}

const termSummary = (t: Json): Json => ({ id: t.id, name: t.name, slug: t.slug, count: t.count, ...(t.parent ? { parent: t.parent } : {}) });

const venueSummary = (v: Json): Json => ({
  id: v.id,
  venue: v.venue,
  status: v.status,
  address: v.address,
  city: v.city,
  province: v.province || v.state || undefined,
  zip: v.zip,
  country: v.country,
  ...(v.geo_lat !== undefined ? { geo_lat: v.geo_lat, geo_lng: v.geo_lng } : {}),
  url: v.url,
});

const organizerSummary = (o: Json): Json => ({ id: o.id, organizer: o.organizer, status: o.status, email: o.email, phone: o.phone, website: o.website, url: o.url });

const list = (v: Array<string | number> | undefined) => (v === undefined || v.length === 0 ? undefined : v.join(','));

/**
 * The reading tools, their descriptions written with the calendar's settings (`settings`: a
 * calendar's own, read once when its tools are built); a call reads the calendar's configuration
 * of the request (`ctx.config`).
 */
export function readTools(settings: Pick<Config, 'geolocRadius' | 'geolocUnit'>): ToolDef[] {
  const tools: ToolDef[] = [];

  tools.push(
    defineTool(
      'about_calendar',
      {
        title: 'About this calendar',
        description:
          'The calendar’s name, time zone, the date and time there now, who you are signed in as (or anonymous) and whether the public may propose events. Call it first to read dates right: every date a tool takes or gives is in this time zone unless it carries an offset.',
        input: {},
        readOnly: true,
      },
      async ({ viewer, config }) => ({
        name: config.siteName,
        site: config.siteUrl,
        timezone: config.timezone,
        now: nowWall(config.timezone).replace('T', ' ').slice(0, 19),
        signed_in_as: viewer.id > 0 ? { login: viewer.login, role: viewer.role } : null,
        submissions: config.submissions,
        events_page: `${config.siteUrl}/events/`,
        feed: `${config.siteUrl}/events.ics`,
      }),
    ),
  );

  tools.push(
    defineTool(
      'search_events',
      {
        title: 'Search events',
        description:
          'Events in a date window, optionally matching text, categories, tags, venues, organizers or a distance from a point, soonest first, one page at a time. Without dates: upcoming events. Anonymous callers see published events only; signed-in callers may ask for other statuses. Each event says when, where and its `url` (its page); get_event gives the whole event.',
        input: {
          search: z.string().optional().describe('Words in the title or description, e.g. "jazz"'),
          start_date: z.string().optional().describe(`Events ending on or after this date, ${DATE_HELP}; e.g. "2026-12-01" (default: now)`),
          end_date: z.string().optional().describe(`Events starting on or before this date, same forms; e.g. "2026-12-07 23:59" (default: two years from now)`),
          categories: z
            .array(z.union([z.string(), z.number().int()]))
            .optional()
            .describe('Category slugs or IDs (an event in any of them matches), e.g. ["music"]; list_categories names them'),
          tags: z
            .array(z.union([z.string(), z.number().int()]))
            .optional()
            .describe('Tag slugs or IDs (any of them), e.g. ["free"]'),
          venue: z.array(z.number().int()).optional().describe('Venue IDs (any of them), e.g. [12]; list_venues finds them'),
          organizer: z.array(z.number().int()).optional().describe('Organizer IDs (any of them)'),
          featured: z.boolean().optional().describe('Only featured (true) or only not featured (false) events'),
          near: z
            .object({
              lat: z.number().min(-90).max(90).describe('Latitude, e.g. 48.8566'),
              lng: z.number().min(-180).max(180).describe('Longitude, e.g. 2.3522'),
              radius: z.number().positive().optional().describe(`Distance from the point (default ${settings.geolocRadius})`),
              unit: z.enum(['km', 'mi']).optional().describe(`Unit of the radius (default ${settings.geolocUnit})`),
            })
            .optional()
            .describe('Events whose venue is within a distance of this point (the venue must have coordinates). The calendar does not geocode place names: give coordinates.'),
          status: z.string().optional().describe('Signed-in callers: statuses to include, comma-separated, e.g. "draft,pending" (default: published)'),
          ...pageInput,
        },
        readOnly: true,
      },
      async ({ rest }, a) => {
        const q = pageQuery(a);
        const { body } = await rest.call('GET', 'events', {
          query: {
            ...q,
            search: a.search,
            start_date: a.start_date,
            end_date: a.end_date,
            categories: list(a.categories),
            tags: list(a.tags),
            venue: list(a.venue),
            organizer: list(a.organizer),
            featured: a.featured === undefined ? undefined : a.featured ? '1' : '0',
            status: a.status,
            ...(a.near ? { geoloc_lat: a.near.lat, geoloc_lng: a.near.lng, geoloc_radius: a.near.radius, geoloc_unit: a.near.unit } : {}),
          },
        });
        return paged('events', ((body.events ?? []) as Json[]).map(eventSummary), body, q.page);
      },
    ),
  );

  tools.push(...recordTools());
  return tools;
}

/** Reading one event, and listing and reading the terms, venues and organizers. */
function recordTools(): ToolDef[] {
  const tools: ToolDef[] = [];
  tools.push(
    defineTool(
      'get_event',
      {
        title: 'Read an event',
        description: 'One event, whole: title, description, dates, time zone, cost, website, its venue (address, coordinates) and organizers, categories, tags, image, and its page `url`.',
        input: { id: idInput('event') },
        readOnly: true,
      },
      async ({ rest }, a) => (await rest.call('GET', `events/${a.id}`)).body,
    ),
  );

  for (const [name, base, what] of [
    ['list_categories', 'categories', 'event categories'],
    ['list_tags', 'tags', 'tags'],
  ] as const) {
    tools.push(
      defineTool(
        name,
        {
          title: `List ${what}`,
          description: `The calendar’s ${what} with how many events each has, by name; their slugs filter search_events.`,
          input: {
            search: z.string().optional().describe('Part of the name, e.g. "mus"'),
            hide_empty: z.boolean().optional().describe('Leave out those with no events (default true)'),
            ...pageInput,
          },
          readOnly: true,
        },
        async ({ rest }, a) => {
          const q = pageQuery(a);
          const { body } = await rest.call('GET', base, { query: { ...q, search: a.search, hide_empty: a.hide_empty === false ? '0' : '1' } });
          return paged(base, ((body[base] ?? []) as Json[]).map(termSummary), body, q.page);
        },
      ),
    );
  }

  for (const [kind, plural, summary] of [
    ['venue', 'venues', venueSummary],
    ['organizer', 'organizers', organizerSummary],
  ] as const) {
    tools.push(
      defineTool(
        `list_${plural}`,
        {
          title: `List ${plural}`,
          description: `The calendar’s ${plural}, by name; their IDs filter search_events and go in create_event’s \`${kind}\`.`,
          input: {
            search: z
              .string()
              .optional()
              .describe(kind === 'venue' ? 'Words in the name or address, e.g. "hall"' : 'Words in the name, e.g. "society"'),
            only_with_upcoming: z.boolean().optional().describe(`Only ${plural} with upcoming events`),
            ...pageInput,
          },
          readOnly: true,
        },
        async ({ rest }, a) => {
          const q = pageQuery(a);
          const { body } = await rest.call('GET', plural, { query: { ...q, search: a.search, only_with_upcoming: a.only_with_upcoming ? '1' : undefined } });
          return paged(plural, ((body[plural] ?? []) as Json[]).map(summary), body, q.page);
        },
      ),
    );
    tools.push(
      defineTool(
        `get_${kind}`,
        { title: `Read a ${kind}`, description: `One ${kind}, whole.`, input: { id: idInput(kind) }, readOnly: true },
        async ({ rest }, a) => (await rest.call('GET', `${plural}/${a.id}`)).body,
      ),
    );
  }
  return tools;
}
