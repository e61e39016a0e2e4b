/**
 * Community submissions through MCP, registered only when SUBMISSIONS is not `off` (then the tools
 * do not exist, as the REST routes answer 404): `propose_event` for the public (or, with
 * SUBMISSIONS=registered, signed-in callers), and the moderation queue for editors and
 * administrators (`list_submissions`, `approve_submission`, `decline_submission`,
 * `request_submission_changes`). Each is the REST route of the same meaning
 * (`calendar/submissions/v1` and `calendar/admin/v1`), so a proposal passes the same checks (the
 * limits per address and e-mail, the link limit, the description's length, duplicates flagged) and
 * waits for a moderator like one sent from the form.
 *
 * The web form's proof of work (SUBMISSIONS_POW=on) is a computation the visitor's browser does
 * (about 25,000 SHA-256 hashes); an assistant cannot be counted on to run it, and the service will
 * not solve its own challenge (that would make it worthless). So with it on, a proposal through MCP
 * needs the solved `altcha` like any API client's, and is otherwise refused with REST's own message;
 * signed-in callers add events with create_event instead (a contributor's wait for review too).
 * docs/mcp.md says so. The form's "open for a few seconds"
 * check does not apply: REST has no form to time.
 *
 * @example
 *   registerSubmissionTools(server, ctx); // propose_event {title, start_date, end_date, name, email}
 */
import type { Config } from '../config.js';
import * as z from 'zod';
import { defineTool, paged, pageInput, pageQuery, type ToolDef } from './tool.js';

type Json = Record<string, any>;

/** A submission as a moderator decides on it: who sent what, the flags, the event as proposed. */
const submissionSummary = (s: Json): Json => {
  const e = (s.event ?? {}) as Json;
  return {
    id: s.id,
    status: s.status,
    flags: s.flags,
    created: s.created,
    submitter: s.submitter ? { name: s.submitter.name, email: s.submitter.email, signed_in_user: s.submitter.user_id || null } : undefined,
    event: {
      id: e.id,
      title: e.title,
      description: e.description,
      start_date: e.start_date,
      end_date: e.end_date,
      timezone: e.timezone,
      all_day: e.all_day,
      cost: e.cost,
      venue: e.venue ? { id: e.venue.id, venue: e.venue.venue, status: e.venue.status } : null,
      organizer: ((e.organizer ?? []) as Json[]).map((o) => ({ id: o.id, organizer: o.organizer, status: o.status })),
      categories: ((e.categories ?? []) as Json[]).map((c) => c.name ?? c.id),
    },
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.publish_at ? { publish_at: s.publish_at } : {}),
  };
};

