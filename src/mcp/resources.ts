/**
 * The MCP face's resources and prompts. Resources are the calendar's public feeds, read as the
 * pages face serves them (anonymously, whoever asks): the iCalendar subscription feed
 * (`/events.ics`, upcoming published events), a category's and a tag's feed
 * (`/events/category/{slug}/ical/`, `/events/tag/{slug}/ical/`) and one event's
 * (`/event/{slug}/ical/`). Prompts start the two conversations an assistant is most often asked
 * for: planning a week from the calendar, and proposing (or, signed in, creating) an event.
 *
 * @example
 *   registerResources(server, ctx); // resources/read {uri: 'https://calendar.example/events.ics'}
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { ToolContext } from './tool.js';

const ICAL = 'text/calendar';

export function registerResources(server: McpServer, { rest, config }: ToolContext): void {
  const site = config.siteUrl;
  // A calendar's site is SITE_URL/c/{slug} or a host name of its own: its pages are read at their
  // path under it (the URI matched one of its own resources, so it starts with that path).
  const base = new URL(site).pathname.replace(/\/$/, '');
  const read = async (uri: URL) => {
    const { text, type } = await rest.page(uri.pathname.slice(base.length) + uri.search);
    return { contents: [{ uri: uri.href, mimeType: type.split(';')[0]!.trim() || ICAL, text }] };
  };
  server.registerResource(
    'calendar-feed',
    `${site}/events.ics`,
    { title: 'The calendar (iCalendar)', description: 'Upcoming published events as an iCalendar feed, the one calendar apps subscribe to.', mimeType: ICAL },
    async (uri) => read(uri),
  );
  for (const [name, path, what] of [
    ['category-feed', 'events/category/{slug}/ical/', 'a category’s'],
    ['tag-feed', 'events/tag/{slug}/ical/', 'a tag’s'],
    ['event-ical', 'event/{slug}/ical/', 'one event’s'],
  ] as const) {
    server.registerResource(
      name,
      new ResourceTemplate(`${site}/${path}`, { list: undefined }),
      {
        title: `${what[0]!.toUpperCase()}${what.slice(1)} iCalendar`,
        description: `${what[0]!.toUpperCase()}${what.slice(1)} published events as iCalendar; {slug} as list tools and events name it.`,
        mimeType: ICAL,
      },
      async (uri) => read(uri),
    );
  }
}

// Built once (schemas cost more to build than a request to answer).
const PLAN_ARGS = {
  interests: z.string().optional().describe('What you like, e.g. "jazz, family outings"'),
  start: z.string().optional().describe('The first day, e.g. "2026-12-07" (default: today)'),
};
const PROPOSE_ARGS = { about: z.string().optional().describe('What you know of the event, in your words') };

export function registerPrompts(server: McpServer, { config, viewer }: ToolContext): void {
  server.registerPrompt(
    'plan_my_week',
    {
      title: 'Plan my week',
      description: 'Find what is on in the calendar over seven days and suggest a plan around the interests given.',
      argsSchema: PLAN_ARGS,
    },
    ({ interests, start }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `Plan my week from the calendar "${config.siteName}". Call about_calendar for today's date and the time zone, then search_events from ${start ?? 'today'} for seven days ` +
              `(page through every result: next_page says when there is more)${interests ? `, looking first for: ${interests}` : ''}. ` +
              'Group the events by day with times, places and links, point out clashes, and suggest a plan. Only mention events the tools returned.',
          },
        },
      ],
    }),
  );
  const signedIn = viewer.id > 0;
  if (config.submissions === 'off' && !signedIn) return;
  server.registerPrompt(
    'propose_event',
    {
      title: 'Propose an event',
      description: signedIn ? 'Gather an event’s details and add it to the calendar.' : 'Gather an event’s details and propose it to the calendar’s moderators.',
      argsSchema: PROPOSE_ARGS,
    },
    ({ about }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `I want to ${signedIn ? 'add' : 'propose'} an event to the calendar "${config.siteName}".${about ? ` Here is what I know: ${about}` : ''} ` +
              'Call about_calendar for the time zone. Ask me for anything missing: a title, the start and end (date and time), the place, who organises it, a short description, the cost. ' +
              'Check list_venues and list_organizers for ones that exist already and search_events for the same event. ' +
              (signedIn
                ? 'Then show me the details and, once I confirm, call create_event (create_venue or create_organizer first when they are new).'
                : 'Also ask for my name and e-mail address (only moderators see them). Then show me the details and, once I confirm, call propose_event and give me the link it returns.'),
          },
        },
      ],
    }),
  );
}
