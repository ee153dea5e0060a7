import { writeFileSync } from 'node:fs';
import type { Locale } from '../../language/api-types.js';
import { SUPPORTED_LOCALES } from '../../language/api-types.js';
import { placeDiagnostic, UnsupportedLocale, type Diagnostic } from '../../language/diagnostics/index.js';
import { detectLocale, format, parse, resolveLocale } from '../../language/index.js';
import { type CliIo, CliUsageError, EXIT_DIAGNOSTICS, EXIT_OK } from '../cli-io.js';
import { readSource } from '../read-input.js';
import { renderDiagnostics } from '../render-diagnostic.js';

export interface FmtOptions {
  from?: string;
  locale?: string;
  /** List the files whose layout is not canonical (exit 1 when any), change nothing. */
  check?: boolean;
  /** Rewrite the files that are not canonical in place. */
  write?: boolean;
}

/** The same PL6001 diagnostic `compile` gives, so a bad tag reads alike in every command. */
function unsupportedLocale(tag: string): Diagnostic {
  return placeDiagnostic(UnsupportedLocale.command(tag, SUPPORTED_LOCALES), null);
}

type Formatted = { ok: true; source: string; text: string } | { ok: false; exit: number };

/** One file in canonical layout (translated to `--locale`), or its diagnostics printed. */
function formatFile(file: string, options: FmtOptions, io: CliIo): Formatted {
  const source = readSource(file);
  const bad = [options.from, options.locale].filter((tag): tag is string => tag !== undefined && resolveLocale(tag) === null);
  if (bad.length > 0) {
    io.err(renderDiagnostics(bad.map(unsupportedLocale), source, file));
    return { ok: false, exit: EXIT_DIAGNOSTICS };
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
    return { ok: false, exit: EXIT_DIAGNOSTICS };
  }
  return { ok: true, source, text: format(parsed.module, target) };
}

/**
 * `policy fmt`: prints a module in canonical layout, translated to `--locale`; the source's locale
 * comes from `--from` or its module header keyword. With `--check` it lists the files that are
 * not canonical and exits 1 when any is; with `--write` it rewrites them in place. Either takes
 * several files; plain printing takes one.
 */
export function runFmt(files: readonly string[], options: FmtOptions, io: CliIo): number {
  if (options.check && options.write) throw new CliUsageError('--check and --write exclude each other');
  if (!options.check && !options.write && files.length !== 1) {
    throw new CliUsageError('fmt prints one file; pass --check or --write to handle several');
  }
  let exit = EXIT_OK;
  for (const file of files) {
    const formatted = formatFile(file, options, io);
    if (!formatted.ok) {
      exit = Math.max(exit, formatted.exit);
      continue;
    }
    if (!options.check && !options.write) {
      io.out(formatted.text);
      continue;
    }
    if (formatted.text === formatted.source) continue;
    if (options.check) {
      io.out(`not canonical: ${file}\n`);
      exit = Math.max(exit, EXIT_DIAGNOSTICS);
    } else {
      writeFileSync(file, formatted.text);
      io.out(`rewrote ${file}\n`);
    }
  }
  return exit;
}
