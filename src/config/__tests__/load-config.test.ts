import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../index.js';

const secret = (c: string) => c.repeat(32);

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      ROLE: 'all',
      REDIS_URL: 'redis://127.0.0.1:6379',
      DATA_DIR: './data',
      BODY_LIMIT: 1024 * 1024,
      LOG_LEVEL: 'info',
      TRUST_PROXY: false,
    });
    expect(config.MONGODB_URL).toBeUndefined();
    expect(config.JWT_KEYS).toBeUndefined();
    expect(config.RATE_LIMIT_POINTS).toBeGreaterThan(0);
    expect(config.RATE_LIMIT_WINDOW_SECONDS).toBeGreaterThan(0);
  });

  it('converts values to their types', () => {
    const config = loadConfig({
      PORT: '9090',
      ROLE: 'worker',
      BODY_LIMIT: '2kb',
      JWT_KEYS: `new:${secret('a')}, old:${secret('b')}`,
      MONGODB_URL: 'mongodb://db:27017',
      MONGODB_DATABASE: 'pe_prod',
      TRUST_PROXY: 'true',
      RATE_LIMIT_POINTS: '5',
      RATE_LIMIT_WINDOW_SECONDS: '2',
    });
    expect(config.PORT).toBe(9090);
    expect(config.ROLE).toBe('worker');
    expect(config.BODY_LIMIT).toBe(2048);
    expect(config.JWT_KEYS).toEqual([
      { kid: 'new', secret: secret('a') },
      { kid: 'old', secret: secret('b') },
    ]);
    expect(config.MONGODB_URL).toBe('mongodb://db:27017');
    expect(config.TRUST_PROXY).toBe(true);
    expect(config.RATE_LIMIT_POINTS).toBe(5);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({ MONGODB_URL: '', PORT: ' ' });
    expect(config.MONGODB_URL).toBeUndefined();
    expect(config.PORT).toBe(8080);
  });

  it('names every bad variable and says why', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', ROLE: 'boss', REDIS_URL: 'http://x', BODY_LIMIT: 'lots', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(5);
    expect(problems.find((p) => p.startsWith('PORT '))).toContain('whole number');
    expect(problems.find((p) => p.startsWith('PORT '))).toContain('"eighty"');
    expect(problems.find((p) => p.startsWith('ROLE '))).toContain('api, worker, all');
    expect(problems.find((p) => p.startsWith('REDIS_URL '))).toContain('redis://');
    expect(problems.find((p) => p.startsWith('BODY_LIMIT '))).toContain('1mb');
    expect(problems.find((p) => p.startsWith('LOG_LEVEL '))).toContain('info');
  });

  it('rejects out-of-range ports', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be between 0 and 65535/);
  });

  it('rejects weak or malformed JWT keys without echoing the secret', () => {
    expect(() => loadConfig({ JWT_KEYS: 'k1:short-secret' })).toThrow(/JWT_KEYS .*at least 32 characters/);
    expect(() => loadConfig({ JWT_KEYS: 'k1:short-secret' })).not.toThrow(/short-secret/);
    expect(() => loadConfig({ JWT_KEYS: `k1:${secret('a')},k1:${secret('b')}` })).toThrow(/appears twice/);
    expect(() => loadConfig({ JWT_KEYS: secret('a') })).toThrow(/kid:secret/);
  });

  describe('identity provider and trusted gateway', () => {
    const provider = { JWT_JWKS_URL: 'https://id.example.test/jwks', JWT_ISSUER: 'https://id.example.test', JWT_AUDIENCE: 'policy-engine' };

    it('takes a provider with its defaults, and a gateway', () => {
      const config = loadConfig({ ...provider, TRUSTED_GATEWAY_CIDRS: '10.0.0.0/8', TRUSTED_GATEWAY_SECRET: secret('g') });
      expect(config).toMatchObject({
        JWT_ALGORITHMS: ['RS256', 'ES256', 'EdDSA'],
        JWT_JWKS_COOLDOWN_SECONDS: 30,
        JWT_TENANT_CLAIM: 'tenant',
        JWT_ROLE_CLAIM: 'role',
        JWT_SUBJECT_CLAIM: 'sub',
        TRUSTED_GATEWAY_CIDRS: [{ address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
      });
    });

    it.each(['JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE'])('refuses a provider without %s', (missing) => {
      const env: Record<string, string> = { ...provider };
      delete env[missing];
      expect(() => loadConfig(env)).toThrow(new RegExp(`${missing} must be set too`));
    });

    it('refuses symmetric algorithms, bad networks and a gateway secret without networks, never echoing the secret', () => {
      expect(() => loadConfig({ ...provider, JWT_ALGORITHMS: 'RS256,HS256' })).toThrow(/JWT_ALGORITHMS `HS256` is not allowed/);
      expect(() => loadConfig({ TRUSTED_GATEWAY_CIDRS: '10.0.0.0/40' })).toThrow(/TRUSTED_GATEWAY_CIDRS `10.0.0.0\/40` is not an IP address/);
      let error: unknown;
      try {
        loadConfig({ TRUSTED_GATEWAY_SECRET: 'a-gateway-secret-1234' });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('TRUSTED_GATEWAY_SECRET is used only with TRUSTED_GATEWAY_CIDRS');
      expect((error as Error).message).not.toContain('a-gateway-secret-1234');
      expect(() => loadConfig({ TRUSTED_GATEWAY_CIDRS: '127.0.0.1', TRUSTED_GATEWAY_SECRET: 'short' })).toThrow(/16-1024 printable ASCII/);
    expect(() => loadConfig({ TRUSTED_GATEWAY_CIDRS: '127.0.0.1', TRUSTED_GATEWAY_SECRET: 'a secret with spaces' })).toThrow(/printable ASCII/);
  });

  it('fetches a provider\'s keys over https, or plain http from this machine only, and never turns every token off', () => {
    expect(loadConfig({ ...provider, JWT_JWKS_URL: 'http://127.0.0.1:8081/jwks' }).JWT_JWKS_URL).toBe('http://127.0.0.1:8081/jwks');
    expect(loadConfig({ ...provider, JWT_JWKS_URL: 'http://localhost/jwks' }).JWT_JWKS_URL).toBe('http://localhost/jwks');
    for (const bad of ['http://sso.example.com/jwks', 'https://user:pw@sso.example.com/jwks', 'ftp://sso.example.com/jwks']) {
      expect(() => loadConfig({ ...provider, JWT_JWKS_URL: bad })).toThrow(/JWT_JWKS_URL must be an https:\/\/ URL/);
    }
    expect(loadConfig({ ...provider, JWT_DEVELOPMENT_TOKENS: 'false' }).JWT_DEVELOPMENT_TOKENS).toBe(false);
    expect(() => loadConfig({ JWT_DEVELOPMENT_TOKENS: 'false' })).toThrow(/JWT_DEVELOPMENT_TOKENS may be false only with an identity provider/);
    });
  });
});
