import { z } from 'zod';
import { compile, evaluate, sourceLocale } from '../../language/index.js';
// The file, not the registry's index: the policy command loads no store or queue code.
import { judgeCase, moduleTestsSchema, type CaseOutcome, type ModuleTests } from '../../policies/module-tests.js';
import { type CliIo, CliUsageError, EXIT_DIAGNOSTICS, EXIT_OK } from '../cli-io.js';
import { besideFile, filesUnder, POLICY_SUFFIX, TEST_FILE_SUFFIX } from '../module-files.js';
import { readSource } from '../read-input.js';
import { renderDiagnostics } from '../render-diagnostic.js';

/** What the language's evaluation gave, as a case is judged on it. */
function caseOutcome(outcome: ReturnType<typeof evaluate>): CaseOutcome {
  if (outcome.ok) return { ok: true, value: outcome.value };
  const first = outcome.diagnostics.find((d) => d.severity === 'error');
  return { ok: false, code: first?.code ?? 'no diagnostic', error: first?.message ?? 'no result' };
}

/**
 * `policy test <paths…>`: runs the cases of every `<module>.tests.json` named or found under the
 * paths against `<module>.policy` beside it. Prints each failure and a summary; exit 0 when every
 * case passed, 1 when any failed or a module or test file is broken.
 */
export function runTest(paths: readonly string[], io: CliIo): number {
  const files = filesUnder(paths, TEST_FILE_SUFFIX, 'test file');
  if (files.length === 0) throw new CliUsageError(`no test files (\`<module>${TEST_FILE_SUFFIX}\`) under ${paths.join(', ')}`);
  let passed = 0;
  let failed = 0;
  let broken = 0;
  for (const file of files) {
    const policyFile = besideFile(file, TEST_FILE_SUFFIX, POLICY_SUFFIX);
    let parsed: ModuleTests;
    try {
      parsed = moduleTestsSchema.parse(JSON.parse(readSource(file)));
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
      const failure = judgeCase(c, caseOutcome(evaluate(compiled.program, c.rule, c.context ?? {})));
      if (failure === null) {
        filePassed++;
        continue;
      }
      io.err(`FAIL ${policyFile}: ${c.name}: ${failure.reason}\n`);
      failed++;
    }
    passed += filePassed;
    io.out(`${filePassed === parsed.cases.length ? 'ok  ' : 'FAIL'} ${policyFile}: ${filePassed}/${parsed.cases.length} passed\n`);
  }
  const total = passed + failed;
  io.out(`${failed === 0 && broken === 0 ? 'PASS' : 'FAIL'}: ${passed}/${total} cases passed in ${files.length - broken} of ${files.length} files\n`);
  return failed === 0 && broken === 0 ? EXIT_OK : EXIT_DIAGNOSTICS;
}
