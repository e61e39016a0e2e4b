/** Types of scripts/newest.mjs (for the tests, which are TypeScript). */
export function newest(path: string, skip?: readonly string[]): number;
export function newestServerSource(root: string): number;
