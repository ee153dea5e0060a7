/**
 * The built-in domain library: the `.policy` modules shipped in `policies/` (or the directory the
 * service is configured with), compiled once at start-up. A module that does not compile stops the start-up: answering domain queries with a
 * silently missing module would be worse than not starting.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { CompiledProgram, FunctionSignature, Locale } from '../language/api-types.js';
import type { Diagnostic } from '../language/diagnostics/diagnostic.js';
import { compile, describeDiagnostic, detectLocale } from '../language/index.js';

export const POLICY_FILE_EXTENSION = '.policy';

export interface BuiltinModule {
  /** Dotted module name, e.g. `lending.loan`; always equal to the file name without `.policy`. */
  moduleName: string;
  locale: Locale;
  source: string;
  program: CompiledProgram;
  functions: readonly FunctionSignature[];
  /** Absolute path of the source file. */
  file: string;
}

/** A built-in policy that cannot be loaded; the message names the file and every diagnostic. */
export class BuiltinLibraryError extends Error {
  readonly file: string;
  readonly diagnostics: readonly Diagnostic[];

  constructor(file: string, problem: string, diagnostics: readonly Diagnostic[] = []) {
    const details = diagnostics.map((d) => `\n  ${describeDiagnostic(d)}`).join('');
    super(`built-in policy ${file}: ${problem}${details}`);
    this.name = 'BuiltinLibraryError';
    this.file = file;
    this.diagnostics = diagnostics;
  }
}

/**
 * `policies/` under the package root. Found by walking up to `package.json` so the same code works
 * from `src/policies` (tests) and `dist/src/policies` (built).
 */
export function defaultPolicyDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'policies');
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root (no package.json above the built-in library)');
    dir = parent;
  }
}

/** Reads, compiles and returns every `*.policy` module of `dir`, sorted by module name. */
export async function loadBuiltinLibrary(dir: string = defaultPolicyDirectory()): Promise<BuiltinModule[]> {
  const directory = resolve(dir);
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch (error) {
    throw new BuiltinLibraryError(directory, `cannot read the policy directory (${(error as Error).message})`);
  }
  const files = entries.filter((name) => name.endsWith(POLICY_FILE_EXTENSION)).sort();
  if (files.length === 0) {
    throw new BuiltinLibraryError(directory, `no ${POLICY_FILE_EXTENSION} files in the policy directory`);
  }
  const modules: BuiltinModule[] = [];
  for (const name of files) {
    modules.push(await loadModule(join(directory, name)));
  }
  return modules;
}

async function loadModule(file: string): Promise<BuiltinModule> {
  const source = await readFile(file, 'utf8');
  const locale = detectLocale(source);
  if (locale === null) {
    throw new BuiltinLibraryError(file, 'no module header in a supported locale');
  }
  const { program, diagnostics } = compile(source, locale);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (program === null || errors.length > 0) {
    throw new BuiltinLibraryError(file, 'does not compile', errors.length > 0 ? errors : diagnostics);
  }
  const expectedName = basename(file, POLICY_FILE_EXTENSION);
  if (program.moduleName !== expectedName) {
    throw new BuiltinLibraryError(file, `declares module \`${program.moduleName}\`; the file must be named \`${program.moduleName}${POLICY_FILE_EXTENSION}\``);
  }
  return { moduleName: program.moduleName, locale, source, program, functions: program.functions, file };
}