/** The submission tools of a calendar whose settings are `config` (read once, when its tools are built). */
export function submissionTools(config: Pick<Config, 'submissions' | 'submissionsPow' | 'siteUrl' | 'restRoot'>): ToolDef[] {
  const tools: ToolDef[] = [];
  if (config.submissions === 'off') return tools;
  tools.push(
    defineTool(
      'propose_event',
      {
        title: 'Propose an event',
        description:
          (config.submissions === 'anyone' ? 'Anyone may propose an event to the calendar' : 'Signed-in callers may propose an event') +
          '; a moderator reviews it before it is published. Answers the submission and a private `link` where the submitter can follow, edit or withdraw it: give it to them. ' +
          'Proposals are limited per address and per e-mail address, may hold a few links at most, and an event like one already on the calendar is flagged for the moderator.',
        input: {
          title: z.string().describe('The title, e.g. "Winter jazz night" (at most 200 characters)'),
          start_date: z.string().describe('When it starts, "YYYY-MM-DD HH:MM" in `timezone` (default: the calendar’s, see about_calendar), e.g. "2026-12-05 19:30"'),
          end_date: z.string().describe('When it ends, same form, e.g. "2026-12-05 22:00"'),
          all_day: z.boolean().optional().describe('Whether it lasts whole days'),
          timezone: z.string().optional().describe('An IANA time zone, e.g. "Europe/Paris"'),
          description: z.string().optional().describe('What it is; simple HTML (p, br, strong, em, a, lists) is kept'),
          venue: z
            .union([
              z.number().int(),
              z.object({
                venue: z.string().describe('Name'),
                address: z.string().optional(),
                city: z.string().optional(),
                province: z.string().optional(),
                zip: z.string().optional(),
                country: z.string().optional(),
                phone: z.string().optional(),
                website: z.string().optional(),
              }),
            ])
            .optional()
            .describe('An existing venue’s ID (list_venues), or a new venue {venue, address, city, zip, country}'),
          organizer: z
            .union([z.number().int(), z.object({ organizer: z.string().describe('Name'), email: z.string().optional(), phone: z.string().optional(), website: z.string().optional() })])
            .optional()
            .describe('An existing organizer’s ID, or a new organizer {organizer, email, phone, website}'),
          categories: z.array(z.number().int()).optional().describe('IDs of existing categories (list_categories), e.g. [3]'),
          cost: z.string().optional().describe('The cost, e.g. "Free"'),
          website: z.string().optional().describe('The event’s web site (http or https)'),
          image: z.string().optional().describe('An image URL (http or https)'),
          name: z.string().optional().describe('The submitter’s name (shown to moderators only); required unless signed in'),
          email: z.string().optional().describe('The submitter’s e-mail address (moderators only; where the decision is sent); required unless signed in'),
          ...(config.submissionsPow
            ? {
                altcha: z
                  .string()
                  .optional()
                  .describe(
                    `This calendar asks for a proof of work: the solved ALTCHA challenge from ${config.siteUrl}${config.restRoot}/calendar/submissions/v1/challenge (base64 JSON). Without it the proposal is refused.`,
                  ),
              }
            : {}),
        },
        readOnly: false,
      },
      async ({ rest }, a) => {
        const body: Json = {};
        for (const [k, v] of Object.entries(a)) if (v !== undefined) body[k] = v;
        const { body: made } = await rest.call('POST', 'submissions', { ns: 'submissions', body });
        return { id: made.id, status: made.status, link: made.link, token: made.token, event: made.event ? { title: made.event.title, start_date: made.event.start_date } : undefined };
      },
    ),
  );

  const MODERATORS = 'For editors and administrators.';
  tools.push(
    defineTool(
      'list_submissions',
      {
        title: 'List the submissions queue',
        description: `Proposed events waiting for a decision (pending, and those whose submitter was asked for changes), newest first, with the submitter and flags. ${MODERATORS}`,
        input: {
          status: z
            .array(z.enum(['pending', 'changes_requested', 'approved', 'rejected', 'withdrawn', 'any']))
            .optional()
            .describe('Only these states (default pending and changes_requested); "any" for all'),
          flagged: z.boolean().optional().describe('Only those flagged as likely duplicates (true) or not (false)'),
          ...pageInput,
        },
        readOnly: true,
      },
      async ({ rest }, a) => {
        const q = pageQuery(a);
        const { body, headers } = await rest.call('GET', 'submissions', {
          ns: 'admin',
          query: { ...q, status: a.status?.join(','), flagged: a.flagged === undefined ? undefined : a.flagged ? '1' : '0' },
        });
        return paged('submissions', (body as Json[]).map(submissionSummary), { total: headers['x-wp-total'], total_pages: headers['x-wp-totalpages'] }, q.page);
      },
    ),
  );
  tools.push(
    defineTool(
      'approve_submission',
      {
        title: 'Approve a submission',
        description: `Publish a proposed event (now, or at \`publish_at\`), with its new venue and organizer. ${MODERATORS}`,
        input: {
          id: z.number().int().min(1).describe('The submission’s ID (list_submissions)'),
          publish_at: z.string().optional().describe('Publish later, at this date and time in the calendar’s time zone, e.g. "2026-11-30 09:00"'),
        },
        readOnly: false,
      },
      async ({ rest }, a) => submissionSummary((await rest.call('POST', `submissions/${a.id}/approve`, { ns: 'admin', body: a.publish_at ? { publish_at: a.publish_at } : {} })).body),
    ),
  );
  for (const [name, path, title, what] of [
    ['decline_submission', 'reject', 'Decline a submission', 'Decline a proposed event (its event is trashed); the reason is shown to the submitter.'],
    ['request_submission_changes', 'request-changes', 'Ask for changes to a submission', 'Send a proposed event back to its submitter with what to change; they edit it through their link.'],
  ] as const) {
    tools.push(
      defineTool(
        name,
        {
          title,
          description: `${what} ${MODERATORS}`,
          input: {
            id: z.number().int().min(1).describe('The submission’s ID (list_submissions)'),
            reason: z.string().describe('Why, in words the submitter will read, e.g. "The date is in the past."'),
          },
          readOnly: false,
        },
        async ({ rest }, a) => submissionSummary((await rest.call('POST', `submissions/${a.id}/${path}`, { ns: 'admin', body: { reason: a.reason } })).body),
      ),
    );
  }
  return tools;
}
