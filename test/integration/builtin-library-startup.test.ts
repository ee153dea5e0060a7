// Start-up of the service process (dist/src/main.js) with its built-in policy library taken from
// BUILTIN_POLICY_DIR: a module there that does not compile keeps the service from starting.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

const GOOD = ['Module demo.good.', '', 'Rule double given x as Int, produce Int:', '  Return x times 2.', ''].join('\n');
const BROKEN = ['Module demo.bad.', '', 'Rule broken given x as Int, produce Int:', '  Return y.', ''].join('\n');

describe('the service with a built-in policy library that does not compile', () => {
  let dataDir: string;
  let policyDir: string;
  let running: ServiceProcess | undefined;

  beforeAll(assertServiceBuilt);
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pe-main-'));
    policyDir = await mkdtemp(join(tmpdir(), 'pe-policies-'));
  });
  afterEach(async () => {
    // Only a service that started against expectations is still running.
    running?.child.kill('SIGKILL');
    await running?.exited;
    await rm(dataDir, { recursive: true, force: true });
    await rm(policyDir, { recursive: true, force: true });
  });

  it('exits 1 before listening, naming the file and its diagnostics', async () => {
    await writeFile(join(policyDir, 'demo.good.policy'), GOOD);
    await writeFile(join(policyDir, 'demo.bad.policy'), BROKEN);
    const badFile = join(policyDir, 'demo.bad.policy');

    running = runService([], {
      DATA_DIR: dataDir,
      BUILTIN_POLICY_DIR: policyDir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      ENGINE_THREADS: '1',
    });

    expect(await running.exited).toBe(1);
    expect(running.stderr[0]).toBe(`cannot load the built-in policy library: built-in policy ${badFile}: does not compile`);
    expect(running.stderr.slice(1).join('\n')).toMatch(/^ {2}PL2001 .* at 4:\d+/);
    expect(running.lines.some((l) => l.msg === 'api listening' || l.msg === 'service started')).toBe(false);
  });
});
