/**
 * The ranges of the stored columns, for checking values before they reach SQL: PostgreSQL's
 * `integer` (ids, counts, flags) holds −2³¹ … 2³¹ − 1 and refuses anything else with an error
 * ("out of range for type integer", "invalid input syntax" for `1.5`), where SQLite would store or
 * compare it. A value outside the range cannot be a stored id, so a lookup of it finds nothing.
 *
 * @example
 *   fitsInteger(2147483648) // false
 *   storedIds([1, 2147483648, 1.5]) // [1]
 */

/** The largest value of an `integer` column (ids). */
export const INTEGER_MAX = 2147483647;
/** The smallest value of an `integer` column. */
export const INTEGER_MIN = -2147483648;

/** Whether `n` is an integer an `integer` column can hold. */
export function fitsInteger(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= INTEGER_MIN && n <= INTEGER_MAX;
}

/** The ids among `ids` that an id column can hold (positive integers in range); others cannot match. */
export function storedIds(ids: readonly number[]): number[] {
  return ids.filter((id) => fitsInteger(id) && id > 0);
}
