import type { JsonValue, TraceEntry } from '../../language/api-types.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import { compile, describeDiagnostic, evaluate, sourceLocale } from '../../language/index.js';
import { type CliIo, CliUsageError, EXIT_DIAGNOSTICS, EXIT_OK, EXIT_USAGE } from '../cli-io.js';
import { readContext, readSource } from '../read-input.js';
import { renderDiagnostics } from '../render-diagnostic.js';

export interface EvalOptions {
  function: string;
  context?: string;
  /** Default: detected from the module header keyword. */
  locale?: string;
  trace?: boolean;
  json?: boolean;
}

/** The `--json` envelope: the same fields the service returns for an evaluation. */
interface EvalReport {
  result: JsonValue;
  error: string | null;
  diagnostics: Diagnostic[];
  trace?: TraceEntry[];
}

function renderTrace(trace: readonly TraceEntry[]): string {
  const lines = trace.map((entry, i) => {
    const at = `${entry.rule}@${entry.span.line}:${entry.span.column}`;
    const branch = entry.branch ? `  [${entry.branch}]` : '';
    return `  ${String(i + 1).padStart(3)}. ${entry.kind.padEnd(6)} ${at}  ${entry.text}  => ${JSON.stringify(entry.value)}${branch}`;
  });
  return `trace (${trace.length} step${trace.length === 1 ? '' : 's'}):\n${lines.join('\n')}\n`;
}

/** The service's error string for the first error, e.g. `PL3001 division by zero at 3:10`. */
function errorLine(diagnostics: readonly Diagnostic[]): string {
  const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  return first ? describeDiagnostic(first) : 'evaluation failed';
}

/**
 * `policy eval`: compiles, evaluates one rule and prints the result as JSON (exit 0), or the
 * diagnostics (exit 1). With `--json` the outcome is always one JSON object on standard output.
 */
export function runEval(file: string, options: EvalOptions, io: CliIo): number {
  const print = (report: EvalReport): void => io.out(`${JSON.stringify(report, null, 2)}\n`);
  let source: string;
  let context: JsonValue;
  try {
    source = readSource(file);
    context = options.context === undefined ? {} : readContext(options.context);
  } catch (error) {
    if (!(error instanceof CliUsageError) || !options.json) throw error;
    print({ result: null, error: error.message, diagnostics: [] });
    return EXIT_USAGE;
  }

  const trace = options.trace === true;
  const compiled = compile(source, sourceLocale(source, options.locale));
  const warnings = compiled.diagnostics;
  if (compiled.program === null || compiled.diagnostics.some((d) => d.severity === 'error')) {
    if (options.json) print({ result: null, error: errorLine(compiled.diagnostics), diagnostics: compiled.diagnostics });
    else io.err(renderDiagnostics(compiled.diagnostics, source, file));
    return EXIT_DIAGNOSTICS;
  }

  const outcome = evaluate(compiled.program, options.function, context, { trace });
  const traceField = trace && outcome.trace ? { trace: outcome.trace } : {};
  if (outcome.ok) {
    if (options.json) {
      print({ result: outcome.value, error: null, diagnostics: warnings, ...traceField });
    } else {
      if (warnings.length > 0) io.err(renderDiagnostics(warnings, source, file));
      if (trace && outcome.trace) io.err(renderTrace(outcome.trace));
      io.out(`${JSON.stringify(outcome.value, null, 2)}\n`);
    }
    return EXIT_OK;
  }
  const diagnostics = [...warnings, ...outcome.diagnostics];
  if (options.json) {
    print({ result: null, error: errorLine(outcome.diagnostics), diagnostics, ...traceField });
  } else {
    if (trace && outcome.trace) io.err(renderTrace(outcome.trace));
    io.err(renderDiagnostics(diagnostics, source, file));
  }
  return EXIT_DIAGNOSTICS;
}
