/**
 * Issue 24: the SSRF guard judges every IPv6 form that embeds an IPv4 address by the embedded
 * address(es): IPv4-compatible, mapped, translated, NAT64 (well-known prefix), 6to4 and Teredo
 * (server and client); the local-use NAT64 prefix is refused whole.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedIpv4, ipv6Groups, isForbiddenAddress } from '../../src/web/ssrf.js';

const refused = (list: string[]) => {
  for (const a of list) assert.equal(isForbiddenAddress(a), true, `${a} must be refused`);
};
const allowed = (list: string[]) => {
  for (const a of list) assert.equal(isForbiddenAddress(a), false, `${a} must be allowed`);
};

describe('SSRF guard: IPv4 inside IPv6', () => {
  it('the four addresses of the review are refused', () => {
    // as the WHATWG URL parser writes them in url.hostname, and as typed
    refused(['::127.0.0.1', '::7f00:1', '64:ff9b::7f00:1', '64:ff9b::a00:1', '::ffff:0:7f00:1', '::ffff:0:127.0.0.1']);
    for (const url of ['http://[::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a00:1]/', 'http://[::ffff:0:7f00:1]/']) {
      refused([new URL(url).hostname.replace(/^\[|\]$/g, '')]);
    }
  });

  it('IPv4-compatible ::a.b.c.d', () => {
    refused(['::10.0.0.1', '::a00:1', '::192.168.1.1', '::169.254.169.254', '::1', '::']);
    allowed(['::8.8.8.8', '::808:808', '::93.184.216.34']);
  });

  it('IPv4-mapped ::ffff:a.b.c.d', () => {
    refused(['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '0:0:0:0:0:ffff:c0a8:101', '::ffff:169.254.169.254']);
    allowed(['::ffff:8.8.8.8', '::ffff:808:808']);
  });

  it('IPv4-translated ::ffff:0:a.b.c.d', () => {
    refused(['::ffff:0:7f00:1', '::ffff:0:10.1.2.3', '0:0:0:0:ffff:0:c0a8:1']);
    allowed(['::ffff:0:8.8.8.8', '::ffff:0:808:808']);
  });

  it('NAT64 64:ff9b::/96 (well-known prefix)', () => {
    refused(['64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b::192.168.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::100.64.0.1']);
    allowed(['64:ff9b::808:808', '64:ff9b::93.184.216.34']);
  });

  it('local-use NAT64 64:ff9b:1::/48 is refused whole', () => {
    refused(['64:ff9b:1::a00:1', '64:ff9b:1::808:808', '64:ff9b:1:ffff::1']);
  });

  it('6to4 2002::/16 by the IPv4 address in bits 16-47', () => {
    refused(['2002:7f00:1::1', '2002:a00:1::', '2002:c0a8:101:1::1', '2002:a9fe:a9fe::1', '2002::1']);
    allowed(['2002:808:808::1', '2002:5db8:d822:1::1']);
  });

  it('Teredo 2001::/32 by its server (bits 32-63) and its client (last 32 bits XOR 0xffffffff)', () => {
    // client 127.0.0.1 = ~0x7f000001 = 80ff:fffe; client 10.0.0.1 = f5ff:fffe; client 8.8.8.8 = f7f7:f7f7
    refused(['2001:0:808:808::80ff:fffe', '2001:0:808:808:8000:1234:f5ff:fffe', '2001:0:7f00:1::f7f7:f7f7', '2001:0:a00:1::f7f7:f7f7']);
    refused(['2001:0:4136:e378:8000:63bf:3fff:fdd2']); // RFC 4380's example: client 192.0.2.45 (documentation range)
    allowed(['2001:0:808:808::f7f7:f7f7', '2001:0:4136:e378:8000:63bf:a2b7:1787']);
    assert.deepEqual(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2'), { addresses: ['65.54.227.120', '192.0.2.45'], whole: false });
  });

  it('other IPv6 ranges keep their verdicts', () => {
    refused(['fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd00::1', 'ff02::1', '2001:db8::1', '100::1', '3fff::1', 'fec0::1', '2001:2::1', '2001:10::1']);
    allowed(['2606:4700:4700::1111', '2a00:1450:4001::200e', '2001:4860:4860::8888']);
    refused(['not-an-ip', '', '1.2.3', '::g']);
  });

  it('parses IPv6 text into its eight groups', () => {
    assert.deepEqual(ipv6Groups('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    assert.deepEqual(ipv6Groups('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual(ipv6Groups('1::'), [1, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(ipv6Groups('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(ipv6Groups('1.2.3.4'), undefined);
  });
});
