/**
 * The MCP face's way to the calendar: each tool call is answered by the REST API's own route,
 * requested in-process (`app.inject`, no socket) with the caller's credentials, client address and
 * language. So a tool validates, permits, writes (change log, ETags, webhooks) and refuses exactly
 * as REST does for the same caller, through the same route declarations and domain services, with
 * no second copy of the argument checks to drift from them; a refusal becomes a tool error carrying
 * REST's message (`RestRefusal`).
 *
 * @example
 *   const rest = restClientOf(app, config, { authorization, ip: req.ip });
 *   const body = await rest.call('GET', 'events', { query: { search: 'jazz' } });
 */
import type { FastifyInstance } from 'fastify';
import { NAMESPACE, type Config } from '../config.js';
import { forThisRequest } from '../web/calendars.js';

/** The namespaces a tool reaches. */
export type Namespace = 'events' | 'admin' | 'submissions';

const NAMESPACES: Record<Namespace, string> = {
  events: NAMESPACE,
  admin: 'calendar/admin/v1',
  submissions: 'calendar/submissions/v1',
};

/** Who calls: their `Authorization` header (if any), address and languages, passed to REST as sent. */
export interface Caller {
  authorization?: string;
  ip: string;
  acceptLanguage?: string;
}

/** A REST answer over 399, as the WordPress-style error it carries. */
export class RestRefusal extends Error {
  readonly status: number;
  readonly code: string;
  readonly params?: Record<string, string>;

  constructor(status: number, code: string, message: string, params?: Record<string, string>) {
    super(message);
    this.status = status;
    this.code = code;
    this.params = params;
  }

  /** The text of the tool error: REST's message, then each refused argument's own message. */
  toText(): string {
    const lines = [this.message];
    for (const [name, why] of Object.entries(this.params ?? {})) lines.push(`- ${name}: ${why}`);
    lines.push(`(${this.code}, HTTP ${this.status})`);
    return lines.join('\n');
  }
}

export interface RestAnswer {
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface RestClient {
  /** A REST route of a namespace: `path` relative to it (`events/12`). Throws `RestRefusal` on an error answer. */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, options?: { ns?: Namespace; query?: Record<string, string | number | boolean | undefined>; body?: unknown }): Promise<RestAnswer>;
  /** A page outside the REST root (a feed), by its path under the calendar's site (`/events.ics`), read anonymously: its text and content type, or a refusal. */
  page(path: string): Promise<{ text: string; type: string }>;
}

function refusalOf(status: number, text: string): RestRefusal {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; data?: { params?: unknown } };
    const params = body.data?.params && typeof body.data.params === 'object' ? (body.data.params as Record<string, string>) : undefined;
    return new RestRefusal(status, String(body.code ?? 'error'), String(body.message ?? text), params);
  } catch {
    return new RestRefusal(status, 'error', text.slice(0, 500));
  }
}

/** A REST client for one MCP request's caller. */
export function restClientOf(app: FastifyInstance, config: Pick<Config, 'restRoot'>, caller: Caller): RestClient {
  const headers: Record<string, string> = {};
  if (caller.authorization) headers.authorization = caller.authorization;
  if (caller.acceptLanguage) headers['accept-language'] = caller.acceptLanguage;
  return {
    async call(method, path, options = {}) {
      const query: Record<string, string> = {};
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query[k] = String(v);
      // Of the MCP request's calendar (forThisRequest), whatever an injected request's Host says;
      // `then` sends it at once, within (an injection is sent when first awaited).
      const res = await forThisRequest(() =>
        app
          .inject({
            method,
            url: `${config.restRoot}/${NAMESPACES[options.ns ?? 'events']}/${path}`,
            query,
            headers: options.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            remoteAddress: caller.ip,
            ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
          })
          .then((r) => r),
      );
      if (res.statusCode >= 400) throw refusalOf(res.statusCode, res.body);
      return { body: res.body === '' ? null : JSON.parse(res.body), headers: res.headers };
    },
    async page(path) {
      const res = await forThisRequest(() => app.inject({ method: 'GET', url: path, remoteAddress: caller.ip }).then((r) => r));
      if (res.statusCode >= 400) throw new RestRefusal(res.statusCode, 'not_found', `The feed ${path} answered ${res.statusCode}.`);
      return { text: res.body, type: String(res.headers['content-type'] ?? 'text/plain') };
    },
  };
}
