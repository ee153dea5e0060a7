/**
 * One declaration per diagnostic code: its code, the summary the code table shows, and the
 * constructors that word each situation the code covers, with help text where a fix can be
 * suggested. Call sites pass the values a message needs (names, types, locale spellings) and add
 * only the place.
 */

export type Severity = 'error' | 'warning';

/** What a diagnostic says, before it has a place in the source. */
export interface WordedDiagnostic<Code extends string = string> {
  readonly code: Code;
  readonly severity: Severity;
  readonly message: string;
  readonly help?: string;
}

/** The wording a constructor returns: a message, and help when a fix can be suggested. */
export interface Wording {
  message: string;
  help?: string | undefined;
}

type Words = (...args: never[]) => Wording;

export interface DiagnosticDefinition<Code extends string = string> {
  readonly code: Code;
  /** The code's meaning in the table of docs/language.md. */
  readonly summary: string;
  readonly severity: Severity;
}

type Constructor<Code extends string, W extends Words> = (...args: Parameters<W>) => WordedDiagnostic<Code>;

export type DiagnosticConstructors<Code extends string, Situations extends Record<string, Words>> = DiagnosticDefinition<Code> & {
  readonly [K in keyof Situations]: Constructor<Code, Situations[K]>;
};

function constructor<Code extends string, W extends Words>(code: Code, severity: Severity, words: W): Constructor<Code, W> {
  return (...args) => {
    const { message, help } = words(...args);
    return help === undefined ? { code, severity, message } : { code, severity, message, help };
  };
}

/** A code with one wording: the declaration is itself the constructor. */
export function defineDiagnostic<Code extends string, W extends Words>(
  code: Code,
  summary: string,
  words: W,
  severity?: Severity,
): Constructor<Code, W> & DiagnosticDefinition<Code>;
/** A code that covers several situations: one named constructor each. */
export function defineDiagnostic<Code extends string, Situations extends Record<string, Words>>(
  code: Code,
  summary: string,
  situations: Situations,
  severity?: Severity,
): DiagnosticConstructors<Code, Situations>;
export function defineDiagnostic(code: string, summary: string, words: Words | Record<string, Words>, severity: Severity = 'error'): DiagnosticDefinition {
  const definition = { code, summary, severity };
  if (typeof words === 'function') return Object.assign(constructor(code, severity, words), definition);
  const constructors = Object.fromEntries(Object.entries(words).map(([situation, w]) => [situation, constructor(code, severity, w)]));
  return { ...constructors, ...definition };
}

/** True for a value `defineDiagnostic` made; the code table gathers them from the declaration files. */
export function isDiagnosticDefinition(value: unknown): value is DiagnosticDefinition {
  return (typeof value === 'function' || (typeof value === 'object' && value !== null)) && typeof (value as { code?: unknown }).code === 'string' && typeof (value as { summary?: unknown }).summary === 'string';
}
