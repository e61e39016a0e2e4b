/**
 * The term service's vocabulary: what differs between taxonomies (`TaxonomyTraits`), what a list
 * asks (`TermListArgs`) and answers (`TermPage`), what a write sends (`TermInput`), what the
 * service needs (`TermServiceDeps`) and offers (`TermService`).
 *
 * @example
 *   const args: TermListArgs = { page: 1, perPage: 10, hideEmpty: true };
 */
import type { Executor, Taxonomy, TermRow } from '../../store/schema.js';
import type { Viewer } from '../permissions.js';

/** What differs between categories and tags. */
export interface TaxonomyTraits {
  /** categories nest (`parent`), tags do not */
  hierarchical: boolean;
  /** the catalogue entry of a duplicate name (same wire code, different message) */
  existsCode: 'term_exists' | 'term_exists_tag';
}

/** The list query, as validated by the route. */
export interface TermListArgs {
  page: number;
  /** already capped at the configured maximum */
  perPage: number;
  search?: string;
  include?: number[];
  exclude?: number[];
  order?: string;
  orderby?: string;
  hideEmpty: boolean;
  /** categories only; 0 lists top-level terms */
  parent?: number;
  /** event id */
  post?: number;
  slug?: string;
}

export interface TermPage {
  terms: TermRow[];
  total: number;
  totalPages: number;
}

/** Fields of a term write; absent fields keep their value on update. */
export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  /** 0 is top level */
  parent?: number;
}

export interface TermService {
  taxonomy: Taxonomy;
  /** Find a term by id, slug or name (in that order for numbers; slug then name for text). */
  find(ref: string | number, on?: Executor): Promise<TermRow | undefined>;
  /** Whether every entry of a list filter names an existing term (is_event_category / is_post_tag). */
  validateRefs(value: unknown): Promise<boolean>;
  /** Ids for an event list filter; categories include their descendants. */
  filterIds(value: unknown): Promise<number[]>;
  /**
   * For event writes: at most MAX_TERMS_PER_WRITE entries (else the message), numeric ids must
   * exist; other entries are found by slug/name or created.
   */
  validateWriteRefs(value: unknown, argName?: string): Promise<boolean | string>;
  /**
   * Resolve a write value to ids, creating missing names (if the viewer may manage terms): at most
   * MAX_TERMS_PER_WRITE entries, and at most `newTerms.left` created (the count is shared by the
   * taxonomies of one write and taken from; default MAX_NEW_TERMS_PER_WRITE). 400 beyond either,
   * before anything is created.
   */
  idsForWrite(db: Executor, value: unknown, viewer: Viewer, argName: string, newTerms?: { left: number }): Promise<number[]>;
  /** Create a term (name is stored WordPress-style); throws ApiError term_exists on a duplicate sibling. */
  create(db: Executor, input: { name: string; slug?: string; description?: string; parent?: number }, param?: string): Promise<number>;
  /** Terms by id (`on`: a write transaction to read in; default the store's handle). */
  load(ids: number[], on?: Executor): Promise<TermRow[]>;
  /** The term of this taxonomy with this id. */
  get(id: number): Promise<TermRow | undefined>;
  /** Ids of the terms a list value names (ids, slugs or names); unknown entries are left out. */
  refIds(value: unknown): Promise<number[]>;
  /** Whether the value is the id of an event (any status), as the `post`/`event` filters need. */
  isEventRef(value: unknown): Promise<boolean>;
  /** A page of terms; `count` 0 terms are hidden with `hideEmpty` (categories keep used descendants' ancestors). */
  list(args: TermListArgs): Promise<TermPage>;
  /** Create a term in a transaction of its own and return it. */
  add(input: TermInput & { name: string }): Promise<TermRow>;
  /** Change the fields given; returns the updated term. */
  update(term: TermRow, input: TermInput): Promise<TermRow>;
  /** Delete for good (children move to the term's parent, event links go); returns the term as it was. */
  remove(term: TermRow): Promise<TermRow>;
}

/** What the service's parts share. */
export interface TermServiceDeps {
  /** the store's handle: reads outside a write transaction use it */
  db: Executor;
  taxonomy: Taxonomy;
  traits: TaxonomyTraits;
}
