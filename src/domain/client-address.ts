/**
 * The key a client address is counted by, wherever a limit counts clients (the failed-login
 * throttle, the REST rate limit, the submission limits): one function, so that they all agree.
 *
 * @example clientKeyOf('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Client keys longer than this (no address is) are cut. */
const MAX_CLIENT_KEY = 64;

/** The eight 16-bit groups of an IPv6 address (no zone), or undefined when it is not one. */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip;
  // An IPv4 tail (`::ffff:1.2.3.4`) is two groups written in decimal.
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  if (dotted.includes('.')) {
    if (!isIPv4(dotted)) return undefined;
    const b = dotted.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const gap = text.indexOf('::');
  let groups: number[];
  if (gap === -1) groups = parse(text);
  else {
    const head = parse(text.slice(0, gap));
    const rest = parse(text.slice(gap + 2));
    groups = [...head, ...new Array<number>(Math.max(0, 8 - head.length - rest.length)).fill(0), ...rest];
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The key of a client address: IPv4 as is, IPv4-mapped IPv6 (`::ffff:a.b.c.d`) as the
 * IPv4 address, other IPv6 by its /64 prefix (`2001:db8:1:2::/64`); anything else as given (cut).
 *
 * @example clientKeyOf('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 */
export function clientKeyOf(ip: string): string {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const address = bare.includes('%') ? bare.slice(0, bare.indexOf('%')) : bare;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) {
    const g = ipv6Groups(address.toLowerCase());
    if (g) {
      if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
      return `${g
        .slice(0, 4)
        .map((x) => x.toString(16))
        .join(':')}::/64`;
    }
  }
  return ip.slice(0, MAX_CLIENT_KEY);
}
