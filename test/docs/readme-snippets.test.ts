// The README's shell blocks, run in order against a started service as a newcomer would run them
// on a fresh clone: each must exit 0 and no answer may be an error envelope. A block preceded by
// `<!-- readme-test: skip (why) -->` is not run. Needs the build (npm test builds first) and
// port 8080, which the README's snippets name.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertServiceBuilt, MAIN, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

const ROOT = join(MAIN, '..', '..', '..');
const README_PORT = 8080;

interface Snippet {
  line: number;
  code: string;
}

/** The README's ```sh blocks in order, without those marked to be skipped. */
export function runnableSnippets(markdown: string): Snippet[] {
  const snippets: Snippet[] = [];
  const fence = /(<!-- readme-test: skip[^>]*-->\n)?```sh\n([\s\S]*?)```/g;
  for (let match = fence.exec(markdown); match !== null; match = fence.exec(markdown)) {
    if (match[1] !== undefined) continue;
    snippets.push({ line: markdown.slice(0, match.index).split('\n').length, code: match[2]! });
  }
  return snippets;
}

/**
 * Any error envelope: the snippets show working calls, so an `ERR_…` answer means a snippet (or the
 * service) is wrong. Evaluation failures a snippet shows on purpose carry `PL…` codes instead.
 */
const SNIPPET_MISTAKES = /"code":\s*"ERR_[A-Z0-9_]+"/;

describe('the README, top to bottom', () => {
  const snippets = runnableSnippets(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  let service: ServiceProcess;
  let env: Record<string, string>;
  let dataDir: string;

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'pe-readme-'));
    // What the README's reader has: the defaults, with a fresh data directory of this run's own.
    env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-readme-${randomUUID()}`, PORT: String(README_PORT) };
    service = runService([], env);
    await service.waitForLog('service started');
  }, 60_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has shell blocks to run', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(5);
  });

  it.each(snippets.map((snippet) => [snippet.line, snippet] as const))('the block at line %i runs and answers without a refusal', (_line, snippet) => {
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', snippet.code], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).not.toMatch(SNIPPET_MISTAKES);
  });
});
