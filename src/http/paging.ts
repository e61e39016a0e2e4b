/**
 * List envelopes and their URLs (shapes.md §6): `rest_url` echoes the effective query with raw
 * values; `next_rest_url`/`previous_rest_url` move `page` to the end and percent-encode the rest
 * like PHP's urlencode (WordPress' add_query_arg).
 *
 * @example
 *   listUrls('http://x/api/calendar/events/v1/events/', [['page','2'],['per_page','2']], null, 2, 3)
 *   // { rest_url: '…?page=2&per_page=2', next_rest_url: '…?per_page=2&page=3', previous_rest_url: '…?per_page=2' }
 */

/** PHP urlencode: space as '+', everything but A-Z a-z 0-9 - _ . percent-encoded. */
export function phpUrlencode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

function join(pairs: Array<[string, string]>, encode: boolean): string {
  return pairs.map(([k, v]) => `${k}=${encode ? phpUrlencode(v) : v}`).join('&');
}

export interface ListUrls {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

/**
 * URLs of a list page. `query` is the effective query in the original's order (with `page`);
 * `appended` (events: venue, organizer, featured) is null when the request had none of those
 * keys; otherwise the first part comes out encoded and the appended pairs stay raw.
 */
export function listUrls(base: string, query: Array<[string, string]>, appended: Array<[string, string]> | null, page: number, totalPages: number): ListUrls {
  let rest = `${base}?${join(query, appended !== null)}`;
  if (appended && appended.length) rest += `&${join(appended, false)}`;
  const out: ListUrls = { rest_url: rest };
  const withoutPage = [...query, ...(appended ?? [])].filter(([k]) => k !== 'page');
  const encoded = join(withoutPage, true);
  if (page < totalPages) out.next_rest_url = `${base}?${encoded}${encoded ? '&' : ''}page=${page + 1}`;
  if (page > 1 && page - 1 <= totalPages) out.previous_rest_url = page === 2 ? `${base}?${encoded}` : `${base}?${encoded}${encoded ? '&' : ''}page=${page - 1}`;
  return out;
}

/** Where the previous and next pages of a list are, when they exist. */
export interface PageLinks {
  previous_rest_url?: string;
  next_rest_url?: string;
}

/**
 * The headers of a list page: the original's X-TEC-Total / X-TEC-TotalPages, and what generic
 * WordPress clients page with: X-WP-Total / X-WP-TotalPages (the same numbers) and a `Link` with
 * `rel="prev"` / `rel="next"` (WordPress core's order). The discovery relation is added beside
 * them for every answer (register.ts), so the `Link` header carries all three.
 */
export function listHeaders(total: number, totalPages: number, pages: PageLinks = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'X-TEC-Total': String(total),
    'X-TEC-TotalPages': String(totalPages),
    'X-WP-Total': String(total),
    'X-WP-TotalPages': String(totalPages),
  };
  const link: string[] = [];
  if (pages.previous_rest_url) link.push(`<${pages.previous_rest_url}>; rel="prev"`);
  if (pages.next_rest_url) link.push(`<${pages.next_rest_url}>; rel="next"`);
  if (link.length) headers.Link = link.join(', ');
  return headers;
}

/**
 * Previous/next page URLs that keep every query argument of the request (WordPress core's
 * `add_query_arg( $request->get_query_params(), … )` then `page`), for lists whose
 * next_rest_url/previous_rest_url do not (categories and tags, as the original).
 */
export function requestPageLinks(base: string, rawQuery: string, page: number, totalPages: number): PageLinks {
  const params = new URLSearchParams(rawQuery);
  params.delete('page');
  const at = (n: number) => {
    const q = new URLSearchParams(params);
    if (n > 1) q.set('page', String(n));
    const text = q.toString();
    return text ? `${base}?${text}` : base;
  };
  const out: PageLinks = {};
  if (page > 1 && page - 1 <= totalPages) out.previous_rest_url = at(page - 1);
  if (page < totalPages) out.next_rest_url = at(page + 1);
  return out;
}
