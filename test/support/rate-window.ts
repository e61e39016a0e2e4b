/**
 * The rate limit's windows are fixed multiples of the window since the epoch (web/rate-limit.ts),
 * so a test that counts requests within one window fails if the wall clock crosses a window's end
 * between its requests (the count starts again). Such tests first wait, when the current window
 * has less than `needMs` left, until the next one begins: at most `needMs`, and only that rarely.
 *
 * @example await clearOfWindowEnd(60); // then count requests against a 1-minute window
 */
export async function clearOfWindowEnd(windowSeconds: number, needMs = 8_000): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
