/** PL3xxx: failures while a rule runs. */
import { defineDiagnostic } from '../define-diagnostic.js';

export const DivisionByZero = defineDiagnostic('PL3001', 'division by zero', () => ({
  message: 'division by zero',
  help: 'check that the divisor is not 0 before dividing',
}));

export const ModuloByZero = defineDiagnostic('PL3002', 'modulo by zero', () => ({
  message: 'modulo by zero',
  help: 'check that the divisor is not 0 before taking the modulo',
}));

export const IntegerOverflow = defineDiagnostic('PL3003', 'integer result outside the safe range ±(2^53−1)', () => ({
  message: 'integer result is outside the safe range ±(2^53−1)',
  help: 'compute with `Float` values if an approximate result is enough',
}));

/** The message is the rule's own text; an empty text still gets one, so the error never reads as a bare code. */
export const RuleFailed = defineDiagnostic('PL3004', "`Fail with` raised by the rule (message is the rule's text)", (text: string) => ({
  message: text === '' ? 'the rule failed with an empty message' : text,
}));

/** `what` names the value, e.g. "numeric result". */
export const NotFinite = defineDiagnostic('PL3005', 'numeric result is not a finite number (e.g. sqrt of a negative number)', (what: string) => ({
  message: `${what} is not a finite number`,
  help: 'check the values first, e.g. that the argument of `sqrt` is not negative',
}));

export const InvalidBuiltinArgument = defineDiagnostic('PL3006', 'invalid argument to a built-in function', {
  roundDigits: (maxDigits: number, digits: number) => ({
    message: `\`round\` takes 0 to ${maxDigits} decimal digits, got \`${digits}\``,
    help: `pass a number of digits from 0 to ${maxDigits}`,
  }),
});
