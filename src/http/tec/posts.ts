/**
 * What the three `tec/v1` post entities share: the WordPress post fields of a request body
 * (TEC_Post_Entity_Request_Body), the documentation of their operations, and password-protected
 * records (content withheld until `?password=` is given).
 *
 * @example const args = { ...postWriteArgs(services), phone: text('The organizer phone') };
 */
import type { Services } from '../../domain/services.js';
import type { Args, ArgSpec, EndpointContext, EndpointDocs } from '../route.js';
import { eventWriteArgs } from '../routes/events.js';
import { isProtected, passwordMatches, type PasswordHolder } from '../../domain/post-passwords.js';
import { canEditPost, type OwnedRecord } from '../../domain/permissions.js';
import { postPasswordArg } from '../routes/common.js';
import type { EntityEnv, EntityType } from './entities.js';

/** The WordPress post fields every entity's body takes, checked as the legacy routes check them. */
export function postWriteArgs(services: Services, legacy: Args = eventWriteArgs(services)): Args {
  const from = (name: string, description: string): ArgSpec => {
    const { required: _required, default: _default, ...spec } = legacy[name]!;
    return { ...spec, description };
  };
  const oneOf = (values: readonly string[], description: string): ArgSpec => ({ type: 'string', description, enum: values, validate: (v) => values.includes(String(v)) });
  return {
    date: from('date', "The date the entity was published, in the site's timezone"),
    date_gmt: from('date_utc', 'The date the entity was published, as GMT'),
    slug: from('slug', 'An alphanumeric identifier for the entity unique to its type'),
    status: from('status', 'A named status for the entity'),
    title: from('title', 'The title for the entity'),
    content: from('description', 'The content for the entity'),
    excerpt: from('excerpt', 'The excerpt for the entity'),
    author: from('author', 'The ID for the author of the entity'),
    featured_media: from('image', 'The ID of the featured media for the entity'),
    // WordPress post fields a calendar has no use for: accepted, and left as they are.
    comment_status: oneOf(['open', 'closed'], 'Whether or not comments are open on the entity'),
    ping_status: oneOf(['open', 'closed'], 'Whether or not the entity can be pinged'),
    format: oneOf(['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'], 'The format for the entity'),
    sticky: from('sticky', 'Whether or not the entity should be treated as sticky'),
    template: { type: 'string', description: 'The theme file to use to display the entity' },
    tags: { ...from('tags', 'The terms assigned to the entity in the post_tag taxonomy'), items: { type: 'integer' }, docType: 'array' },
    // Ours, beyond the original's body (which drops it): the post password, as the legacy routes take it.
    password: postPasswordArg("entity's"),
  };
}

/** The documentation of an entity's five operations (the original's summaries and answers). */
export function tecDocs(kind: 'event' | 'venue' | 'organizer', plural: string): Record<'list' | 'create' | 'read' | 'update' | 'delete', EndpointDocs> {
  const Kind = kind.charAt(0).toUpperCase() + kind.slice(1);
  const a = kind === 'venue' ? 'a' : 'an';
  const An = kind === 'venue' ? 'A' : 'An';
  return {
    list: {
      summary: `Retrieve ${Kind}s`,
      description: `Returns a list of ${plural}`,
      operationId: `get${Kind}s`,
      responses: {
        '200': { description: `Returns the list of ${plural}`, schema: Kind, listTitle: plural },
        '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
        '404': { description: 'The requested page was not found' },
      },
    },
    create: {
      summary: `Create ${a} ${Kind}`,
      description: `Creates a new ${kind}`,
      operationId: `create${Kind}`,
      responses: {
        '201': { description: `${Kind} created successfully`, schema: Kind },
        '400': { description: 'Invalid request data' },
        '401': { description: 'You are not logged in' },
        '403': { description: `You do not have permission to create ${plural}` },
      },
    },
    read: {
      summary: `Retrieve ${a} ${Kind}`,
      description: `Returns a single ${kind}`,
      operationId: `get${Kind}`,
      responses: { '200': { description: `Returns the ${kind}`, schema: Kind }, '404': { description: `The requested ${kind} was not found` } },
    },
    update: {
      summary: `Update ${a} ${Kind}`,
      description: `Updates an existing ${kind}`,
      operationId: `update${Kind}`,
      responses: {
        '200': { description: `${Kind} updated successfully`, schema: Kind },
        '400': { description: 'Invalid request data' },
        '401': { description: 'You are not logged in' },
        '403': { description: `You do not have permission to update this ${kind}` },
        '404': { description: `The requested ${kind} was not found` },
      },
    },
    delete: {
      summary: `Delete ${a} ${Kind}`,
      description: `Deletes an existing ${kind}`,
      operationId: `delete${Kind}`,
      responses: {
        '200': { description: `${Kind} deleted successfully` },
        '401': { description: 'You are not logged in' },
        '403': { description: `You do not have permission to delete this ${kind}` },
        '404': { description: `The requested ${kind} was not found` },
        '410': { description: `The ${kind} has already been trashed` },
        '501': { description: `${An} ${kind} that does not support trashing. Set force=true to delete` },
      },
    },
  };
}

/**
 * The entity environment of a request, with the rule of password-protected records (WordPress'
 * can_access_password_content): a record with a password shows its content when the request's
 * `password` is its password, or the caller may edit it and asks for `context=edit` (unlocked),
 * and withholds it otherwise (locked). `legacy` are the answer's records (events with their venues and organizers embedded).
 */
export async function withPasswords(services: Services, env: EntityEnv, ctx: EndpointContext, legacy: Array<Record<string, any>>, type: EntityType): Promise<EntityEnv> {
  const ids: Record<EntityType, Set<number>> = { tribe_events: new Set(), tribe_venue: new Set(), tribe_organizer: new Set() };
  for (const json of legacy) {
    ids[type].add(Number(json.id));
    if (type !== 'tribe_events') continue;
    const venues = Array.isArray(json.venue) ? json.venue : json.venue && typeof json.venue === 'object' ? [json.venue] : [];
    for (const v of venues) ids.tribe_venue.add(Number(v.id));
    for (const o of (json.organizer ?? []) as Array<{ id: unknown }>) ids.tribe_organizer.add(Number(o.id));
  }
  const records = new Map<string, OwnedRecord & PasswordHolder>();
  const keep = (t: EntityType, record: (OwnedRecord & PasswordHolder) | undefined) => {
    if (record && isProtected(record)) records.set(`${t}:${Number((record as { id?: unknown }).id)}`, record);
  };
  await Promise.all([
    ...[...ids.tribe_events].map(async (id) => keep('tribe_events', await services.events.findById(id))),
    // Venues and organizers in one batch each (kept records).
    services.venues.load([...ids.tribe_venue]).then((found) => found.forEach((record) => keep('tribe_venue', record))),
    services.organizers.load([...ids.tribe_organizer]).then((found) => found.forEach((record) => keep('tribe_organizer', record))),
  ]);
  if (records.size === 0) return env;
  const given = ctx.args.password ?? ctx.input?.password;
  // Editors see the content without the password only when they ask for the edit context (WordPress).
  const editContext = ctx.input?.context === 'edit';
  return {
    ...env,
    protection: (json, t) => {
      const record = records.get(`${t}:${Number(json.id)}`);
      if (!record) return 'none';
      return passwordMatches(record, given) || (editContext && canEditPost(ctx.viewer, t, record)) ? 'unlocked' : 'locked';
    },
  };
}
