/**
 * What a database error means, for the faces: the database is out of reach, busy, full or
 * read-only, or none of these. The faces answer such errors with 503 or 507 (`faultError` in
 * errors.ts) and reach the store only through the domain, so the store's classification
 * (store/faults.ts, which knows the drivers' error codes) is asked here.
 *
 * @example
 *   storeFault(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })) // 'busy'
 *   storeFault(new TypeError('x is undefined'))                                        // undefined
 */
import { storeFault as faultOf, type StoreFault } from '../store/faults.js';

export type { StoreFault };

/** The fault a database error stands for, or undefined for any other error. */
export function storeFault(err: unknown): StoreFault | undefined {
  return faultOf(err);
}
