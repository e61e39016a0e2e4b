/**
 * The MCP face's writing tools, for signed-in callers (an application password over HTTP Basic):
 * create, update, trash and restore events, venues and organizers. Each is the REST write of the
 * same meaning (`POST /events`, `POST /events/{id}`, `DELETE /events/{id}`, the admin namespace's
 * `POST /events/{id}/restore`; a venue or organizer is restored by setting its status again), so it
 * validates, checks the caller's role, logs the change and reaches webhooks as REST does; a refusal
 * (an anonymous caller, a contributor publishing, a bad date) is a tool error with REST's message.
 *
 * @example
 *   registerWriteTools(server, ctx); // create_event {title, start_date: '2026-12-05 19:30', end_date: '2026-12-05 22:00'}
 */
import * as z from 'zod';
import { defineTool, type ToolDef } from './tool.js';

type Json = Record<string, any>;

const DATE_FORMS = 'in the event’s time zone (`timezone`, else the calendar’s: see about_calendar) unless an offset is given; "YYYY-MM-DD HH:MM" or ISO 8601';

const STATUS = z
  .enum(['publish', 'draft', 'pending', 'private', 'future'])
  .describe('publish (public now), draft (only editors see it), pending (waits for review; a contributor’s events stay pending or draft), private, future (with a later `date`)');

/** The fields of an event write; `creating` makes title and dates required. */
function eventFields(creating: boolean) {
  const req = <T extends z.ZodTypeAny>(t: T) => (creating ? t : t.optional());
  return {
    title: req(z.string().describe('The title, e.g. "Winter jazz night"')),
    start_date: req(z.string().describe(`When it starts, ${DATE_FORMS}; e.g. "2026-12-05 19:30"`)),
    end_date: req(z.string().describe('When it ends, same forms; e.g. "2026-12-05 22:00". For an all-day event, the last day')),
    all_day: z.boolean().optional().describe('Whether it lasts whole days (then times are ignored)'),
    timezone: z.string().optional().describe('An IANA time zone for its dates, e.g. "Europe/Paris" (default: the calendar’s)'),
    description: z.string().optional().describe('The description (HTML or plain text; paragraphs from blank lines)'),
    excerpt: z.string().optional().describe('A short summary'),
    status: STATUS.optional(),
    venue: z.union([z.number().int(), z.string()]).optional().describe('An existing venue’s ID (list_venues), e.g. 12; or create_venue first. 0 or "" removes it on update'),
    organizer: z.array(z.number().int()).optional().describe('Existing organizers’ IDs (list_organizers), e.g. [15]; [] removes them on update'),
    categories: z
      .array(z.union([z.string(), z.number().int()]))
      .optional()
      .describe('Category names or IDs, e.g. ["Music"] (names that do not exist are created when your role may)'),
    tags: z
      .array(z.union([z.string(), z.number().int()]))
      .optional()
      .describe('Tag names or IDs, e.g. ["free", "outdoors"]'),
    cost: z.string().optional().describe('The cost as people should read it, e.g. "10", "Free" or "5-15"'),
    website: z.string().optional().describe('The event’s own web site (http or https)'),
    featured: z.boolean().optional().describe('Show it as featured'),
    image: z.string().optional().describe('An image URL, or the ID of an image in the media library'),
  };
}

/** The body REST takes: the fields given, as REST names them. */
function writeBody(a: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(a)) if (v !== undefined && k !== 'id') out[k] = v;
  return out;
}

const eventAnswer = (e: Json) => ({
  id: e.id,
  title: e.title,
  status: e.status,
  start_date: e.start_date,
  end_date: e.end_date,
  timezone: e.timezone,
  all_day: e.all_day,
  url: e.url,
  venue: e.venue && !Array.isArray(e.venue) ? { id: e.venue.id, venue: e.venue.venue } : null,
  organizer: ((e.organizer ?? []) as Json[]).map((o) => ({ id: o.id, organizer: o.organizer })),
  categories: ((e.categories ?? []) as Json[]).map((c) => c.name),
  tags: ((e.tags ?? []) as Json[]).map((t) => t.name),
});

const venueFields = (creating: boolean) => ({
  venue: creating ? z.string().describe('The venue’s name, e.g. "Town Hall"') : z.string().optional().describe('The venue’s name'),
  address: z.string().optional().describe('Street address, e.g. "1 Main Street"'),
  city: z.string().optional().describe('City'),
  province: z.string().optional().describe('Province or region'),
  state: z.string().optional().describe('State (US)'),
  zip: z.string().optional().describe('Postal code'),
  country: z.string().optional().describe('Country, e.g. "France"'),
  phone: z.string().optional().describe('Phone number'),
  website: z.string().optional().describe('Web site (http or https)'),
  description: z.string().optional().describe('Description'),
  geo_lat: z.number().min(-90).max(90).optional().describe('Latitude, e.g. 48.8566 (lets search_events find it by distance)'),
  geo_lng: z.number().min(-180).max(180).optional().describe('Longitude, e.g. 2.3522'),
  status: STATUS.optional(),
});

