import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createTrustedGateway, parseGatewayNetworks } from '../trusted-gateway.js';

const request = (remoteAddress: string | undefined, headers: Record<string, string | string[]> = {}) =>
  ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;

describe('parseGatewayNetworks', () => {
  it('takes addresses and networks of both families', () => {
    expect(parseGatewayNetworks(' 10.0.0.0/8, 127.0.0.1 ,fd00::/8,::1')).toEqual([
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '127.0.0.1', prefix: 32, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
      { address: '::1', prefix: 128, family: 'ipv6' },
    ]);
  });

  it.each(['10.0.0.0/33', 'gateway.local', '10.0.0.0/8/1', '10.0.0.0/x', '::1/129', ',', '10.0.0.256', '0.0.0.0/0', '10.0.0.0/7', '::/0', '2000::/3', '::ffff:0:0/96', '::ffff:10.0.0.1', '0:0:0:0:0:ffff:0:0/96', '0::ffff:0.0.0.0/96', '::0:ffff:0:0/96', '::/8', '0::ffff:7f00:0/104'])('refuses %s', (text) => {
    expect(() => parseGatewayNetworks(text)).toThrow();
  });
});

describe('createTrustedGateway', () => {
  const gateway = createTrustedGateway({ networks: parseGatewayNetworks('10.1.0.0/16,fd00::/8') });

  it('trusts peers inside the networks only, by the socket address', () => {
    expect(gateway.trusts(request('10.1.2.3'))).toBe(true);
    expect(gateway.trusts(request('10.2.0.1'))).toBe(false);
    expect(gateway.trusts(request('fd00::5'))).toBe(true);
    expect(gateway.trusts(request('fe80::1'))).toBe(false);
    expect(gateway.trusts(request(undefined))).toBe(false);
    // A forwarding header names whoever the client says; it is not the peer.
    expect(gateway.trusts(request('192.0.2.1', { 'x-forwarded-for': '10.1.2.3' }))).toBe(false);
  });

  it('matches IPv4 peers of a dual-stack socket against IPv4 networks', () => {
    expect(gateway.trusts(request('::ffff:10.1.2.3'))).toBe(true);
    expect(gateway.trusts(request('::ffff:10.2.2.3'))).toBe(false);
  });

  it('with a secret, also requires X-Gateway-Secret to equal it', () => {
    const guarded = createTrustedGateway({ networks: parseGatewayNetworks('127.0.0.1'), secret: 'a-secret-of-the-gateway' });
    expect(guarded.trusts(request('127.0.0.1', { 'x-gateway-secret': 'a-secret-of-the-gateway' }))).toBe(true);
    expect(guarded.trusts(request('127.0.0.1', { 'x-gateway-secret': 'a-secret-of-the-gatewaY' }))).toBe(false);
    expect(guarded.trusts(request('127.0.0.1', { 'x-gateway-secret': 'short' }))).toBe(false);
    // Node joins a repeated header with ", ": two values are not the secret.
    expect(guarded.trusts(request('127.0.0.1', { 'x-gateway-secret': 'a-secret-of-the-gateway, a-secret-of-the-gateway' }))).toBe(false);
    expect(guarded.trusts(request('127.0.0.1'))).toBe(false);
    expect(guarded.trusts(request('127.0.0.2', { 'x-gateway-secret': 'a-secret-of-the-gateway' }))).toBe(false);
  });
});
