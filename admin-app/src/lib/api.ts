/**
 * The app's only way to the server: the service's own REST API, with the session cookie and the
 * REST nonce (`X-WP-Nonce`, WordPress' cookie authentication). Every answer's fresh nonce replaces
 * the one kept. A non-2xx answer throws an {@link ApiProblem} carrying the API's WordPress-style
 * error (`code`, `message`, `data`); an ended session (`rest_cookie_invalid_nonce`, or a 401 when
 * the page had a user) sends the browser to the sign-in page.
 *
 * @example
 *   const { data, headers } = await api<Event[]>('calendar/events/v1/events', { query: { per_page: 20 } });
 *   await api(`calendar/events/v1/events/${id}`, { method: 'POST', body: { title }, ifMatch: etag });
 */
import { boot } from './session';

export class ApiProblem extends Error {
  readonly code: string;
  readonly status: number;
  readonly data: Record<string, unknown>;
  constructor(code: string, message: string, status: number, data: Record<string, unknown>) {
    super(message);
    this.name = 'ApiProblem';
    this.code = code;
    this.status = status;
    this.data = data;
  }
}

export interface ApiOptions {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  ifMatch?: string;
}

let nonce = boot.nonce;

/** The REST nonce in force (for requests made without `api`: an EventSource URL, a `keepalive` fetch). */
export const currentNonce = (): string => nonce;

/** The URL of a REST path (relative to the REST root) with its query. */
export function apiUrl(path: string, query: ApiOptions['query'] = {}): string {
  const url = new URL(`${boot.restRoot.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`, location.origin);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url.pathname + url.search;
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<{ data: T; headers: Headers; status: number }> {
  const method = (options.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = { accept: 'application/json', 'x-wp-nonce': nonce };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  let res: Response;
  try {
    res = await fetch(apiUrl(path, options.query), { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new ApiProblem('network_error', (e as Error).message, 0, {});
  }
  const fresh = res.headers.get('x-wp-nonce');
  if (fresh) nonce = fresh;
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const err = (data ?? {}) as { code?: string; message?: string; data?: Record<string, unknown> };
    const problem = new ApiProblem(err.code ?? `http_${res.status}`, err.message ?? res.statusText, res.status, err.data ?? { status: res.status });
    if (problem.code === 'rest_cookie_invalid_nonce' || (res.status === 401 && boot.user.id !== 0)) signInAgain();
    throw problem;
  }
  return { data: data as T, headers: res.headers, status: res.status };
}

/** Send the browser to the sign-in page, back here afterwards. */
export function signInAgain(): void {
  const back = location.pathname + location.search;
  location.assign(`${boot.adminPath}/login?redirect_to=${encodeURIComponent(back)}`);
}

/**
 * The messages of a 400 by field: `data.params` (WordPress' `rest_invalid_param`: field → message)
 * and `data.details` (field → `{ message }`); `data.params` as a list (`rest_missing_callback_param`)
 * names missing fields.
 */
export function fieldErrors(problem: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(problem instanceof ApiProblem)) return out;
  const { params, details } = problem.data as { params?: unknown; details?: unknown };
  if (Array.isArray(params)) for (const p of params) out[String(p)] = problem.message;
  else if (params && typeof params === 'object') for (const [k, v] of Object.entries(params)) out[k] = String(v);
  if (details && typeof details === 'object')
    for (const [k, v] of Object.entries(details as Record<string, unknown>)) {
      const m = v && typeof v === 'object' && 'message' in v ? String((v as { message: unknown }).message) : undefined;
      if (m && !out[k]) out[k] = m;
    }
  return out;
}
