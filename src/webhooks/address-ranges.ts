import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may never be sent unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is set: this host, the
 * private and shared networks behind it, link-local addresses (cloud metadata services among them:
 * 169.254.169.254, fd00:ec2::254) and addresses that are no unicast destination. IPv4-mapped and
 * IPv4-compatible IPv6 addresses are refused whole: no receiver publishes one, and each could
 * name any IPv4 address behind the IPv6 checks. So are the prefixes that carry an IPv4 address to
 * a translator or tunnel (NAT64, its local-use prefix, 6to4, Teredo): where the deployment's
 * network has one, they reach the IPv4 address they carry.
 */
const REFUSED: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'this network'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 96, 'ipv6', 'unspecified, loopback or IPv4-compatible'],
  ['::ffff:0:0', 96, 'ipv6', 'IPv4-mapped'],
  ['64:ff9b::', 96, 'ipv6', 'IPv4/IPv6 translation'],
  ['64:ff9b:1::', 48, 'ipv6', 'local IPv4/IPv6 translation'],
  ['100::', 64, 'ipv6', 'discard'],
  ['2001::', 32, 'ipv6', 'Teredo'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['2002::', 16, 'ipv6', '6to4'],
  ['fc00::', 7, 'ipv6', 'unique-local (metadata)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const ranges = REFUSED.map(([network, prefix, type, what]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  // The article by the sound the range's name begins with ("an IPv4-mapped", "a unique-local").
  const article = /^(?:[aeio]|u(?!ni))/i.test(what) ? 'an' : 'a';
  return { list, type, phrase: `${article} ${what} (${network}/${prefix}) address` };
});

/**
 * Why the address is refused as a destination (`a loopback (127.0.0.0/8) address`), or null when
 * it is a public unicast address. A text that is no IP address is refused too.
 */
export function refusedAddress(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const range of ranges) {
    if (range.type === type && range.list.check(address, type)) return range.phrase;
  }
  return null;
}
