// Policy language benchmark. Evaluations per second of a ~35-line loan-pricing rule compiled in the
// policy language, against the same logic as a plain JS function (the baseline), as
// json-rules-engine rules and as a GoRules ZEN decision; compile time of a ~200-line module; heap
// per cached compiled module. Imports the build: run through `npm run bench:language`.
// QUICK=1 makes a tiny run (CI only proves the benchmark still works).
import { ensurePackages } from '../support/ensure-packages.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { largeModuleSource, LARGE_SAMPLE } from './large-module.mjs';
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES, jsonRulesEngineSetup, priceInJs, zenSetup } from './loan-pricing.mjs';

// Heap measurements need explicit collections: restart under --expose-gc when it is missing.
if (typeof globalThis.gc !== 'function') {
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const peersDir = join(here, '..', 'peers');
const quick = process.env.QUICK === '1';

const settings = {
  secondsPerEngine: quick ? 0.2 : 2,
  warmupEvaluations: quick ? 500 : 20_000,
  compileRuns: quick ? 15 : 200,
  memoryCopies: quick ? 20 : 200,
};

function ensureBuilt() {
  const entry = join(root, 'dist', 'src', 'language', 'index.js');
  if (!existsSync(entry)) {
    console.log('building the project (dist/ is missing) ...');
    const build = spawnSync('npx', ['tsc', '-p', join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
    if (!existsSync(entry)) process.exit(build.status || 1);
  }
  return entry;
}

function ensurePeers() {
  ensurePackages(peersDir, ['json-rules-engine', '@gorules/zen-engine']);
  const require = createRequire(join(peersDir, 'package.json'));
  return {
    Engine: require('json-rules-engine').Engine,
    ZenEngine: require('@gorules/zen-engine').ZenEngine,
  };
}

const language = await import(pathToFileURL(ensureBuilt()).href);
const peers = ensurePeers();

// ---------- the engines under test ----------

const compiled = language.compile(POLICY_SOURCE, 'en-US');
if (compiled.program === null) {
  console.error(compiled.diagnostics.map((d) => language.describeDiagnostic(d)).join('\n'));
  process.exit(1);
}
const program = compiled.program;

function priceInPolicy(input) {
  const outcome = language.evaluate(program, FUNCTION_NAME, input);
  if (!outcome.ok) throw new Error(outcome.diagnostics.map((d) => language.describeDiagnostic(d)).join('; '));
  return outcome.value;
}

const engines = [
  { name: 'plain JS function', run: priceInJs, async: false },
  { name: 'policy language', run: priceInPolicy, async: false },
  { name: 'json-rules-engine', run: jsonRulesEngineSetup(peers.Engine), async: true },
  { name: '@gorules/zen-engine', run: zenSetup(peers.ZenEngine), async: true },
];

// ---------- every engine must give the same answers before anything is timed ----------

let disagreements = 0;
for (const [i, sample] of SAMPLES.entries()) {
  const expected = priceInJs(sample);
  for (const engine of engines.slice(1)) {
    const actual = await engine.run(sample);
    if (!isDeepStrictEqual(actual, expected)) {
      disagreements++;
      console.error(`sample ${i}: ${engine.name} gave ${JSON.stringify(actual)}, plain JS ${JSON.stringify(expected)}`);
    }
  }
}
if (disagreements > 0) {
  console.error(`${disagreements} disagreement(s): the engines do not implement the same logic; nothing timed.`);
  process.exit(1);
}
const outcomes = new Set(SAMPLES.map((s) => priceInJs(s).reason));

// ---------- measurements ----------

// Timing cycles through distinct copies of the samples, so no engine can profit from seeing the
// same input object again (as a cache keyed by identity would).
const POOL = Array.from({ length: 1000 }, (_, i) => structuredClone(SAMPLES[i % SAMPLES.length]));

/** Evaluations per second: cycle through the input pool for a fixed time after a warm-up. */
async function throughput(engine) {
  let checksum = 0;
  // Every decision escapes into a sink, as it would to a real caller: otherwise V8 may elide the
  // baseline's result object entirely (escape analysis) while an engine must still build its own.
  const sink = new Array(1024);
  const step = engine.async
    ? async (i) => {
        const decision = await engine.run(POOL[i % POOL.length]);
        sink[i & 1023] = decision;
        checksum += decision.rateBps;
      }
    : (i) => {
        const decision = engine.run(POOL[i % POOL.length]);
        sink[i & 1023] = decision;
        checksum += decision.rateBps;
      };
  const warmup = engine.async ? Math.ceil(settings.warmupEvaluations / 20) : settings.warmupEvaluations;
  for (let i = 0; i < warmup; i++) await step(i);
  const budgetNs = BigInt(Math.round(settings.secondsPerEngine * 1e9));
  const started = process.hrtime.bigint();
  let count = 0;
  let elapsed = 0n;
  // Check the clock every batch only, so that reading it does not dominate fast engines.
  const batch = engine.async ? 10 : 1000;
  do {
    if (engine.async) {
      for (let i = 0; i < batch; i++) await step(count + i);
    } else {
      for (let i = 0; i < batch; i++) step(count + i);
    }
    count += batch;
    elapsed = process.hrtime.bigint() - started;
  } while (elapsed < budgetNs);
  return { perSecond: count / (Number(elapsed) / 1e9), count, checksum };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function compileTime(source) {
  const times = [];
  for (let i = 0; i < settings.compileRuns; i++) {
    const started = process.hrtime.bigint();
    const result = language.compile(source, 'en-US');
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.program === null) throw new Error(result.diagnostics.map((d) => language.describeDiagnostic(d)).join('\n'));
  }
  return { median: median(times), min: Math.min(...times), runs: times.length };
}

/** Heap held per compiled module, each evaluated once (as a cached module in use would have been). */
function heapPerModule(makeSource, input) {
  const sources = Array.from({ length: settings.memoryCopies }, (_, i) => makeSource(i));
  globalThis.gc();
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  const kept = sources.map((s) => language.compile(s, 'en-US').program);
  for (const p of kept) if (p !== null && !language.evaluate(p, FUNCTION_NAME, input).ok) throw new Error('a copy failed to evaluate');
  globalThis.gc();
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.some((p) => p === null)) throw new Error('a copy failed to compile');
  return { bytes: (after - before) / kept.length, copies: kept.length };
}

const large = largeModuleSource();
const largeLines = large.split('\n').length;
const largeProgram = language.compile(large, 'en-US').program;
if (largeProgram === null) throw new Error('the large module does not compile');
const largeCheck = language.evaluate(largeProgram, 'price', LARGE_SAMPLE);
if (!largeCheck.ok) throw new Error('the large module does not evaluate');

console.log('Policy language benchmark');
console.log(`workload: loan pricing (${POLICY_SOURCE.split('\n').length} lines of policy), ${SAMPLES.length} sample applicants`);
console.log(`          reaching ${outcomes.size} outcomes (${[...outcomes].join(', ')}); all 4 engines agree on every sample`);
console.log(`          timed over ${POOL.length} distinct copies of the samples, ${settings.secondsPerEngine}s per engine after ${settings.warmupEvaluations} warm-up evaluations; async engines awaited one at a time`);
console.log(`compile:  ${largeLines}-line module (${language.compile(large, 'en-US').program.functions.length} rules), median of ${settings.compileRuns} runs of parse+check+compile`);
console.log(`memory:   heap delta over ${settings.memoryCopies} compiled copies kept alive (each evaluated once), divided by the count`);
console.log(`node ${process.version}, ${quick ? 'QUICK run' : 'full run'}`);
console.log('');

const results = [];
for (const engine of engines) results.push({ engine, ...(await throughput(engine)) });
const baseline = results[0].perSecond;
const ours = results[1].perSecond;

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (x) => `${x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(3)}×`;
const rows = results.map((r) => ({
  engine: r.engine.name,
  'evaluations/s': fmt(r.perSecond),
  'µs/evaluation': (1e6 / r.perSecond).toFixed(2),
  'vs plain JS': ratio(r.perSecond / baseline),
  'policy language is': r.engine.name === 'policy language' ? '—' : `${ratio(ours / r.perSecond)} as fast`,
}));
console.table(rows);

const compileLarge = compileTime(large);
const compileLoan = compileTime(POLICY_SOURCE);
const memLarge = heapPerModule((i) => largeModuleSource(`.copy${i}`), LARGE_SAMPLE);
const memLoan = heapPerModule((i) => POLICY_SOURCE.replace('Module bench.loan.', `Module bench.loan.copy${i}.`), SAMPLES[0]);
console.table([
  { measurement: `compile ${largeLines}-line module (median)`, value: `${compileLarge.median.toFixed(2)} ms`, detail: `min ${compileLarge.min.toFixed(2)} ms over ${compileLarge.runs} runs` },
  { measurement: 'compile loan-pricing module (median)', value: `${compileLoan.median.toFixed(3)} ms`, detail: `min ${compileLoan.min.toFixed(3)} ms` },
  { measurement: `heap per cached ${largeLines}-line module`, value: `${(memLarge.bytes / 1024).toFixed(1)} KiB`, detail: `${memLarge.copies} copies` },
  { measurement: 'heap per cached loan-pricing module', value: `${(memLoan.bytes / 1024).toFixed(1)} KiB`, detail: `${memLoan.copies} copies` },
]);

const jre = results.find((r) => r.engine.name === 'json-rules-engine').perSecond;
const targets = [
  { target: 'policy language ≥ 1/3 of plain JS', actual: `${(ours / baseline).toFixed(3)}`, met: ours >= baseline / 3 },
  { target: 'policy language ≥ 100× json-rules-engine', actual: `${(ours / jre).toFixed(0)}×`, met: ours >= 100 * jre },
  { target: 'compile of the large module ≤ 5 ms (median)', actual: `${compileLarge.median.toFixed(2)} ms`, met: compileLarge.median <= 5 },
];
console.table(targets.map((t) => ({ ...t, met: t.met ? 'yes' : 'NO' })));
if (quick) console.log('(QUICK run: too short for the ratios to mean much)');
