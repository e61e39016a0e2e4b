/**
 * Every URL the API writes: public permalinks under SITE_URL (COMPAT decision 7), our REST URLs
 * under REST_ROOT, and the original's `global_id` form.
 *
 * One `Links` exists per REST root and namespace a route is served under (REST_ROOT and `/wp-json`,
 * our namespace and its aliases): REST URLs in an answer use the root and namespace the request
 * came in on, public permalinks stay the same for all.
 *
 * @example
 *   const links = createLinks('http://example.com', '/api', 'calendar/events/v1');
 *   links.rest('events/8')        // 'http://example.com/api/calendar/events/v1/events/8'
 *   links.eventPermalink('jazz')  // 'http://example.com/event/jazz/'
 *   links.globalId(8)             // 'example.com?id=8'
 */

export interface Links {
  /** The namespace these REST URLs are under, e.g. 'calendar/events/v1' or an alias such as 'tribe/events/v1'. */
  namespace: string;
  /** The REST root path these URLs are under, e.g. '/api' or '/wp-json' ('' for the site root). */
  restRootPath: string;
  siteUrl: string;
  /** '{SITE_URL}{REST_ROOT}/' */
  restRoot: string;
  /** '{SITE_URL}{REST_ROOT}/{namespace}/' */
  namespaceRoot: string;
  /** Absolute URL of a path under the namespace, e.g. 'events/8'. */
  rest(path: string): string;
  eventPermalink(slug: string): string;
  venuePermalink(slug: string): string;
  organizerPermalink(slug: string): string;
  categoryPermalink(slug: string): string;
  tagPermalink(slug: string): string;
  /** The link of a trashed post (WordPress' `?post_type=…&p=…`). */
  trashedPermalink(postType: string, id: number): string;
  globalId(id: number): string;
}

export function createLinks(siteUrl: string, restRoot: string, namespace: string): Links {
  const site = siteUrl.replace(/\/+$/, '');
  const root = `${site}${restRoot}/`;
  const ns = `${root}${namespace}/`;
  const url = new URL(site);
  const origin = `${url.hostname}${url.pathname.replace(/\/+$/, '')}`;
  // Slugs of non-Latin titles are already percent-encoded (WordPress keeps them so): their octets
  // go into the URL as they are, as in WordPress permalinks.
  const enc = (slug: string) => encodeURIComponent(slug).replace(/%25([0-9a-fA-F]{2})/g, '%$1');
  return {
    namespace,
    restRootPath: restRoot,
    siteUrl: site,
    restRoot: root,
    namespaceRoot: ns,
    rest: (path) => ns + path.replace(/^\/+/, ''),
    eventPermalink: (slug) => `${site}/event/${enc(slug)}/`,
    venuePermalink: (slug) => `${site}/venue/${enc(slug)}/`,
    organizerPermalink: (slug) => `${site}/organizer/${enc(slug)}/`,
    categoryPermalink: (slug) => `${site}/events/category/${enc(slug)}/`,
    tagPermalink: (slug) => `${site}/events/tag/${enc(slug)}/`,
    trashedPermalink: (postType, id) => `${site}/?post_type=${postType}&p=${id}`,
    globalId: (id) => `${origin}?id=${id}`,
  };
}
