import type { Locale } from '../../language/api-types.js';
import { SUPPORTED_LOCALES } from '../../language/api-types.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import { detectLocale, format, parse, resolveLocale } from '../../language/index.js';
import { type CliIo, CliUsageError, EXIT_DIAGNOSTICS, EXIT_OK } from '../cli-io.js';
import { readSource } from '../read-input.js';
import { renderDiagnostics } from '../render-diagnostic.js';

export interface FmtOptions {
  from?: string;
  locale?: string;
}

/** The same PL6001 diagnostic `compile` gives, so a bad tag reads alike in every command. */
function unsupportedLocale(tag: string): Diagnostic {
  return {
    code: 'PL6001',
    severity: 'error',
    message: `unsupported locale \`${tag}\`; supported locales: ${SUPPORTED_LOCALES.join(', ')}`,
    span: null,
  };
}

/**
 * `policy fmt`: prints the module in canonical layout, translated to `--locale`. The source's
 * locale comes from `--from` or, by default, from its module header keyword.
 */
export function runFmt(file: string, options: FmtOptions, io: CliIo): number {
  const source = readSource(file);
  const bad = [options.from, options.locale].filter((tag): tag is string => tag !== undefined && resolveLocale(tag) === null);
  if (bad.length > 0) {
    io.err(renderDiagnostics(bad.map(unsupportedLocale), source, file));
    return EXIT_DIAGNOSTICS;
  }
  const from: Locale | null = options.from === undefined ? detectLocale(source) : resolveLocale(options.from);
  if (from === null) {
    throw new CliUsageError(
      `cannot tell the locale of \`${file}\` from its module header (\`Module\`, \`模块\` or \`Modul\`); pass --from`,
    );
  }
  const target = options.locale === undefined ? from : (resolveLocale(options.locale) ?? from);
  const parsed = parse(source, from);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (parsed.module === null || errors.length > 0) {
    io.err(renderDiagnostics(parsed.diagnostics, source, file));
    return EXIT_DIAGNOSTICS;
  }
  io.out(format(parsed.module, target));
  return EXIT_OK;
}
