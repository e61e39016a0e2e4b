/**
 * The original's OpenAPI definitions of `tec/v1` (components.schemas of `tec/v1/docs`), as The
 * Events Calendar 6.15 and its common library document them (their tests' snapshots), in the
 * order the original lists them (by priority). Data, not code: the wire contract of the entities.
 *
 * @example TEC_DEFINITIONS.Event.allOf[0] // { $ref: '#/components/schemas/TEC_Post_Entity' }
 */

/** A wall time property as the original's definitions write it (`Y-m-d H:i:s`). */
const dateTime = (description: string, example: string) => ({
  description,
  type: 'string',
  format: 'date-time',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$',
  example,
});

export const TEC_DEFINITIONS: Record<string, any> = {
  TEC_Post_Entity: {
    type: 'object',
    title: 'TEC Post Entity',
    description: 'A TEC post object as returned by the REST API',
    properties: {
      date: {
        description: "The date the entity was published, in the site's timezone. In RFC3339 format.",
        nullable: true,
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}(?::\\d{2})?)?$',
        example: '2025-06-04T23:36:56+01:00',
      },
      date_gmt: {
        description: 'The date the entity was published, as GMT. In RFC3339 format.',
        nullable: true,
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}(?::\\d{2})?)?$',
        example: '2025-06-04T22:36:56Z',
      },
      guid: {
        description: 'The globally unique identifier for the entity.',
        nullable: true,
        readOnly: true,
        type: 'object',
        properties: { rendered: { description: 'The globally unique identifier for the entity.', type: 'string', format: 'uri', example: 'https://example.com/?p=12345' } },
      },
      id: { description: 'Unique identifier for the entity.', readOnly: true, type: 'integer', example: 12345 },
      link: { description: 'URL to the entity.', readOnly: true, type: 'string', format: 'uri', example: 'https://example.com/my-awesome-title' },
      modified: {
        description: "The date the entity was last modified, in the site's timezone. In RFC3339 format.",
        readOnly: true,
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}(?::\\d{2})?)?$',
        example: '2025-06-05T19:06:56-03:30',
      },
      modified_gmt: {
        description: 'The date the entity was last modified, as GMT. In RFC3339 format.',
        readOnly: true,
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}(?::\\d{2})?)?$',
        example: '2025-06-05T22:36:56Z',
      },
      slug: { description: 'An alphanumeric identifier for the entity unique to its type', type: 'string', example: 'my-awesome-title' },
      status: { description: 'A named status for the entity.', type: 'string', default: 'publish', enum: ['publish', 'pending', 'draft', 'future', 'private'], example: 'publish' },
      permalink_template: { description: 'Permalink template for the entity.', readOnly: true, type: 'string', example: 'https://example.com/sample/' },
      generated_slug: { description: 'Slug automatically generated from the entity title', readOnly: true, type: 'string', example: 'my-awesome-title' },
      title: {
        description: 'The globally unique identifier for the entity.',
        type: 'object',
        properties: { rendered: { description: 'HTML title for the entity, transformed for display', type: 'string', example: 'My Awesome Title' } },
      },
      content: {
        description: 'The content for the entity.',
        type: 'object',
        properties: {
          rendered: { description: 'HTML content for the entity, transformed for display', type: 'string', example: 'This is the content...' },
          protected: { description: 'Whether the content is protected with a password', type: 'boolean', example: false },
        },
      },
      excerpt: {
        description: 'The excerpt for the entity.',
        type: 'object',
        properties: {
          rendered: { description: 'HTML excerpt for the entity, transformed for display', type: 'string', example: 'This is the excerpt...' },
          protected: { description: 'Whether the excerpt is protected with a password', type: 'boolean', example: false },
        },
      },
      author: { description: 'The ID for the author of the entity.', type: 'integer', example: 1 },
      featured_media: { description: 'The ID of the featured media for the entity.', type: 'integer', example: 123 },
      comment_status: { description: 'Whether or not comments are open on the entity.', type: 'string', default: 'open', enum: ['open', 'closed'], example: 'open' },
      ping_status: { description: 'Whether or not the entity can be pinged', type: 'string', default: 'open', enum: ['open', 'closed'], example: 'open' },
      format: {
        description: 'The format for the entity.',
        type: 'string',
        default: 'standard',
        enum: ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'],
        example: 'standard',
      },
      sticky: { description: 'Whether or not the entity should be treated as sticky', type: 'boolean', default: false, example: false },
      template: { description: 'The theme file to use to display the entity.', type: 'string', example: 'templates-full.php' },
      tags: { description: 'The terms assigned to the entity in the post_tag taxonomy', type: 'array', items: { type: 'integer' }, uniqueItems: true, example: [2, 8, 15] },
    },
  },
  TEC_Post_Entity_Request_Body: {
    title: 'TEC Post Entity Request Body',
    description: 'A TEC post object as expected by the REST API',
    type: 'object',
    properties: {
      date: {
        description: "The date the entity was published, in the site's timezone. In RFC3339 format.",
        nullable: true,
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}(?::\\d{2})?)?$',
        example: '2025-06-04T23:36:56+01:00',
      },
      date_gmt: {
        description: 'The date the entity was published, as GMT. In RFC3339 format.',
        nullable: true,
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}(?::\\d{2})?)?$',
        example: '2025-06-04T22:36:56Z',
      },
      slug: { description: 'An alphanumeric identifier for the entity unique to its type', type: 'string', example: 'my-awesome-title' },
      status: { description: 'A named status for the entity.', type: 'string', default: 'publish', enum: ['publish', 'pending', 'draft', 'future', 'private'], example: 'publish' },
      title: { description: 'HTML title for the entity, transformed for display', type: 'string', example: 'My Awesome Title' },
      content: { description: 'HTML content for the entity, transformed for display', type: 'string', example: 'This is the content...' },
      excerpt: { description: 'HTML excerpt for the entity, transformed for display', type: 'string', example: 'This is the excerpt...' },
      author: { description: 'The ID for the author of the entity.', type: 'integer', example: 1 },
      featured_media: { description: 'The ID of the featured media for the entity.', type: 'integer', example: 123 },
      comment_status: { description: 'Whether or not comments are open on the entity.', type: 'string', default: 'open', enum: ['open', 'closed'], example: 'open' },
      ping_status: { description: 'Whether or not the entity can be pinged', type: 'string', default: 'open', enum: ['open', 'closed'], example: 'open' },
      format: {
        description: 'The format for the entity.',
        type: 'string',
        default: 'standard',
        enum: ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'],
        example: 'standard',
      },
      sticky: { description: 'Whether or not the entity should be treated as sticky', type: 'boolean', default: false, example: false },
      template: { description: 'The theme file to use to display the entity.', type: 'string', example: 'templates-full.php' },
      tags: { description: 'The terms assigned to the entity in the post_tag taxonomy', type: 'array', items: { type: 'integer' }, uniqueItems: true, example: [2, 8, 15] },
    },
  },
  Event: {
    allOf: [
      { $ref: '#/components/schemas/TEC_Post_Entity' },
      {
        type: 'object',
        description: 'An event',
        title: 'Event',
        properties: {
          tribe_events_cat: { description: 'The terms assigned to the entity in the tribe_events_cat taxonomy', type: 'array', items: { type: 'integer' }, uniqueItems: true, example: [1, 5, 12] },
          start_date: dateTime('The start date of the event', '2025-06-05 12:00:00'),
          start_date_utc: dateTime('The start date of the event in UTC', '2025-06-05 09:00:00'),
          end_date: dateTime('The end date of the event', '2025-06-05 16:00:00'),
          end_date_utc: dateTime('The end date of the event in UTC', '2025-06-05 13:00:00'),
          dates: { $ref: '#/components/schemas/DateDetails' },
          timezone: { description: 'The timezone of the event', type: 'string', example: 'Europe/Athens' },
          duration: { description: 'The duration of the event in seconds', type: 'integer', example: 14400 },
          multiday: { description: 'Whether the event is multiday', type: 'boolean', example: false },
          is_past: { description: 'Whether the event is in the past', type: 'boolean', example: false },
          is_now: { description: 'Whether the event is happening now', type: 'boolean', example: false },
          all_day: { description: 'Whether the event is all day', type: 'boolean', example: false },
          starts_this_week: { description: 'Whether the event starts this week', nullable: true, type: 'boolean', example: false },
          ends_this_week: { description: 'Whether the event ends this week', nullable: true, type: 'boolean', example: false },
          happens_this_week: { description: 'Whether the event happens this week', nullable: true, type: 'boolean', example: false },
          this_week_duration: { description: 'The duration of the event in the current week', nullable: true, type: 'integer', example: 3600 },
          displays_on: {
            description: 'The days of the week that the event displays on',
            type: 'array',
            items: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
            uniqueItems: true,
            example: ['2025-06-05'],
          },
          featured: { description: 'Whether the event is featured', type: 'boolean', example: false },
          sticky: { description: 'Whether the event is sticky', type: 'boolean', example: false },
          cost: { description: 'The cost of the event', type: 'string', example: '$10' },
          organizer_names: { description: 'The names of the organizers of the event', type: 'array', items: { type: 'string' }, uniqueItems: true, example: ['John Doe', 'Jane Doe'] },
          organizers: { description: 'The organizers of the event', type: 'array', items: { $ref: '#/components/schemas/Organizer' } },
          venues: { description: 'The venues of the event', type: 'array', items: { $ref: '#/components/schemas/Venue' } },
          ticketed: { description: 'Array of ticket providers or false if the event is not ticketed.', type: 'array', items: { type: 'string' }, uniqueItems: true, example: ['tc'] },
          schedule_details: { description: 'The schedule details of the event', type: 'string', example: '10:00 - 12:00' },
          short_schedule_details: { description: 'The schedule details of the event in HTML', type: 'string', example: '<p>10:00 - 12:00</p>' },
        },
      },
    ],
  },
  Event_Request_Body: {
    allOf: [
      { $ref: '#/components/schemas/TEC_Post_Entity_Request_Body' },
      {
        title: 'Event Request Body',
        description: 'The request body for the event endpoint',
        type: 'object',
        properties: {
          tribe_events_cat: { description: 'The terms assigned to the entity in the tribe_events_cat taxonomy', type: 'array', items: { type: 'integer' }, uniqueItems: true, example: [1, 5, 12] },
          start_date: dateTime('The start date of the event', '2025-06-05 12:00:00'),
          start_date_utc: dateTime('The start date of the event in UTC', '2025-06-05 09:00:00'),
          end_date: dateTime('The end date of the event', '2025-06-05 16:00:00'),
          end_date_utc: dateTime('The end date of the event in UTC', '2025-06-05 13:00:00'),
          timezone: { description: 'The timezone of the event', type: 'string', example: 'Europe/Athens' },
          duration: { description: 'The duration of the event in seconds', type: 'integer', example: 14400 },
          all_day: { description: 'Whether the event is all day', type: 'boolean', example: false },
          featured: { description: 'Whether the event is featured', type: 'boolean', example: false },
          sticky: { description: 'Whether the event is sticky', type: 'boolean', example: false },
          cost: { description: 'The cost of the event', type: 'string', example: '$10' },
          organizers: { description: 'The organizers of the event', type: 'array', items: { type: 'integer' }, uniqueItems: true, example: [1, 2] },
          venues: { description: 'The venues of the event', type: 'array', items: { type: 'integer' }, uniqueItems: true, example: [7] },
        },
      },
    ],
  },
  Organizer_Request_Body: {
    allOf: [
      { $ref: '#/components/schemas/TEC_Post_Entity_Request_Body' },
      {
        type: 'object',
        title: 'Organizer Request Body',
        description: 'The request body for the organizer endpoint',
        properties: {
          phone: { description: "The organizer's phone number", type: 'string', format: 'tel', example: '123-456-7890' },
          website: { description: "The organizer's website", type: 'string', format: 'uri', example: 'https://example.com' },
          email: { description: "The organizer's email address", type: 'string', format: 'email', example: 'example@theeventscalendar.com' },
        },
      },
    ],
  },
  Venue_Request_Body: {
    allOf: [
      { $ref: '#/components/schemas/TEC_Post_Entity_Request_Body' },
      {
        type: 'object',
        title: 'Venue Request Body',
        description: 'The request body for the venue endpoint',
        properties: {
          address: { description: 'The venue address', type: 'string', example: 'Example' },
          country: { description: 'The venue country', type: 'string', example: 'Example' },
          city: { description: 'The venue city', type: 'string', example: 'Example' },
          state_province: { description: 'The venue state/province', type: 'string', example: 'Example' },
          state: { description: 'The venue state', type: 'string', example: 'Example' },
          province: { description: 'The venue province', type: 'string', example: 'Example' },
          zip: { description: 'The venue zip code', type: 'string', example: 'Example' },
          phone: { description: 'The venue phone number', type: 'string', example: 'Example' },
          website: { description: 'The venue website', type: 'string', format: 'uri', example: 'https://example.com' },
        },
      },
    ],
  },
  Organizer: {
    allOf: [
      { $ref: '#/components/schemas/TEC_Post_Entity' },
      {
        type: 'object',
        title: 'Organizer',
        description: 'An organizer',
        properties: {
          phone: { description: "The organizer's phone number", type: 'string', format: 'tel', example: '123-456-7890' },
          website: { description: "The organizer's website", type: 'string', format: 'uri', example: 'https://example.com' },
          email: { description: "The organizer's email address", type: 'string', format: 'email', example: 'example@theeventscalendar.com' },
        },
      },
    ],
  },
  Venue: {
    allOf: [
      { $ref: '#/components/schemas/TEC_Post_Entity' },
      {
        title: 'Venue',
        description: 'A venue',
        type: 'object',
        properties: {
          address: { description: 'The venue address', type: 'string', example: 'Example' },
          country: { description: 'The venue country', type: 'string', example: 'Example' },
          city: { description: 'The venue city', type: 'string', example: 'Example' },
          state_province: { description: 'The venue state/province', type: 'string', example: 'Example' },
          state: { description: 'The venue state', type: 'string', example: 'Example' },
          province: { description: 'The venue province', type: 'string', example: 'Example' },
          zip: { description: 'The venue zip code', type: 'string', example: 'Example' },
          phone: { description: 'The venue phone number', type: 'string', example: 'Example' },
          website: { description: 'The venue website', type: 'string', format: 'uri', example: 'https://example.com' },
          directions_link: { description: 'The venue directions link', type: 'string', format: 'uri', example: 'https://example.com' },
        },
      },
    ],
  },
  Date: {
    type: 'object',
    properties: {
      date: { description: 'The date', type: 'string', format: 'date-time', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}$', example: '2025-07-10 08:00:00.000000' },
      timezone_type: { description: 'The timezone type', type: 'integer', example: 1 },
      timezone: { description: 'The timezone of the date', type: 'string', example: 'Europe/Athens' },
    },
  },
  DateDetails: {
    type: 'object',
    properties: {
      start: { $ref: '#/components/schemas/Date' },
      start_utc: { $ref: '#/components/schemas/Date' },
      start_site: { $ref: '#/components/schemas/Date' },
      start_display: { $ref: '#/components/schemas/Date' },
      end: { $ref: '#/components/schemas/Date' },
      end_utc: { $ref: '#/components/schemas/Date' },
      end_site: { $ref: '#/components/schemas/Date' },
      end_display: { $ref: '#/components/schemas/Date' },
    },
  },
  OpenApiDocumentation: {
    type: 'object',
    properties: {
      openapi: { type: 'string', description: 'The OpenAPI version.' },
      info: {
        type: 'object',
        description: 'The API info.',
        properties: {
          title: { type: 'string', description: 'The API title.' },
          version: { type: 'string', description: 'The TEC REST API version.' },
          description: { type: 'string', description: 'The API description.' },
          contact: {
            type: 'object',
            description: 'The API contact.',
            properties: { name: { type: 'string', description: 'The name of the contact.' }, email: { type: 'string', description: 'The email of the contact.', format: 'email' } },
          },
        },
      },
      components: { type: 'object', description: 'The OpenAPI components.', properties: { schemas: { type: 'object', description: 'The OpenAPI schemas.' } } },
      servers: {
        type: 'array',
        description: 'The OpenAPI servers.',
        items: { type: 'object', description: 'A server.', properties: { url: { type: 'string', description: 'The server URL.', format: 'uri' } } },
      },
      paths: { type: 'object', description: 'The OpenAPI paths.', properties: { OpenApiPath: { $ref: '#/components/schemas/OpenApiPath' } } },
    },
  },
  OpenApiPath: {
    type: 'object',
    properties: {
      get: {
        type: 'object',
        description: 'The GET method for the path.',
        properties: {
          description: { type: 'string', description: 'The description of the GET method.' },
          parameters: {
            type: 'array',
            description: 'The parameters of the GET method.',
            items: {
              type: 'object',
              description: 'A parameter.',
              properties: {
                name: { type: 'string', description: 'The name of the parameter.' },
                in: { type: 'string', description: 'The location of the parameter.' },
                required: { type: 'boolean', description: 'Whether the parameter is required.' },
                schema: { type: 'object', description: 'The schema of the parameter.' },
              },
            },
          },
          responses: {
            type: 'object',
            description: 'The responses of the GET method.',
            properties: {
              '200': {
                type: 'object',
                description: 'The response for the GET method.',
                properties: {
                  content: {
                    type: 'object',
                    description: 'The content of the response.',
                    properties: {
                      'application/json': {
                        type: 'object',
                        description: 'The JSON content of the response.',
                        properties: { schema: { type: 'object', description: 'The schema of the content.', properties: { type: { type: 'string', description: 'The type of the content.' } } } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
