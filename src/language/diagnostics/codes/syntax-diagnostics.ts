/**
 * PL1xxx: lexical and syntax problems, raised by the lexer and the parser. Keywords and
 * punctuation arrive spelled in the source's locale, so a message names what the author wrote.
 */
import { defineDiagnostic } from '../define-diagnostic.js';

export const UnexpectedCharacter = defineDiagnostic('PL1001', 'unexpected character', (shown: string) => ({
  message: `unexpected character \`${shown}\``,
  help: shown === "'" ? 'text is written in double quotes: "…"' : 'remove it, or write it inside a text in double quotes',
}));

export const UnterminatedString = defineDiagnostic('PL1002', 'unterminated string literal', () => ({
  message: 'unterminated string literal',
  help: 'close the text on the same line',
}));

export const InvalidEscape = defineDiagnostic('PL1003', 'invalid escape sequence in string', {
  unicode: (sequence: string) => ({
    message: `invalid escape sequence \`${sequence}\``,
    help: 'write `\\u{` with 1 to 6 hex digits of a Unicode scalar value and `}`, like `\\u{4E2D}`',
  }),
  unknown: (sequence: string) => ({
    message: `invalid escape sequence \`${sequence}\``,
    help: 'the escapes are \\" \\\\ \\n \\t and \\u{hex}',
  }),
});

export const TabIndentation = defineDiagnostic('PL1004', 'tab character in indentation', () => ({
  message: 'tab character in indentation',
  help: 'indent with 2 spaces per level',
}));

export const UnevenIndentation = defineDiagnostic('PL1005', 'indentation is not a multiple of 2 spaces or jumps more than one level', {
  odd: (width: number) => ({
    message: `indentation of ${width} spaces is not a multiple of 2`,
    help: 'indent each block exactly 2 spaces deeper than its header',
  }),
  jump: (from: number, to: number) => ({
    message: `indentation jumps from ${from} to ${to} spaces (a block is exactly 2 spaces deeper than its header)`,
    help: `indent this line by at most ${from + 2} spaces`,
  }),
});

// PL1006 (a token the grammar did not expect) has many situations: unexpected-token.ts.

export const MissingTerminator = defineDiagnostic('PL1007', 'missing `.` at the end of a statement or declaration', (terminator: string, what: 'statement' | 'declaration') => ({
  message: `missing \`${terminator}\` at the end of the ${what}`,
  help: `end the line with \`${terminator}\`: every ${what} ends with one${what === 'statement' ? ', the last of a block too' : ''}`,
}));

export const MissingColon = defineDiagnostic('PL1008', 'missing `:` at the end of a block header', (colon: string) => ({
  message: `missing \`${colon}\` at the end of the block header`,
  help: `end the header with \`${colon}\` and start its block on the next line`,
}));

export const MissingBlock = defineDiagnostic('PL1009', 'expected an indented block', {
  statements: () => ({ message: 'expected an indented block', help: 'indent the block 2 spaces deeper than its header' }),
  cases: (when: string) => ({ message: 'expected an indented block', help: `indent the \`${when}\` cases 2 spaces deeper` }),
  steps: (step: string) => ({ message: 'expected an indented block of steps', help: `write each \`${step}\` on its own line, indented by 2 spaces` }),
});

export const MissingModuleHeader = defineDiagnostic(
  'PL1010',
  'the module header must come first (missing `Module` declaration)',
  (module: string, terminator: string) => ({
    message: `the module must start with \`${module} name${terminator}\``,
    help: `write \`${module} a.b${terminator}\` on the first line`,
  }),
);

export const SecondModuleHeader = defineDiagnostic('PL1011', 'more than one module header', () => ({
  message: 'more than one module header',
  help: 'a source file is exactly one module',
}));

export const InvalidNumber = defineDiagnostic('PL1012', 'invalid number literal', {
  malformed: (text: string) => ({
    message: `invalid number literal \`${text}\``,
    help: 'digits may be grouped with single `_` between them, like `1_000_000`',
  }),
  tooLarge: (text: string) => ({ message: `number literal \`${text}\` is too large` }),
  unsafeInteger: (text: string) => ({
    message: `integer literal \`${text}\` is outside the safe range ±(2^53−1)`,
    help: 'write it as a Float with a decimal point if an approximate value is enough',
  }),
});

export const KeywordAsName = defineDiagnostic('PL1013', 'a keyword cannot be used as a name (write it in backticks)', (keyword: string) => ({
  message: `\`${keyword}\` is a keyword and cannot be used as a name`,
  help: `write it in backticks: \`${keyword}\``,
}));

export const UnterminatedBacktick = defineDiagnostic('PL1014', 'unterminated backtick identifier', () => ({
  message: 'unterminated backtick name',
  help: 'close the name with a second backtick',
}));

export const ChainedComparison = defineDiagnostic('PL1015', 'comparisons cannot be chained without parentheses', (and: string) => ({
  message: 'comparisons cannot be chained without parentheses',
  help: `join two comparisons with \`${and}\`, or put one in parentheses`,
}));

export const UnexpectedIndentation = defineDiagnostic('PL1016', 'unexpected indentation', {
  inBlock: () => ({ message: 'unexpected indentation', help: 'indent a block only after a header ending with `:`' }),
  inMatch: () => ({ message: 'unexpected indentation', help: 'indent only the block of a case, under its header' }),
  atDeclaration: () => ({ message: 'unexpected indentation', help: 'declarations start at the beginning of a line' }),
  inWorkflow: () => ({ message: 'unexpected indentation', help: 'steps are not nested: each one is a line of the workflow' }),
});

export const InvalidSourceCharacter = defineDiagnostic('PL1017', 'invalid UTF-8 or control character in source', {
  loneCarriageReturn: () => ({
    message: 'carriage return without a line feed (lines end with LF or CRLF)',
    help: 'save the source with LF or CRLF line endings',
  }),
  controlCharacter: (hex: string) => ({
    message: `control character ${hex} in source`,
    help: 'remove it; in a text, write `\\n` or `\\t` instead',
  }),
  unpairedSurrogate: (hex: string) => ({
    message: `unpaired surrogate ${hex} (not valid UTF-8)`,
    help: 'remove it, or save the source as valid UTF-8',
  }),
});

export const BacktickNotName = defineDiagnostic('PL1018', 'backticks must quote a name (a letter or `_`, then letters, digits or `_`)', (text: string) => ({
  message: `\`${text}\` in backticks is not a name`,
  help: 'backticks only quote a name: a letter or `_`, then letters, digits or `_`',
}));

export const StepWithoutAction = defineDiagnostic('PL1019', 'a workflow step must call a rule or await a signal', (awaitWord: string) => ({
  message: `a step calls a rule, \`name(arguments)\`, or awaits a signal with \`${awaitWord}\``,
  help: `e.g. \`identityVerified(applicant)\` or \`${awaitWord} "approval"\``,
}));
