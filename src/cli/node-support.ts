/**
 * Which Node.js versions the service runs on. Checked by the CLI entry (`main.ts`) before any
 * other module, native addons included, is loaded. No imports here, on purpose.
 *
 * Supported: Node 22 and 24 LTS (and later), Node 20 (end of life since April 2026; still works,
 * on better-sqlite3 12.x). Older versions are refused with one line and exit code 2.
 *
 * @example
 *   unsupportedNodeMessage('18.20.4') // 'error: Node.js 18.20.4 is not supported; …'
 *   unsupportedNodeMessage('24.21.0') // undefined
 */
export const MIN_NODE_MAJOR = 20;

/** The line to print for an unsupported version, or undefined when it is supported. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return undefined;
  return `error: Node.js ${version} is not supported; events-calendar needs Node.js 22 or 24 LTS (20 still works, end of life)`;
}
