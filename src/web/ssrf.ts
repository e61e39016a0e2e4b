/**
 * The SSRF guard of every request the service makes to an address it was given (webhook deliveries,
 * federation's fetches and deliveries, imports from a URL), in `web/` since all three share it: targets on loopback, private,
 * link-local, shared, reserved or multicast addresses (IPv4 and IPv6) are refused unless allowed
 * (WEBHOOKS_ALLOW_PRIVATE=true for webhooks, `--allow-private` for imports). An IPv6 address that
 * embeds an IPv4 address is judged by the embedded address(es): IPv4-compatible `::a.b.c.d`, mapped
 * `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` (bits
 * 16-47) and Teredo `2001::/32` (the server in bits 32-63, the client in the last 32 bits XOR
 * 0xffffffff); the local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215: its embedding length is a
 * local choice, and it only reaches local networks) is refused whole. A host name is resolved and
 * *every* address checked, and the connection goes to an address that was checked (the lookup is
 * pinned, so a second resolution cannot swap in another address); redirects are never followed by
 * webhooks (`webhooks/send.ts`) and are checked hop by hop by imports (`import/source.ts`).
 *
 * @example
 *   isForbiddenAddress('10.1.2.3')          // true
 *   isForbiddenAddress('::ffff:127.0.0.1')  // true
 *   isForbiddenAddress('64:ff9b::a00:1')    // true (NAT64 of 10.0.0.1)
 *   isForbiddenAddress('93.184.216.34')     // false
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
// IPv6 ranges refused outright. The forms embedding IPv4 (::/96, ::ffff:0:0/96, ::ffff:0:0:0/96,
// 64:ff9b::/96, 2002::/16, 2001::/32) are judged by their IPv4 address instead (`embeddedIpv4`).
for (const [net, bits] of [
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail and a zone accepted), or undefined. */
export function ipv6Groups(address: string): number[] | undefined {
  const plain = address.replace(/%.*$/, '').toLowerCase();
  if (isIP(plain) !== 6) return undefined;
  let text = plain;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const groups = [...head, ...Array<string>(halves.length > 1 ? 8 - head.length - tail.length : 0).fill('0'), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address(es) an IPv6 address carries, and whether they are all it reaches (`whole`:
 * the IPv6 address is only another spelling of them), or undefined when it embeds none.
 */
export function embeddedIpv4(address: string): { addresses: string[]; whole: boolean } | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::a.b.c.d (IPv4-compatible; `::` and `::1` too: 0.0.0.0 and 0.0.0.1 are refused as 0.0.0.0/8)
  if (zero(0, 6)) return { addresses: [v4(g[6]!, g[7]!)], whole: true };
  // ::ffff:a.b.c.d (mapped)
  if (zero(0, 5) && g[5] === 0xffff) return { addresses: [v4(g[6]!, g[7]!)], whole: true };
  // ::ffff:0:a.b.c.d (translated, SIIT)
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return { addresses: [v4(g[6]!, g[7]!)], whole: true };
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return { addresses: [v4(g[6]!, g[7]!)], whole: true };
  // 2002:AABB:CCDD::/48 (6to4): the relay delivers to AA.BB.CC.DD
  if (g[0] === 0x2002) return { addresses: [v4(g[1]!, g[2]!)], whole: false };
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (Teredo): server S, client C XOR 0xffffffff
  if (g[0] === 0x2001 && g[1] === 0) return { addresses: [v4(g[2]!, g[3]!), v4(g[6]! ^ 0xffff, g[7]! ^ 0xffff)], whole: false };
  return undefined;
}

/** Whether deliveries to this IP address are refused (not a public unicast address). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const embedded = embeddedIpv4(address);
  if (embedded) {
    if (embedded.addresses.some((a) => blocked.check(a, 'ipv4'))) return true;
    if (embedded.whole) return false;
  }
  return blocked.check(groups.map((x) => x.toString(16)).join(':'), 'ipv6');
}

export class ForbiddenTargetError extends Error {
  readonly code = 'EWEBHOOKTARGET';
}

/** How a refusal says it can be allowed (webhooks: the setting; imports: the flag). */
const WEBHOOK_HINT = 'WEBHOOKS_ALLOW_PRIVATE=true allows it';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`: resolves every address of the host and fails with
 * `ForbiddenTargetError` when any is forbidden (unless `allowPrivate`), else answers with the
 * checked addresses, so the connection goes to one of them.
 */
export function guardedLookup(allowPrivate: boolean, hint = WEBHOOK_HINT) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      const bad = allowPrivate ? undefined : list.find((a) => isForbiddenAddress(a.address));
      if (bad) return callback(new ForbiddenTargetError(`refused: ${hostname} resolves to ${bad.address}, a loopback, private or reserved address (${hint})`), []);
      const wantAll = typeof options === 'object' && options.all;
      if (wantAll) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Check a target before connecting: an IP literal directly (no lookup happens for those), a name by resolving it. */
export async function checkTarget(url: URL, allowPrivate: boolean, hint = WEBHOOK_HINT): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw new ForbiddenTargetError(`refused: ${host} is a loopback, private or reserved address (${hint})`);
    return;
  }
  await new Promise<void>((resolve, reject) => guardedLookup(false, hint)(host, { all: true }, (err) => (err ? reject(err) : resolve())));
}
