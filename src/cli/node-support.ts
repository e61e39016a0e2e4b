/**
 * Which Node.js versions the service runs on. Checked by the CLI entry (`main.ts`) before any
 * other module, native addons included, is loaded. No imports here, on purpose.
 *
 * Supported: Node 22 and 24 LTS (and later). Older versions (Node 20 has been past its end of life
 * since April 2026; better-sqlite3 13.x crashes on it) are refused with one line and exit code 2.
 * `npm start` and `npm test` go through `scripts/node.mjs`, which brings a Node 24 when the
 * machine's is older.
 *
 * @example
 *   unsupportedNodeMessage('20.20.2') // 'error: Node.js 20.20.2 is not supported; …'
 *   unsupportedNodeMessage('24.21.0') // undefined
 */
export const MIN_NODE_MAJOR = 22;

/** The line to print for an unsupported version, or undefined when it is supported. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return undefined;
  return `error: Node.js ${version} is not supported; events-calendar needs Node.js 22 or 24 LTS (npm start and npm test bring one: see the README)`;
}
