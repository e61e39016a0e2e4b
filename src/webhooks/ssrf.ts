/**
 * The SSRF guard of webhook deliveries: targets on loopback, private, link-local, shared, reserved
 * or multicast addresses (IPv4 and IPv6, IPv4-mapped IPv6 included) are refused unless
 * WEBHOOKS_ALLOW_PRIVATE=true. A host name is resolved and *every* address checked, and the
 * connection goes to an address that was checked (the lookup is pinned, so a second resolution
 * cannot swap in another address); redirects are never followed (`send.ts`).
 *
 * @example
 *   isForbiddenAddress('10.1.2.3')          // true
 *   isForbiddenAddress('::ffff:127.0.0.1')  // true
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
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:1.2.3.4` or `::ffff:102:304`). */
function mappedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether deliveries to this IP address are refused (not a public unicast address). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = mappedIpv4(address);
    if (v4 !== undefined) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export class ForbiddenTargetError extends Error {
  readonly code = 'EWEBHOOKTARGET';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`: resolves every address of the host and fails with
 * `ForbiddenTargetError` when any is forbidden (unless `allowPrivate`), else answers with the
 * checked addresses, so the connection goes to one of them.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      const bad = allowPrivate ? undefined : list.find((a) => isForbiddenAddress(a.address));
      if (bad) return callback(new ForbiddenTargetError(`refused: ${hostname} resolves to ${bad.address}, a loopback, private or reserved address (WEBHOOKS_ALLOW_PRIVATE=true allows it)`), []);
      const wantAll = typeof options === 'object' && options.all;
      if (wantAll) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Check a target before connecting: an IP literal directly (no lookup happens for those), a name by resolving it. */
export async function checkTarget(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw new ForbiddenTargetError(`refused: ${host} is a loopback, private or reserved address (WEBHOOKS_ALLOW_PRIVATE=true allows it)`);
    return;
  }
  await new Promise<void>((resolve, reject) => guardedLookup(false)(host, { all: true }, (err) => (err ? reject(err) : resolve())));
}
