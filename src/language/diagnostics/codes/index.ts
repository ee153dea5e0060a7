/**
 * Every diagnostic code, declared once in the file of its phase. Codes are stable: a code, once
 * shipped, keeps its meaning forever; add new ones at the end of their range. Ranges: PL1xxx
 * lexical and syntax, PL2xxx names and types, PL3xxx runtime, PL4xxx limits, PL5xxx context input
 * conversion, PL6xxx locale and entry point.
 */
import { isDiagnosticDefinition, type DiagnosticDefinition, type WordedDiagnostic } from '../define-diagnostic.js';
import * as entry from './entry-diagnostics.js';
import * as input from './input-diagnostics.js';
import * as limits from './limit-diagnostics.js';
import * as names from './name-diagnostics.js';
import * as operands from './operand-mismatch.js';
import * as runtime from './runtime-diagnostics.js';
import * as syntax from './syntax-diagnostics.js';
import * as types from './type-diagnostics.js';
import * as unexpectedToken from './unexpected-token.js';
import * as workflows from './workflow-diagnostics.js';

export * from './entry-diagnostics.js';
export * from './input-diagnostics.js';
export * from './limit-diagnostics.js';
export * from './name-diagnostics.js';
export * from './operand-mismatch.js';
export * from './runtime-diagnostics.js';
export * from './syntax-diagnostics.js';
export * from './type-diagnostics.js';
export * from './unexpected-token.js';
export * from './workflow-diagnostics.js';
export type { ShownType } from './shown-type.js';

const DECLARATION_FILES = [syntax, unexpectedToken, names, types, operands, workflows, runtime, limits, input, entry];

type CodesOf<File> = File extends unknown ? { [K in keyof File]: File[K] extends DiagnosticDefinition<infer Code> ? Code : never }[keyof File] : never;

export type DiagnosticCode = CodesOf<(typeof DECLARATION_FILES)[number]>;

/** What a declared diagnostic says, before it has a place: a constructor's result. */
export type DiagnosticText = WordedDiagnostic<DiagnosticCode>;

/** Every declaration, in code order. */
export const DIAGNOSTIC_DEFINITIONS: readonly DiagnosticDefinition<DiagnosticCode>[] = DECLARATION_FILES.flatMap((file) =>
  Object.values(file).filter((value): value is DiagnosticDefinition<DiagnosticCode> => isDiagnosticDefinition(value)),
).sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));

/** The code table: each code's summary, in code order (docs/language.md is generated from it). */
export const DIAGNOSTIC_CODES = Object.fromEntries(DIAGNOSTIC_DEFINITIONS.map((d) => [d.code, d.summary])) as Readonly<Record<DiagnosticCode, string>>;
