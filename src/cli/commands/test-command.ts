import { isDeepStrictEqual } from 'node:util';
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { JsonValue } from '../../language/api-types.js';
import { compile, evaluate } from '../../language/index.js';
import { type CliIo, CliUsageError, EXIT_DIAGNOSTICS, EXIT_OK } from '../cli-io.js';
import { readSource } from '../read-input.js';
import { renderDiagnostics } from '../render-diagnostic.js';
import { sourceLocale } from '../source-locale.js';

/** `<module>.tests.json` beside `<module>.policy`. */
export const TEST_FILE_SUFFIX = '.tests.json';
const POLICY_SUFFIX = '.policy';
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'dist']);

const json: z.ZodType<JsonValue> = z.lazy(() => z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(json), z.record(z.string(), json)]));

const testCase = z
  .object({
    name: z.string().min(1),
    /** Optional: which part of the policy the case exercises. */
    why: z.string().optional(),
    rule: z.string().min(1),
    /** An object keyed by parameter name or an array in parameter order; default `{}`. */
    context: z.union([z.record(z.string(), json), z.array(json)]).optional(),
    /** The whole result. */
    expect: json.optional(),
    /** Some fields of a record result (the others may be anything). */
    expectFields: z.record(z.string(), json).optional(),
    /** The code of the first error diagnostic (`PL3001`…): the evaluation must fail with it. */
    expectError: z.string().regex(/^PL\d{4}$/).optional(),
  })
  .strict()
  .refine((c) => [c.expect, c.expectFields, c.expectError].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of `expect`, `expectFields` and `expectError`',
  });

const testFile = z.object({ cases: z.array(testCase).min(1) }).strict();
type TestCase = z.infer<typeof testCase>;

/** The test files named or found under the paths (recursively, in name order). */
function testFilesUnder(paths: readonly string[]): string[] {
  const found: string[] = [];
  const visit = (path: string, named: boolean) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new CliUsageError(`cannot read \`${path}\`: no such file or directory`);
    }
    if (!isDirectory) {
      if (path.endsWith(TEST_FILE_SUFFIX)) found.push(path);
      else if (named) throw new CliUsageError(`\`${path}\` is not a test file (\`<module>${TEST_FILE_SUFFIX}\`) or a directory`);
      return;
    }
    for (const entry of readdirSync(path).sort()) {
      if (!SKIPPED_DIRECTORIES.has(entry)) visit(join(path, entry), false);
    }
  };
  for (const path of paths) visit(path, true);
  return found;
}

function describeValue(value: JsonValue | undefined): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Why a case failed, or null when it passed. */
function judge(outcome: ReturnType<typeof evaluate>, expected: TestCase): string | null {
  if (!outcome.ok) {
    const code = outcome.diagnostics.find((d) => d.severity === 'error')?.code;
    if (expected.expectError !== undefined) return code === expected.expectError ? null : `expected error ${expected.expectError}, got ${code}`;
    const first = outcome.diagnostics.find((d) => d.severity === 'error');
    return `evaluation failed: ${first ? `${first.code} ${first.message}` : 'no result'}`;
  }
  if (expected.expectError !== undefined) return `expected error ${expected.expectError}, got ${describeValue(outcome.value)}`;
  if (expected.expectFields !== undefined) {
    const value = outcome.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return `expected a record, got ${describeValue(value)}`;
    for (const [field, wanted] of Object.entries(expected.expectFields)) {
      if (!isDeepStrictEqual(value[field], wanted)) return `field \`${field}\`: expected ${describeValue(wanted)}, got ${describeValue(value[field])}`;
    }
    return null;
  }
  return isDeepStrictEqual(outcome.value, expected.expect) ? null : `expected ${describeValue(expected.expect)}, got ${describeValue(outcome.value)}`;
}

/**
 * `policy test <paths…>`: runs the cases of every `<module>.tests.json` named or found under the
 * paths against `<module>.policy` beside it. Prints each failure and a summary; exit 0 when every
 * case passed, 1 when any failed or a module or test file is broken.
 */
export function runTest(paths: readonly string[], io: CliIo): number {
  const files = testFilesUnder(paths);
  if (files.length === 0) throw new CliUsageError(`no test files (\`<module>${TEST_FILE_SUFFIX}\`) under ${paths.join(', ')}`);
  let passed = 0;
  let failed = 0;
  let broken = 0;
  for (const file of files) {
    const policyFile = join(dirname(file), `${basename(file, TEST_FILE_SUFFIX)}${POLICY_SUFFIX}`);
    let parsed: z.infer<typeof testFile>;
    try {
      parsed = testFile.parse(JSON.parse(readSource(file)));
    } catch (error) {
      const reason = error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message;
      io.err(`BROKEN ${file}: ${reason}\n`);
      broken++;
      continue;
    }
    const source = readSource(policyFile);
    const compiled = compile(source, sourceLocale(source, undefined));
    if (compiled.program === null || compiled.diagnostics.some((d) => d.severity === 'error')) {
      io.err(renderDiagnostics(compiled.diagnostics, source, policyFile));
      io.err(`BROKEN ${policyFile}: does not compile; its ${parsed.cases.length} cases did not run\n`);
      broken++;
      continue;
    }
    let filePassed = 0;
    for (const c of parsed.cases) {
      const why = judge(evaluate(compiled.program, c.rule, c.context ?? {}), c);
      if (why === null) {
        filePassed++;
        continue;
      }
      io.err(`FAIL ${policyFile}: ${c.name}: ${why}\n`);
      failed++;
    }
    passed += filePassed;
    io.out(`${filePassed === parsed.cases.length ? 'ok  ' : 'FAIL'} ${policyFile}: ${filePassed}/${parsed.cases.length} passed\n`);
  }
  const total = passed + failed;
  io.out(`${failed === 0 && broken === 0 ? 'PASS' : 'FAIL'}: ${passed}/${total} cases passed in ${files.length - broken} of ${files.length} files\n`);
  return failed === 0 && broken === 0 ? EXIT_OK : EXIT_DIAGNOSTICS;
}
