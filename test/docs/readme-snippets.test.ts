// The shell blocks of the README and of the docs pages it leads to, run in order against a started
// service as a newcomer would run them on a fresh clone: each must exit 0 and no answer may be an
// error envelope. A block preceded by `<!-- readme-test: skip (why) -->` is not run. Needs the build
// (npm test builds first) and port 8080, which the snippets name.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertServiceBuilt, MAIN, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

const ROOT = join(MAIN, '..', '..', '..');
const README_PORT = 8080;

/**
 * The pages whose blocks run, in this order: the README first, then the pages in the order their
 * blocks had when they were all in the README (later blocks use the tenant earlier ones register).
 */
const PAGES = ['README.md', 'docs/api.md', 'docs/authentication.md', 'docs/deployment.md', 'docs/configuration.md', 'docs/console.md', 'docs/design-decisions.md', 'docs/project-layout.md'];

interface Snippet {
  line: number;
  code: string;
}

/** A page's ```sh blocks in order, without those marked to be skipped. */
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

const readPage = (page: string) => readFileSync(join(ROOT, page), 'utf8');

describe('the README and its docs pages, top to bottom', () => {
  const snippets = PAGES.flatMap((page) => runnableSnippets(readPage(page)).map((snippet) => ({ where: `${page}:${snippet.line}`, ...snippet })));
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

  it('has shell blocks to run, on the README and on the API page', () => {
    expect(snippets.filter((snippet) => snippet.where.startsWith('README.md:')).length).toBeGreaterThanOrEqual(2);
    expect(snippets.filter((snippet) => snippet.where.startsWith('docs/api.md:')).length).toBeGreaterThanOrEqual(5);
  });

  it('runs every docs page that has shell blocks', () => {
    const withBlocks = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
      .filter((page) => runnableSnippets(readPage(page)).length > 0);
    expect(withBlocks.filter((page) => !PAGES.includes(page))).toEqual([]);
  });

  it.each(snippets.map((snippet) => [snippet.where, snippet] as const))('the block at %s runs and answers without a refusal', (_where, snippet) => {
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', snippet.code], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).not.toMatch(SNIPPET_MISTAKES);
  });
});
