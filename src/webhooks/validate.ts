/**
 * Checks of an endpoint's settings, shared by the admin routes and the CLI: the URL (http or
 * https, no credentials, not a loopback/private target unless allowed), the event types, the
 * secret's form. Each answers a message, or true.
 *
 * @example await checkUrl('http://10.0.0.1/x', false) // 'refused: 10.0.0.1 is a loopback, private or reserved address …'
 */
import { isSecret } from './send.js';
import { EVENT_TYPES } from './service.js';
import { checkTarget } from '../web/ssrf.js';

export async function checkUrl(value: unknown, allowPrivate: boolean): Promise<true | string> {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return 'Not an absolute URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Only http and https URLs are allowed.';
  if (url.username || url.password) return 'Credentials in the URL are not allowed.';
  try {
    await checkTarget(url, allowPrivate);
  } catch (err) {
    if ((err as { code?: string }).code === 'EWEBHOOKTARGET') return (err as Error).message;
    // The name does not resolve now: accepted; every delivery checks again.
  }
  return true;
}

/** Event types as a list (an array, or a comma-separated string). */
export function eventList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : String(value ?? '').split(',');
  return items.map((v) => String(v).trim()).filter((v) => v !== '');
}

export function checkEvents(value: unknown): true | string {
  const bad = eventList(value).filter((e) => e !== '*' && !EVENT_TYPES.includes(e));
  return bad.length === 0 || `Unknown event types: ${bad.join(', ')} (known: ${EVENT_TYPES.join(', ')}, or *).`;
}

export function checkSecret(value: unknown): true | string {
  return isSecret(value) || 'The secret must be whsec_ followed by base64 of 24 to 64 bytes.';
}
