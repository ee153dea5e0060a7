/**
 * Stable diagnostic codes. A code, once shipped, keeps its meaning forever; add new ones at the end
 * of their range. Ranges: PL1xxx lexical and syntax, PL2xxx names and types, PL3xxx runtime,
 * PL4xxx limits, PL5xxx context input conversion, PL6xxx locale and entry point.
 */
export const DIAGNOSTIC_CODES = {
  // --- PL1xxx lexical and syntax (lexer, parser) ---
  PL1001: 'unexpected character',
  PL1002: 'unterminated string literal',
  PL1003: 'invalid escape sequence in string',
  PL1004: 'tab character in indentation',
  PL1005: 'indentation is not a multiple of 2 spaces or jumps more than one level',
  PL1006: 'unexpected token (expected something else)',
  PL1007: 'missing `.` at the end of a statement or declaration',
  PL1008: 'missing `:` at the end of a block header',
  PL1009: 'expected an indented block',
  PL1010: 'the module header must come first (missing `Module` declaration)',
  PL1011: 'more than one module header',
  PL1012: 'invalid number literal',
  PL1013: 'a keyword cannot be used as a name (write it in backticks)',
  PL1014: 'unterminated backtick identifier',
  PL1015: 'comparisons cannot be chained without parentheses',
  PL1016: 'unexpected indentation',
  PL1017: 'invalid UTF-8 or control character in source',
  PL1018: 'backticks must quote a name (a letter or `_`, then letters, digits or `_`)',
  PL1019: 'a workflow step must call a rule or await a signal',

  // --- PL2xxx names and types (checker) ---
  PL2001: 'unknown name',
  PL2002: 'unknown type',
  PL2003: 'duplicate declaration name (type, enum or rule)',
  PL2004: 'duplicate field or parameter name',
  PL2005: 'duplicate enum variant name within the module',
  PL2006: 'type mismatch (expected one type, found another)',
  PL2007: 'operator cannot be applied to these operand types',
  PL2008: 'condition is not a `Bool`',
  PL2009: 'not every path of the rule returns a value',
  PL2010: '`Let` rebinding changes the variable\'s type',
  PL2011: 'rule calls form a cycle (recursion is not allowed)',
  PL2012: 'unknown rule or function',
  PL2013: 'wrong number of arguments',
  PL2014: 'record construction is missing a field',
  PL2015: 'record construction sets an unknown or duplicate field',
  PL2016: 'unknown field in field access',
  PL2017: '`Match` names the same value twice',
  PL2018: '`Match` pattern does not fit the matched value (wrong enum or literal type)',
  PL2019: '`For each` needs a list',
  PL2020: 'the type of an empty list cannot be inferred here',
  PL2021: 'unreachable statement after `Return` or `Fail with`',
  PL2022: 'record type contains itself without a list in between (no value of it can exist)',
  PL2023: 'loop variable reuses the name of a variable that is already bound',
  PL2024: 'variable may be read before it has a value (it is bound only on some paths)',
  PL2025: 'two steps of a workflow have the same name',
  PL2026: 'a workflow step or compensation must call a rule of the module that produces `Bool`',
  PL2027: 'a workflow step passes the workflow\'s parameters, by name, as the rule\'s arguments',
  PL2028: 'an awaited signal needs a name and a time limit of at least 1',

  // --- PL3xxx runtime (evaluation) ---
  PL3001: 'division by zero',
  PL3002: 'modulo by zero',
  PL3003: 'integer result outside the safe range ±(2^53−1)',
  PL3004: '`Fail with` raised by the rule (message is the rule\'s text)',
  PL3005: 'numeric result is not a finite number (e.g. sqrt of a negative number)',
  PL3006: 'invalid argument to a built-in function',

  // --- PL4xxx limits ---
  PL4001: 'source is larger than 64 KiB',
  PL4002: 'nesting deeper than 64 levels (source, a result or a value in the decision trace)',
  PL4003: 'step budget exceeded',
  PL4004: 'evaluation timed out (wall-time limit enforced outside the interpreter thread)',
  PL4005: 'text value longer than the interpreter allows (2^24 characters)',
  PL4006: 'result is larger than `maxResultBytes` (default 1 MiB of JSON)',
  PL4007: 'decision trace is larger than `maxTraceBytes` (default 1 MiB of JSON)',
  PL4008: 'the time limit of an awaited signal is longer than 365 days',
  PL4009: 'a workflow has more than 2,000 steps',

  // --- PL5xxx context input conversion ---
  PL5001: 'context must be a JSON object keyed by parameter name or an array in parameter order',
  PL5002: 'missing value (parameter or record field)',
  PL5003: 'unexpected key (not a parameter or declared field)',
  PL5004: 'wrong JSON type for the expected type',
  PL5005: 'number is not an integer in the safe range',
  PL5006: 'unknown enum variant',
  PL5007: 'wrong number of positional arguments',
  PL5008: 'value nested deeper than 64 levels of lists and records',

  // --- PL6xxx locale and entry point ---
  PL6001: 'unsupported locale',
  PL6002: 'function not found in the module',
  PL6003: 'module header keyword belongs to another locale than the one requested',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
