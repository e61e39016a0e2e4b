/** Statistics of the benchmark's measurements. */

/**
 * The q-quantile of `values` by the nearest-rank method (NaN when there are none).
 * @example quantile([5, 1, 3, 2, 4], 0.5) // 3
 */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
