// The browser of the console's tests: Debian's `chromium` (.ci/run installs it when absent), found
// on PATH or at CHROMIUM_PATH. Without one the browser suites are skipped locally with the reason,
// and under CI they fail: the console would go untested.
import { execFileSync } from 'node:child_process';
import { describe, it } from 'vitest';

function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) return configured;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (path) return path;
    } catch {
      // not on PATH: try the next name
    }
  }
  return undefined;
}

export const CHROMIUM_PATH: string | undefined = findChromium();

const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

const CHROMIUM_SKIP_REASON = 'no `chromium` on PATH (nor CHROMIUM_PATH): install it (`apt-get install -y chromium`) to run the browser suites';

/** A describe block that drives headless Chromium; see the file's comment for a missing browser. */
export function describeWithChromium(name: string, body: (executablePath: string) => void): void {
  if (CHROMIUM_PATH !== undefined) {
    describe(name, () => body(CHROMIUM_PATH));
    return;
  }
  if (inCi) {
    describe(name, () => {
      it('has a Chromium to run in', () => {
        throw new Error(`${CHROMIUM_SKIP_REASON}; under CI the console must be tested in a real browser`);
      });
    });
    return;
  }
  process.stderr.write(`[${name}] skipped: ${CHROMIUM_SKIP_REASON}\n`);
  describe.skip(`${name} (skipped: ${CHROMIUM_SKIP_REASON})`, () => body(''));
}
