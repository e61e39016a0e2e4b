/**
 * The two term shapes of the original (shapes.md §5): the form of the `/categories` and `/tags`
 * routes, and the form embedded in events. They differ, on purpose.
 *
 * @example
 *   toTermJson(row, links)          // { id, count, description, name, slug, taxonomy, parent?, meta, url, urls }
 *   toEmbeddedTermJson(row, links)  // { name, slug, term_group, term_taxonomy_id, taxonomy, description, parent, count, filter, id, urls }
 */
import type { Links } from '../links.js';
import type { TermRow } from '../../store/schema.js';

/** The REST base of each taxonomy. */
export const TERM_REST_BASE: Record<string, 'categories' | 'tags'> = { tribe_events_cat: 'categories', post_tag: 'tags' };

export interface TermUrls {
  self: string;
  collection: string;
  up?: string;
}

function termUrls(term: TermRow, links: Links): TermUrls {
  const base = TERM_REST_BASE[term.taxonomy];
  const urls: TermUrls = { self: links.rest(`${base}/${term.id}`), collection: links.rest(base) };
  if (term.parent_id) urls.up = links.rest(`${base}/${term.parent_id}`);
  return urls;
}

/** Endpoint form; `parent` only for categories. */
export function toTermJson(term: TermRow, links: Links): Record<string, unknown> {
  const isCategory = term.taxonomy === 'tribe_events_cat';
  const out: Record<string, unknown> = {
    id: Number(term.id),
    count: Number(term.count),
    description: term.description,
    name: term.name,
    slug: term.slug,
    taxonomy: term.taxonomy,
  };
  if (isCategory) out.parent = Number(term.parent_id);
  out.meta = [];
  out.url = isCategory ? links.categoryPermalink(term.slug) : links.tagPermalink(term.slug);
  out.urls = termUrls(term, links);
  return out;
}

/**
 * WordPress' `_links` of a single term, pointing at our own routes (COMPAT decision 7: there is
 * no /wp/v2 here).
 */
export function termLinks(term: TermRow, links: Links): Record<string, unknown> {
  const base = TERM_REST_BASE[term.taxonomy];
  const out: Record<string, unknown> = {
    self: [{ href: links.rest(`${base}/${term.id}`) }],
    collection: [{ href: links.rest(base) }],
    about: [{ href: links.rest('') }],
  };
  if (term.parent_id) out.up = [{ embeddable: true, href: links.rest(`${base}/${term.parent_id}`) }];
  out['wp:post_type'] = [{ href: links.rest(`events?${base}=${term.id}`) }];
  out.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return out;
}

/** Form embedded in an event's `categories` / `tags`. */
export function toEmbeddedTermJson(term: TermRow, links: Links): Record<string, unknown> {
  return {
    name: term.name,
    slug: term.slug,
    term_group: 0,
    term_taxonomy_id: Number(term.id),
    taxonomy: term.taxonomy,
    description: term.description,
    parent: Number(term.parent_id),
    count: Number(term.count),
    filter: 'raw',
    id: Number(term.id),
    urls: termUrls(term, links),
  };
}
