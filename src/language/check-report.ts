/**
 * What checking a module found, as `policy check --json` prints it and the service's
 * `POST /api/v1/policies/check` answers it: one shape for both, built here.
 */
import type { CompiledProgram, ParameterInfo } from './api-types.js';
import type { Diagnostic } from './diagnostics/index.js';
import { resolveLocale } from './locales/index.js';

/** A place in the source: `line` and `column` count from 1, as `policy check` prints them; `offset` is the UTF-16 index. */
export interface CheckPosition {
  line: number;
  column: number;
  offset: number;
}

export interface CheckDiagnostic {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  help?: string;
  /** From the first character to just past the last; null only for a problem with no place in the source (an unsupported locale). */
  span: { start: CheckPosition; end: CheckPosition } | null;
}

export interface CheckParameter {
  name: string;
  /** As written in en-US, e.g. `List of Applicant`. */
  type: string;
}

export interface CheckReport {
  /** No error-severity diagnostic. */
  ok: boolean;
  /** The locale the source was read in (canonical tag when supported). */
  locale: string;
  /** The module's name; null when it did not compile. */
  module: string | null;
  functions: { name: string; parameters: CheckParameter[]; returns: string }[];
  workflows: { name: string; parameters: CheckParameter[] }[];
  diagnostics: CheckDiagnostic[];
}

/** The parts of a compiled module the report names: a CompiledProgram, or the engine's summary of one. */
export type CheckedModuleSummary = Pick<CompiledProgram, 'moduleName' | 'functions' | 'workflows'>;

const parameters = (params: readonly ParameterInfo[]): CheckParameter[] => params.map(({ name, type }) => ({ name, type }));

function checkDiagnostic(diagnostic: Diagnostic): CheckDiagnostic {
  const { code, severity, message, help, span } = diagnostic;
  return {
    code,
    severity,
    message,
    ...(help === undefined ? {} : { help }),
    span:
      span === null
        ? null
        : {
            start: { line: span.line, column: span.column, offset: span.start },
            end: { line: span.endLine, column: span.endColumn, offset: span.end },
          },
  };
}

/**
 * The report of a compile in `localeTag`: `program` is what compiled (null when an error stopped it),
 * `diagnostics` everything found, errors and warnings, in the compiler's order.
 */
export function checkReport(localeTag: string, compiled: { program: CheckedModuleSummary | null; diagnostics: readonly Diagnostic[] }): CheckReport {
  const { diagnostics } = compiled;
  const program = diagnostics.some((d) => d.severity === 'error') ? null : compiled.program;
  return {
    ok: program !== null,
    locale: resolveLocale(localeTag) ?? localeTag,
    module: program?.moduleName ?? null,
    functions: (program?.functions ?? []).map((f) => ({ name: f.name, parameters: parameters(f.params), returns: f.returnType })),
    workflows: (program?.workflows ?? []).map((w) => ({ name: w.name, parameters: parameters(w.params) })),
    diagnostics: diagnostics.map(checkDiagnostic),
  };
}
