import { checkReport, compile, sourceLocale } from '../../language/index.js';
import { type CliIo, EXIT_DIAGNOSTICS, EXIT_OK } from '../cli-io.js';
import { readSource } from '../read-input.js';
import { renderDiagnostics } from '../render-diagnostic.js';

export interface CheckOptions {
  /** Default: detected from the module header keyword, as `fmt` does; en-US when it names none. */
  locale?: string;
  /** Print the check report (the service's `POST /api/v1/policies/check` answer) as JSON whatever the diagnostics. */
  json?: boolean;
}

/** `policy check`: compiles the module and reports every diagnostic; exit 1 when any is an error. */
export function runCheck(file: string, options: CheckOptions, io: CliIo): number {
  const source = readSource(file);
  const locale = sourceLocale(source, options.locale);
  const compiled = compile(source, locale);
  const { program, diagnostics } = compiled;
  const failed = program === null || diagnostics.some((d) => d.severity === 'error');
  if (options.json === true) {
    io.out(`${JSON.stringify(checkReport(locale, compiled), null, 2)}\n`);
    return failed ? EXIT_DIAGNOSTICS : EXIT_OK;
  }
  if (diagnostics.length > 0) io.err(renderDiagnostics(diagnostics, source, file));
  if (failed) return EXIT_DIAGNOSTICS;
  const names = program.functions.map((f) => f.name);
  const rules = `${names.length} rule${names.length === 1 ? '' : 's'}`;
  const flows = program.workflows.map((w) => w.name);
  const workflows = flows.length === 0 ? '' : `; ${flows.length} workflow${flows.length === 1 ? '' : 's'}: ${flows.join(', ')}`;
  io.out(`ok: ${file}: module ${program.moduleName} (${program.locale}), ${rules}: ${names.join(', ')}${workflows}\n`);
  return EXIT_OK;
}
