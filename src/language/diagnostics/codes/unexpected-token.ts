/**
 * PL1006: a token the grammar did not expect. One code for every such place; each situation says
 * what was expected, with keywords spelled in the source's locale. `found` is the parser's
 * description of the token (`` `x` ``, `the end of the line`, …).
 */
import { defineDiagnostic } from '../define-diagnostic.js';

const didYouMean = (guess: string): string => `did you mean \`${guess}\`?`;

export const UnexpectedToken = defineDiagnostic('PL1006', 'unexpected token (expected something else)', {
  expected: (expected: string, found: string) => ({ message: `expected ${expected}, found ${found}` }),
  textAfterColon: (colon: string, found: string) => ({
    message: `expected the end of the line after \`${colon}\`, found ${found}`,
    help: 'a block starts on the next line, indented by 2 spaces',
  }),
  /** `starters` lists the statement keywords; `guess` is the one the author likely meant. */
  statementExpected: (found: string, starters: string, guess: string | null) => ({
    message: `expected a statement, found ${found}`,
    help: guess === null ? `a statement starts with one of ${starters}` : didYouMean(guess),
  }),
  /** `isStatement`: the token starts a statement, which belongs in a rule. */
  declarationExpected: (expected: string, found: string, isStatement: boolean, guess: string | null) => ({
    message: `expected ${expected}, found ${found}`,
    help: isStatement ? 'statements belong inside a rule, indented by 2 spaces' : guess === null ? `a declaration starts with ${expected}` : didYouMean(guess),
  }),
  withoutIf: (word: string, ifWord: string) => ({
    message: `\`${word}\` without a matching \`${ifWord}\``,
    help: `indent it like the \`${ifWord}\` it belongs to`,
  }),
  whenOutsideMatch: (word: string, match: string) => ({
    message: `\`${word}\` outside a \`${match}\` block`,
    help: `write the cases in the block of a \`${match}\`, 2 spaces deeper`,
  }),
  declarationInRule: (word: string) => ({
    message: `declarations cannot be inside a rule: \`${word}\` must start at the beginning of a line`,
    help: 'remove the indentation before it',
  }),
  emptyMatch: (match: string, when: string) => ({
    message: `a \`${match}\` needs at least one \`${when}\` case`,
    help: `add a \`${when}\` case, indented 2 spaces deeper than the \`${match}\``,
  }),
  caseAfterElse: (word: string, elseWord: string) => ({
    message: `\`${word}\` after \`${elseWord}\``,
    help: `\`${elseWord}\` comes last`,
  }),
  secondElse: (match: string, elseWord: string) => ({
    message: `a \`${match}\` has at most one \`${elseWord}\``,
    help: `keep one \`${elseWord}\` and remove the other`,
  }),
  caseExpected: (when: string, elseWord: string, match: string, found: string) => ({
    message: `expected \`${when}\` or \`${elseWord}\`, found ${found}`,
    help: `the lines of a \`${match}\` block are its cases`,
  }),
  stepExpected: (step: string, found: string) => ({
    message: `expected \`${step}\`, found ${found}`,
    help: 'a workflow holds only steps, one per line',
  }),
});
