import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineThreadFileMissingError, resolveThreadFile } from '../thread-file.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function project(withBuild: boolean): string {
  root = mkdtempSync(join(tmpdir(), 'thread-file-'));
  mkdirSync(join(root, 'src', 'engine'), { recursive: true });
  mkdirSync(join(root, 'dist', 'src', 'engine'), { recursive: true });
  mkdirSync(join(root, 'dist', 'workers'), { recursive: true });
  if (withBuild) writeFileSync(join(root, 'dist', 'workers', 'evaluation-thread.js'), '');
  return root;
}

describe('resolveThreadFile', () => {
  it('finds the compiled entry from TypeScript sources', () => {
    const dir = project(true);
    expect(resolveThreadFile('evaluation-thread', join(dir, 'src', 'engine'))).toBe(join(dir, 'dist', 'workers', 'evaluation-thread.js'));
  });

  it('finds the compiled entry from compiled code, even if dist holds a package.json', () => {
    const dir = project(true);
    writeFileSync(join(dir, 'dist', 'package.json'), '{}');
    expect(resolveThreadFile('evaluation-thread', join(dir, 'dist', 'src', 'engine'))).toBe(join(dir, 'dist', 'workers', 'evaluation-thread.js'));
  });

  it('says to build when the entry is missing', () => {
    const dir = project(false);
    expect(() => resolveThreadFile('evaluation-thread', join(dir, 'src', 'engine'))).toThrow(EngineThreadFileMissingError);
    expect(() => resolveThreadFile('evaluation-thread', join(dir, 'src', 'engine'))).toThrow(/npm run build/);
  });
});
