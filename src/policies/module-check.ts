import { checkReport, sourceLocale, type CheckReport, type Locale } from '../language/index.js';
import { compileSource, printSource, runCases, type EngineCases, type EngineCompile, type SourceFormatter } from './engine-work.js';
import { caseReport, type CaseReport, type ModuleTests } from './module-tests.js';

export interface CheckRequest {
  source: string;
  /** Default: the one the module header names, else en-US (as `policy check`). */
  locale?: Locale | undefined;
  /** Cases run as a deploy runs them, reported passed or failed. */
  tests?: ModuleTests | undefined;
  /** Print the module in this locale too. */
  showIn?: Locale | undefined;
}

/** `policy check --json`'s report, with the cases' results and the printed module when asked for and the module compiled. */
export interface ModuleCheck extends CheckReport {
  tests?: { passed: number; failed: number; cases: CaseReport[] };
  formatted?: { locale: Locale; source: string };
}

export interface ModuleCheckDeps {
  compile: EngineCompile;
  evaluateCases: EngineCases;
  format: SourceFormatter;
}

/**
 * A deploy without the storing: the source compiled, its cases run and its print made in the
 * engine, each within the bounds a deploy's is. Nothing is stored or recorded.
 */
export function createModuleCheck(deps: ModuleCheckDeps): (tenantId: string, request: CheckRequest) => Promise<ModuleCheck> {
  return async (tenantId, { source, locale: asked, tests, showIn }) => {
    const locale = sourceLocale(source, asked);
    const compiled = await compileSource(deps.compile, tenantId, source, locale);
    const report: ModuleCheck = checkReport(locale, { program: compiled.ok ? compiled.module : null, diagnostics: compiled.diagnostics });
    if (!report.ok) return report;
    const [outcomes, printed] = await Promise.all([
      tests === undefined ? undefined : runCases(deps.evaluateCases, tenantId, source, locale, tests),
      showIn === undefined ? undefined : printSource(deps.format, tenantId, source, locale, showIn),
    ]);
    if (tests !== undefined && outcomes !== undefined) {
      const cases = tests.cases.map((testCase, index) => caseReport(testCase, outcomes[index]!));
      const passed = cases.filter((c) => c.passed).length;
      report.tests = { passed, failed: cases.length - passed, cases };
      report.ok = passed === cases.length;
    }
    if (showIn !== undefined && printed !== undefined) report.formatted = { locale: showIn, source: printed };
    return report;
  };
}
