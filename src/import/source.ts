/**
 * Reading a remote REST API politely: JSON GETs with HTTP Basic credentials, retries with
 * exponential backoff on 429, 5xx and network errors (honouring `Retry-After`, capped), bounded
 * concurrency by the caller, and errors that say what went wrong in the operator's terms.
 *
 * @example
 *   const source = createSource({ user: 'admin', password: 'xxxx xxxx', retries: 5, retryDelayMs: 1000 });
 *   const { body, headers } = await source.getJson('https://site/wp-json/tribe/events/v1/events?page=1');
 */

/** A failure the operator must act on; the command prints the message and exits 1. */
export class ImportError extends Error {}

export interface SourceOptions {
  user?: string;
  password?: string;
  /** attempts after the first on 429/5xx/network errors */
  retries: number;
  /** the first backoff; doubles per attempt (a `Retry-After` header wins, up to 60 s) */
  retryDelayMs: number;
  /** per request */
  timeoutMs?: number;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface Source {
  readonly authenticated: boolean;
  /** GET a JSON document; `accept` lists statuses returned instead of thrown (besides 2xx). */
  getJson(url: string, accept?: number[]): Promise<JsonAnswer>;
  /** GET a text document (ICS). */
  getText(url: string): Promise<string>;
  /** GET a text document with If-None-Match / If-Modified-Since: 304 when unchanged, else the text and its validators. */
  getTextIfChanged(url: string, known: { etag?: string; lastModified?: string }): Promise<{ status: 200 | 304; text: string; etag?: string; lastModified?: string }>;
}

/** Refuse anything but an absolute http(s) URL. */
export function checkUrl(value: string, what = 'URL'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ImportError(`${what} "${value}" is not a URL (like https://example.org/wp-json)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ImportError(`${what} "${value}" must be an http:// or https:// URL`);
  if (url.username || url.password) throw new ImportError(`${what} must not carry credentials; give --user and --app-password`);
  return url;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why a 401/403 happened, in words an operator can act on. */
function authMessage(url: string, status: number, authenticated: boolean, body: unknown): string {
  const code = (body as { code?: string } | undefined)?.code;
  const said = code ? ` (${code})` : '';
  if (!authenticated) return `GET ${url} answered ${status}${said}: the source needs credentials; give --user LOGIN --app-password PASSWORD`;
  const https = url.startsWith('http://') ? ' WordPress accepts application passwords over HTTPS only (this URL is http://).' : '';
  return (
    `GET ${url} answered ${status}${said}: the credentials were refused. Check the login and the application password` +
    ` (Users → Profile → Application Passwords).${https} Many hosts strip the Authorization header before it reaches WordPress` +
    ` (Apache without "CGIPassAuth On" or a RewriteRule setting HTTP_AUTHORIZATION; some proxies and CDNs): if the credentials are right, that is the likely cause.`
  );
}

export function createSource(options: SourceOptions): Source {
  const authenticated = options.user !== undefined && options.password !== undefined;
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'events-calendar-import' };
  if (authenticated) headers.authorization = 'Basic ' + Buffer.from(`${options.user}:${options.password}`).toString('base64');

  async function fetchWithRetry(url: string, accept: string, extra: Record<string, string> = {}): Promise<Response> {
    let attempt = 0;
    for (;;) {
      let res: Response | undefined;
      let failure: string;
      try {
        res = await fetch(url, { headers: { ...headers, ...extra, accept }, signal: AbortSignal.timeout(options.timeoutMs ?? 60_000), redirect: 'follow' });
        if (res.status !== 429 && res.status < 500) return res;
        failure = `answered ${res.status}`;
        await res.arrayBuffer().catch(() => undefined);
      } catch (err) {
        failure = `failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
      }
      if (attempt >= options.retries) throw new ImportError(`GET ${url} ${failure} (${attempt + 1} attempt${attempt ? 's' : ''}); nothing more was imported. Run the same command again to resume.`);
      const retryAfter = Number(res?.headers.get('retry-after'));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 60_000) : options.retryDelayMs * 2 ** attempt;
      attempt++;
      await sleep(delay);
    }
  }

  return {
    authenticated,
    async getJson(url, accept = []) {
      const res = await fetchWithRetry(url, 'application/json');
      const text = await res.text();
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (res.status === 401 || (res.status === 403 && !accept.includes(403))) {
        if (!accept.includes(res.status)) throw new ImportError(authMessage(url, res.status, authenticated, body));
      }
      if (!res.ok && !accept.includes(res.status)) {
        const code = (body as { code?: string; message?: string } | undefined)?.code;
        const message = (body as { message?: string } | undefined)?.message;
        throw new ImportError(`GET ${url} answered ${res.status}${code ? ` ${code}: ${message}` : ''}`);
      }
      if (res.ok && body === undefined) throw new ImportError(`GET ${url} did not answer JSON (${res.headers.get('content-type') ?? 'no content type'})`);
      return { status: res.status, headers: res.headers, body };
    },
    async getText(url) {
      const res = await fetchWithRetry(url, 'text/calendar, */*');
      if (!res.ok) throw new ImportError(`GET ${url} answered ${res.status}`);
      return res.text();
    },
    async getTextIfChanged(url, known) {
      const conditional: Record<string, string> = {};
      if (known.etag) conditional['if-none-match'] = known.etag;
      if (known.lastModified) conditional['if-modified-since'] = known.lastModified;
      const res = await fetchWithRetry(url, 'text/calendar, */*', conditional);
      if (res.status === 304) {
        await res.arrayBuffer().catch(() => undefined);
        return { status: 304, text: '', etag: known.etag, lastModified: known.lastModified };
      }
      if (!res.ok) throw new ImportError(`GET ${url} answered ${res.status}`);
      return { status: 200, text: await res.text(), etag: res.headers.get('etag') ?? undefined, lastModified: res.headers.get('last-modified') ?? undefined };
    },
  };
}

/** Run `fn` over items with at most `limit` running at once; results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