const organizerFields = (creating: boolean) => ({
  organizer: creating ? z.string().describe('The organizer’s name, e.g. "Jazz Society"') : z.string().optional().describe('The organizer’s name'),
  email: z.string().optional().describe('E-mail address (shown publicly)'),
  phone: z.string().optional().describe('Phone number'),
  website: z.string().optional().describe('Web site (http or https)'),
  description: z.string().optional().describe('Description'),
  status: STATUS.optional(),
});

const SIGNED_IN = 'Needs a signed-in caller whose role may do it (as the REST API).';

export function writeTools(): ToolDef[] {
  const tools: ToolDef[] = [];
  const id = (what: string) => z.number().int().min(1).describe(`The ${what}’s ID`);

  tools.push(
    defineTool(
      'create_event',
      {
        title: 'Create an event',
        description: `Create an event; answers it with its ID and page \`url\`. ${SIGNED_IN} Authors and above may publish; a contributor’s event is saved as pending (for review) or draft.`,
        input: eventFields(true),
        readOnly: false,
      },
      async ({ rest }, a) => eventAnswer((await rest.call('POST', 'events', { body: writeBody(a) })).body),
    ),
  );
  tools.push(
    defineTool(
      'update_event',
      {
        title: 'Update an event',
        description: `Change the fields given and keep the others. ${SIGNED_IN}`,
        input: { id: id('event'), ...eventFields(false) },
        readOnly: false,
        idempotent: true,
      },
      async ({ rest }, a) => eventAnswer((await rest.call('POST', `events/${a.id}`, { body: writeBody(a) })).body),
    ),
  );
  tools.push(
    defineTool(
      'trash_event',
      {
        title: 'Move an event to the trash',
        description: `Take an event off the calendar into the trash (restore_event brings it back). ${SIGNED_IN}`,
        input: { id: id('event') },
        readOnly: false,
      },
      async ({ rest }, a) => eventAnswer((await rest.call('DELETE', `events/${a.id}`)).body),
    ),
  );
  tools.push(
    defineTool(
      'restore_event',
      {
        title: 'Restore an event from the trash',
        description: `Bring a trashed event back with the status it had. ${SIGNED_IN}`,
        input: { id: id('event') },
        readOnly: false,
        idempotent: true,
      },
      async ({ rest }, a) => {
        await rest.call('POST', `events/${a.id}/restore`, { ns: 'admin', body: {} });
        return eventAnswer((await rest.call('GET', `events/${a.id}`)).body);
      },
    ),
  );

  for (const [kind, plural, fields] of [
    ['venue', 'venues', venueFields],
    ['organizer', 'organizers', organizerFields],
  ] as const) {
    const answer = (r: Json) => ({ id: r.id, [kind]: r[kind], status: r.status, url: r.url });
    tools.push(
      defineTool(
        `create_${kind}`,
        { title: `Create a ${kind}`, description: `Create a ${kind}; its ID goes in create_event’s \`${kind}\`. ${SIGNED_IN}`, input: fields(true), readOnly: false },
        async ({ rest }, a) => answer((await rest.call('POST', plural, { body: writeBody(a) })).body),
      ),
    );
    tools.push(
      defineTool(
        `update_${kind}`,
        { title: `Update a ${kind}`, description: `Change the fields given and keep the others. ${SIGNED_IN}`, input: { id: id(kind), ...fields(false) }, readOnly: false, idempotent: true },
        async ({ rest }, a) => answer((await rest.call('POST', `${plural}/${a.id}`, { body: writeBody(a) })).body),
      ),
    );
    tools.push(
      defineTool(
        `trash_${kind}`,
        { title: `Move a ${kind} to the trash`, description: `Move a ${kind} to the trash (restore_${kind} brings it back). ${SIGNED_IN}`, input: { id: id(kind) }, readOnly: false },
        async ({ rest }, a) => answer((await rest.call('DELETE', `${plural}/${a.id}`)).body),
      ),
    );
    tools.push(
      defineTool(
        `restore_${kind}`,
        {
          title: `Restore a ${kind} from the trash`,
          description: `Take a ${kind} out of the trash with the status given (default publish). ${SIGNED_IN}`,
          input: { id: id(kind), status: STATUS.optional() },
          readOnly: false,
          idempotent: true,
        },
        async ({ rest }, a) => answer((await rest.call('POST', `${plural}/${a.id}`, { body: { status: a.status ?? 'publish' } })).body),
      ),
    );
  }
  return tools;
}
