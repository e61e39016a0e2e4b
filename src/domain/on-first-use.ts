/**
 * A library loaded when first needed, not at every start (docs/design.md, "Heavy libraries of rare
 * paths load on first use"): the load runs once and its promise is shared; a failed load is
 * forgotten, so the next caller tries again.
 *
 * @example
 *   const sharpOf = onFirstUse(() => import('sharp').then((m) => m.default));
 *   const sharp = await sharpOf();
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    }));
}
