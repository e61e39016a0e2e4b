/**
 * Fedify's document loaders (what it fetches: public keys, actors, JSON-LD contexts), built here
 * rather than by Fedify so that what one inbox request makes the server fetch is bounded. Before
 * an incoming activity is verified, the sender picks the URLs: the key's (the signature's
 * `keyId`), and through the documents found there more of them (an actor listing many keys by
 * URL, remote contexts, the keys of Linked Data signatures and proofs); Fedify fetches them
 * one after another. While an inbox request is handled (`withFetchBudget`), at most
 * MAX_FETCHES_PER_REQUEST documents are fetched (cache hits and the contexts Fedify ships are free),
 * and each follows at most MAX_REDIRECTS redirects; past that the fetch fails, so the signature
 * does not verify (401). Together with the per-address inbox limit (inbox-guard.ts), the fetches
 * one client address causes per window are at most that limit times MAX_FETCHES_PER_REQUEST.
 * Outside an inbox request (the jobs handling verified activities) nothing is counted. Otherwise
 * the loaders are Fedify's own: private addresses refused unless FEDERATION_ALLOW_PRIVATE_ADDRESSES,
 * plain fetches cached in the key-value store for five minutes, signed ones not cached (the
 * signature spec each origin accepted remembered in the store, as Fedify does).
 *
 * @example
 *   const loaders = createLoaders({ kv, allowPrivate: false, userAgent });
 *   createFederation({ kv, ...loaders.factories });
 *   await loaders.withFetchBudget(() => federation.fetch(request, options));
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { getAuthenticatedDocumentLoader, kvCache, type HttpMessageSignaturesSpec, type HttpMessageSignaturesSpecDeterminer, type KvStore } from '@fedify/fedify';
import { FetchError, getDocumentLoader, preloadedContexts, type DocumentLoader } from '@fedify/vocab-runtime';

/** Documents one inbox request may make the server fetch while it is verified and routed. */
export const MAX_FETCHES_PER_REQUEST = 8;
/** Redirects one fetch may follow (Fedify's default is 20). */
export const MAX_REDIRECTS = 3;

export interface Loaders {
  /** For `createFederation` (in place of its `allowPrivateAddress` and `userAgent`). */
  factories: {
    documentLoaderFactory: () => DocumentLoader;
    contextLoaderFactory: () => DocumentLoader;
    authenticatedDocumentLoaderFactory: (identity: Parameters<typeof getAuthenticatedDocumentLoader>[0]) => DocumentLoader;
  };
  /** Run `fn` (the handling of one inbox request) with the fetch budget of one request. */
  withFetchBudget<T>(fn: () => Promise<T>): Promise<T>;
}

export function createLoaders(options: { kv: KvStore; allowPrivate: boolean; userAgent: string; maxFetches?: number }): Loaders {
  const max = options.maxFetches ?? MAX_FETCHES_PER_REQUEST;
  const budgets = new AsyncLocalStorage<{ used: number }>();
  const budgeted =
    (loader: DocumentLoader): DocumentLoader =>
    async (url, loaderOptions) => {
      const budget = budgets.getStore();
      if (budget && !Object.hasOwn(preloadedContexts, url)) {
        if (budget.used >= max) throw new FetchError(url, `not fetched: an inbox request may make the server fetch at most ${max} documents`);
        budget.used++;
      }
      return loader(url, loaderOptions);
    };
  const settings = { allowPrivateAddress: options.allowPrivate, userAgent: options.userAgent, maxRedirection: MAX_REDIRECTS };
  const plain = budgeted(getDocumentLoader(settings));
  // Which signature spec an origin accepted (Fedify's own key, so what it remembered before stays).
  const specKey = (origin: string) => ['_fedify', 'httpMessageSignaturesSpec', origin] as const;
  const specDeterminer: HttpMessageSignaturesSpecDeterminer = {
    determineSpec: async (origin) => (await options.kv.get<HttpMessageSignaturesSpec>(specKey(origin))) ?? 'rfc9421',
    rememberSpec: (origin, spec) => options.kv.set(specKey(origin), spec),
  };
  const documentLoader = kvCache({ loader: plain, kv: options.kv, kind: 'object' });
  const contextLoader = kvCache({ loader: plain, kv: options.kv, kind: 'context' });
  return {
    factories: {
      documentLoaderFactory: () => documentLoader,
      contextLoaderFactory: () => contextLoader,
      authenticatedDocumentLoaderFactory: (identity) => budgeted(getAuthenticatedDocumentLoader(identity, { ...settings, specDeterminer })),
    },
    withFetchBudget: (fn) => budgets.run({ used: 0 }, fn),
  };
}
