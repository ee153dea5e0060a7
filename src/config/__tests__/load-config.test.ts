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
});
