import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../index.js';
import { databaseFromUrl, DEFAULT_MONGODB_DATABASE } from '../mongo/index.js';

describe('openStore', () => {
  it('opens the embedded SQLite store when no MongoDB URL is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pe-open-'));
    try {
      const path = join(dir, 'data', 'policy-engine.db');
      for (const mongodbUrl of [undefined, '']) {
        const store = await openStore({ sqlitePath: path, ...(mongodbUrl === undefined ? {} : { mongodbUrl }) });
        expect(store.kind).toBe('sqlite');
        await store.ping();
        await store.close();
      }
      expect(existsSync(path)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails when the configured MongoDB server does not answer, instead of falling back to SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pe-open-'));
    try {
      // Port 9 (discard) on loopback: nothing listens there.
      const opening = openStore({ mongodbUrl: 'mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=300', sqlitePath: join(dir, 'x.db') });
      await expect(opening).rejects.toThrow();
      expect(existsSync(join(dir, 'x.db'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('databaseFromUrl', () => {
  it('reads the database named in the URL path, if any', () => {
    expect(databaseFromUrl('mongodb://h:27017/pe_prod?retryWrites=true')).toBe('pe_prod');
    expect(databaseFromUrl('mongodb+srv://u:p@cluster.example.net/audit')).toBe('audit');
    expect(databaseFromUrl('mongodb://h1:1,h2:2/?replicaSet=rs')).toBeUndefined();
    expect(databaseFromUrl('mongodb://h:27017')).toBeUndefined();
    expect(DEFAULT_MONGODB_DATABASE).toBe('policy_engine');
  });
});
