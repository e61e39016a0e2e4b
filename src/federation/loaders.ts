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
 * Every document a loader fetches, in an inbox request or in a job, is read up to
 * MAX_DOCUMENT_BYTES within FETCH_TIMEOUT_MS (`boundedFetches`): Fedify reads a document whole
 * with the platform's `fetch`, so a key URL answering gigabytes (or forever) would otherwise be
 * held in memory and parsed on the event loop. Fedify has no option for either, and calls the
 * global `fetch`; so `fetch` is wrapped once per process and bounds only the calls made inside a
 * loader (an AsyncLocalStorage scope): every other caller sees the platform's `fetch` unchanged.
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
/** The largest document read for federation: keys, actors and contexts are a few KiB (Fedify's own cap on HTML is 1 MiB). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** How long fetching one document may take, body included. */
export const FETCH_TIMEOUT_MS = 10_000;

const bounds = new AsyncLocalStorage<{ maxBytes: number; timeoutMs: number }>();
let fetchWrapped = false;

/** A response whose body fails past `maxBytes` (and at once when its Content-Length says so). */
async function boundedFetch(fetchOf: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, limit: { maxBytes: number; timeoutMs: number }): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input);
  const timeout = AbortSignal.timeout(limit.timeoutMs);
  const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const response = await fetchOf(input, { ...init, signal });
  const tooLarge = () => new FetchError(url, `not read: a federation document may be at most ${limit.maxBytes} bytes`);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return response;
  let read = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > limit.maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  const bounded = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // Fedify reads the final URL of what it fetched (redirects are followed by hand, so it is the one asked for).
  Object.defineProperty(bounded, 'url', { value: response.url });
  Object.defineProperty(bounded, 'redirected', { value: response.redirected });
  return bounded;
}

/** Wrap the global `fetch` (once per process) so that calls inside `bounds` are bounded; all others pass through. */
function boundedFetches(): void {
  if (fetchWrapped) return;
  fetchWrapped = true;
  const platform = globalThis.fetch;
  const wrapped: typeof fetch = (input, init) => {
    const limit = bounds.getStore();
    return limit ? boundedFetch(platform, input, init, limit) : platform(input, init);
  };
  globalThis.fetch = wrapped;
}

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

export function createLoaders(options: { kv: KvStore; allowPrivate: boolean; userAgent: string; maxFetches?: number; maxDocumentBytes?: number }): Loaders {
  const max = options.maxFetches ?? MAX_FETCHES_PER_REQUEST;
  const limit = { maxBytes: options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES, timeoutMs: FETCH_TIMEOUT_MS };
  boundedFetches();
  const budgets = new AsyncLocalStorage<{ used: number }>();
  const budgeted =
    (loader: DocumentLoader): DocumentLoader =>
    async (url, loaderOptions) => {
      const budget = budgets.getStore();
      if (budget && !Object.hasOwn(preloadedContexts, url)) {
        if (budget.used >= max) throw new FetchError(url, `not fetched: an inbox request may make the server fetch at most ${max} documents`);
        budget.used++;
      }
      return bounds.run(limit, () => loader(url, loaderOptions));
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
