import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** One entry of TRUSTED_GATEWAY_CIDRS: an address, or a network in CIDR notation. */
export interface GatewayNetwork {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Wider networks than these are refused: a gateway has a few addresses, not a continent's. */
const MIN_IPV4_PREFIX = 8;
const MIN_IPV6_PREFIX = 8;

const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

function overlapsIpv4Mapped(address: string, prefix: number): boolean {
  const network = new BlockList();
  network.addSubnet(address, prefix, 'ipv6');
  return network.check('::ffff:0:0', 'ipv6') || IPV4_MAPPED.check(address, 'ipv6');
}

/** The header an authenticating gateway sends its shared secret in (TRUSTED_GATEWAY_SECRET). */
export const GATEWAY_SECRET_HEADER = 'x-gateway-secret';

/**
 * Parses TRUSTED_GATEWAY_CIDRS: comma-separated addresses or networks (`10.0.0.0/8`,
 * `127.0.0.1`, `fd00::/8`). Throws naming the first entry that is neither.
 */
export function parseGatewayNetworks(text: string): GatewayNetwork[] {
  const networks = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [address = '', prefixText, ...rest] = entry.split('/');
      const version = isIP(address);
      const bits = version === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
      if (version === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= bits)) {
        throw new Error(`\`${entry.slice(0, 64)}\` is not an IP address or a network such as 10.0.0.0/8 or fd00::/8`);
      }
      // Node matches IPv4 peers against IPv6 networks too, as ::ffff:a.b.c.d: an IPv6 network that
      // reaches into that range (::/8, ::ffff:0:0/96, however it is spelt) would trust IPv4 peers.
      if (version === 6 && overlapsIpv4Mapped(address, prefix)) {
        throw new Error(`\`${entry.slice(0, 64)}\` covers IPv4-mapped addresses (::ffff:0:0/96): write IPv4 addresses and networks in their IPv4 form`);
      }
      const shortest = version === 4 ? MIN_IPV4_PREFIX : MIN_IPV6_PREFIX;
      if (prefix < shortest) {
        throw new Error(`\`${entry.slice(0, 64)}\` is wider than /${shortest}: trusting that much of the network is trusting anyone on it`);
      }
      return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' } as const;
    });
  if (networks.length === 0) throw new Error('names no address or network');
  return networks;
}

export interface TrustedGateway {
  /**
   * True when the request comes straight from a trusted gateway: its socket's peer address (never
   * a forwarding header, which any client can write) is in the networks, and, when a secret is
   * set, X-Gateway-Secret equals it.
   */
  trusts(req: IncomingMessage): boolean;
}

export function createTrustedGateway(options: { networks: readonly GatewayNetwork[]; secret?: string | undefined }): TrustedGateway {
  const allowed = new BlockList();
  for (const network of options.networks) allowed.addSubnet(network.address, network.prefix, network.family);
  const secretDigest = options.secret === undefined ? undefined : digest(options.secret);

  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d: BlockList matches them to IPv4 networks.
  const peerAllowed = (address: string | undefined): boolean =>
    address !== undefined && allowed.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');

  return {
    trusts(req) {
      if (!peerAllowed(req.socket.remoteAddress)) return false;
      if (secretDigest === undefined) return true;
      const sent = req.headers[GATEWAY_SECRET_HEADER];
      // Digests have one length whatever was sent, so the comparison takes the same time.
      return typeof sent === 'string' && timingSafeEqual(digest(sent), secretDigest);
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
