import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../address-ranges.js';
import { urlProblem } from '../webhook-url.js';

describe('refused destination addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['64:ff9b::a00:1', 'translation'],
    ['64:ff9b:1::a00:1', 'translation'],
    ['2002:7f00:1::', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo'],
    ['ff02::1', 'multicast'],
  ])('refuses %s (%s)', (address, what) => {
    expect(refusedAddress(address)).toContain(what);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.255.255', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e', '2001:4860:4860::8888'])('lets %s through', (address) => {
    expect(refusedAddress(address)).toBeNull();
  });

  it.each([
    ['::ffff:127.0.0.1', 'an IPv4-mapped (::ffff:0:0/96) address'],
    ['::', 'an unspecified, loopback or IPv4-compatible (::/96) address'],
    ['fc00::1', 'a unique-local (metadata) (fc00::/7) address'],
    ['127.0.0.1', 'a loopback (127.0.0.0/8) address'],
  ])('names the range of %s with its article: %s', (address, phrase) => {
    expect(refusedAddress(address)).toBe(phrase);
  });

  it('names the range with its article in the message of a refused url', () => {
    expect(urlProblem('https://[::ffff:a00:1]/in', { allowHttp: false, allowPrivateNetworks: false })?.message).toContain(', an IPv4-mapped (::ffff:0:0/96) address, ');
  });

  it('refuses what is no address', () => {
    expect(refusedAddress('example.com')).toBe('not an IP address');
  });
});

describe('subscription URLs', () => {
  const strict = { allowHttp: false, allowPrivateNetworks: false };
  const open = { allowHttp: true, allowPrivateNetworks: true };

  it('takes https URLs of host names and public addresses', () => {
    expect(urlProblem('https://hooks.example.com/policy?x=1', strict)).toBeNull();
    expect(urlProblem('https://8.8.8.8:8443/in', strict)).toBeNull();
    expect(urlProblem('https://localhost/in', strict)).toBeNull(); // a name: judged at each attempt, where it resolves
  });

  it.each([
    ['http://hooks.example.com/', /https:\/\/ \(WEBHOOK_ALLOW_HTTP is off\)/],
    ['ftp://hooks.example.com/', /https:\/\//],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['https://hooks.example.com/#x', /fragment/],
    ['https://127.0.0.1/in', /127\.0\.0\.1, a loopback/],
    ['https://2130706433/in', /127\.0\.0\.1, a loopback/],
    ['https://10.0.0.7/in', /private/],
    ['https://169.254.169.254/latest/meta-data', /metadata/],
    ['https://[fd00:ec2::254]/', /unique-local/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/],
    ['https://[::1]:8443/', /loopback/],
  ])('refuses %s by default', (url, message) => {
    expect(urlProblem(url, strict)).toEqual({ kind: 'refused', message: expect.stringMatching(message) });
  });

  it('takes http and private addresses only when the settings allow them', () => {
    expect(urlProblem('http://127.0.0.1:8080/in', open)).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/in', { allowHttp: true, allowPrivateNetworks: false })?.kind).toBe('refused');
    expect(urlProblem('https://user@127.0.0.1/', open)?.message).toMatch(/credentials/);
  });

  it('calls what is no absolute URL, or too long, invalid', () => {
    expect(urlProblem('hooks.example.com/in', strict)?.kind).toBe('invalid');
    expect(urlProblem(`https://hooks.example.com/${'a'.repeat(2048)}`, strict)).toEqual({ kind: 'invalid', message: expect.stringMatching(/at most 2048/) });
  });

  // A parser drops these silently (spaces and controls at the ends, tabs and newlines anywhere) or
  // reads `\` as `/`: the URL shown would not be the URL used.
  it.each([' https://hooks.example.com/in', 'https://hooks.example.com/in ', 'https://hooks.exa\nmple.com/in', 'https://hooks.exa\tmple.com/in', 'https://hooks.example.com/\u0000', 'https://hooks.example.com/a b', 'https://hooks.example.com\\@8.8.8.8/'])(
    'calls %j, with a space, a control character or a backslash, invalid',
    (url) => {
      expect(urlProblem(url, open)).toEqual({ kind: 'invalid', message: expect.stringMatching(/spaces, control characters or/) });
    },
  );

  it('calls a URL of port 0 invalid, and takes ports 1 to 65535', () => {
    expect(urlProblem('https://hooks.example.com:0/in', strict)).toEqual({ kind: 'invalid', message: expect.stringMatching(/port from 1 to 65535/) });
    expect(urlProblem('https://hooks.example.com:1/in', strict)).toBeNull();
    expect(urlProblem('https://hooks.example.com:65535/in', strict)).toBeNull();
    expect(urlProblem('https://hooks.example.com:65536/in', strict)?.kind).toBe('invalid');
  });
});
