import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, jwtVerify, type JWK } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createJwksKeys, JwksUnavailableError } from '../jwks-keys.js';

/** A key set server whose answer the test changes; it counts the fetches. */
async function keySetServer() {
  let answer: (res: import('node:http').ServerResponse) => void = (res) => res.end('{"keys":[]}');
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches += 1;
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
  return {
    url,
    fetches: () => fetches,
    answer: (next: typeof answer) => (answer = next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const sign = () => new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid }).setExpirationTime('1m').sign(privateKey);
  return { jwk, sign };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('createJwksKeys', () => {
  it('fetches on first use and refetches for an unknown kid at most once per cooldown', async () => {
    const server = await keySetServer();
    closers.push(server.close);
    const k1 = await signingKey('k1');
    const k2 = await signingKey('k2');
    server.answer((res) => res.end(JSON.stringify({ keys: [k1.jwk] })));
    const keys = createJwksKeys({ url: server.url, cooldownSeconds: 30, timeoutMs: 2000, maxBytes: 64 * 1024 });

    await jwtVerify(await k1.sign(), keys);
    expect(server.fetches()).toBe(1);
    const flood = await Promise.allSettled(Array.from({ length: 20 }, async () => jwtVerify(await k2.sign(), keys)));
    expect(flood.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(server.fetches()).toBe(1);
  });

  it('keeps the keys fetched before when a refresh fails', async () => {
    const server = await keySetServer();
    closers.push(server.close);
    const k1 = await signingKey('k1');
    const k2 = await signingKey('k2');
    server.answer((res) => res.end(JSON.stringify({ keys: [k1.jwk] })));
    const failures: string[] = [];
    // A cooldown of a millisecond: every unknown kid refetches.
    const keys = createJwksKeys({ url: server.url, cooldownSeconds: 0.001, timeoutMs: 2000, maxBytes: 64 * 1024, onFetchFailure: (r) => failures.push(r) });
    await jwtVerify(await k1.sign(), keys);
    server.answer((res) => {
      res.statusCode = 500;
      res.end('down');
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(jwtVerify(await k2.sign(), keys)).rejects.toThrow(/no applicable key/i);
    expect(server.fetches()).toBe(2);
    expect(failures).toEqual(['it answered HTTP 500']);
    await jwtVerify(await k1.sign(), keys);
  });

  it('with no keys yet, a failure is a JwksUnavailableError and is not retried within the cooldown', async () => {
    const server = await keySetServer();
    closers.push(server.close);
    server.answer((res) => {
      res.statusCode = 503;
      res.end();
    });
    let now = 0;
    const keys = createJwksKeys({ url: server.url, cooldownSeconds: 30, timeoutMs: 2000, maxBytes: 1024, now: () => now });
    const k1 = await signingKey('k1');
    await expect(jwtVerify(await k1.sign(), keys)).rejects.toBeInstanceOf(JwksUnavailableError);
    await expect(jwtVerify(await k1.sign(), keys)).rejects.toBeInstanceOf(JwksUnavailableError);
    expect(server.fetches()).toBe(1);
    now += 30_001;
    server.answer((res) => res.end(JSON.stringify({ keys: [k1.jwk] })));
    await jwtVerify(await k1.sign(), keys);
    expect(server.fetches()).toBe(2);
  });

  it.each([
    ['not JSON', 'not json at all'],
    ['JSON without a key set', '{"keys":[1]}'],
    ['an empty body', ''],
  ])('counts an answer that is %s as a failed fetch: no keys, a 503, and no refetch within the cooldown', async (_label, body) => {
    const server = await keySetServer();
    closers.push(server.close);
    server.answer((res) => res.end(body));
    const failures: string[] = [];
    const keys = createJwksKeys({ url: server.url, cooldownSeconds: 30, timeoutMs: 2000, maxBytes: 1024, onFetchFailure: (r) => failures.push(r) });
    const k1 = await signingKey('k1');
    for (let i = 0; i < 5; i++) await expect(jwtVerify(await k1.sign(), keys)).rejects.toBeInstanceOf(JwksUnavailableError);
    expect(server.fetches()).toBe(1);
    expect(failures).toHaveLength(1);
  });

  it('keeps the keys fetched before when a refresh answers junk, and holds to the cooldown', async () => {
    const server = await keySetServer();
    closers.push(server.close);
    const k1 = await signingKey('k1');
    const k2 = await signingKey('k2');
    server.answer((res) => res.end(JSON.stringify({ keys: [k1.jwk] })));
    const keys = createJwksKeys({ url: server.url, cooldownSeconds: 0.05, timeoutMs: 2000, maxBytes: 64 * 1024 });
    await jwtVerify(await k1.sign(), keys);
    server.answer((res) => res.end('{"keys":[null]}'));
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (let i = 0; i < 5; i++) await expect(jwtVerify(await k2.sign(), keys)).rejects.toThrow(/no applicable key/i);
    expect(server.fetches()).toBe(2);
    await jwtVerify(await k1.sign(), keys);
  });

  it('refuses an answer larger than the bound, declared or streamed', async () => {
    const server = await keySetServer();
    closers.push(server.close);
    const k1 = await signingKey('k1');
    const padded = JSON.stringify({ keys: [k1.jwk], padding: 'x'.repeat(4096) });
    server.answer((res) => res.end(padded));
    const declared = createJwksKeys({ url: server.url, cooldownSeconds: 1, timeoutMs: 2000, maxBytes: 1024 });
    await expect(jwtVerify(await k1.sign(), declared)).rejects.toThrow(/exceeds the limit of 1024/);
    server.answer((res) => {
      res.write(padded.slice(0, 1000));
      res.end(padded.slice(1000));
    });
    const streamed = createJwksKeys({ url: server.url, cooldownSeconds: 1, timeoutMs: 2000, maxBytes: 1024 });
    await expect(jwtVerify(await k1.sign(), streamed)).rejects.toThrow(/exceeds the limit of 1024/);
  });

  it('gives up on a provider that does not answer in time', async () => {
    const server = await keySetServer();
    closers.push(server.close);
    server.answer(() => {}); // never answers
    const keys = createJwksKeys({ url: server.url, cooldownSeconds: 1, timeoutMs: 200, maxBytes: 1024 });
    const k1 = await signingKey('k1');
    await expect(jwtVerify(await k1.sign(), keys)).rejects.toThrow(/no answer within 200 ms/);
  });
});
