// autocannon, installed in bench/ on first use, and what the benchmarks read from its results.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePackages } from './ensure-packages.mjs';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

export function loadAutocannon() {
  ensurePackages(benchDir, ['autocannon']);
  return createRequire(join(benchDir, 'package.json'))('autocannon');
}

/** One autocannon run: `url`, `connections`, `duration` (s) and optional `requests`. */
export function runAutocannon(autocannon, { url, connections, duration, requests }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests, timeout: 30 }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** The figures of one run; any non-2xx answer, error or timeout fails the benchmark. */
export function summariseRun(name, result) {
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return {
    run: name,
    requests: result['2xx'],
    sent: result.requests.sent,
    reqPerSec: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}
