/** PL6xxx: the locale a source is read in, and the function an evaluation starts from. */
import { defineDiagnostic } from '../define-diagnostic.js';
import { nameHint } from '../suggest-name.js';

/** The other spellings resolveLocale takes for the supported tags. */
const OTHER_SPELLINGS = '(also `en`, `zh`, `de`, in any case, with `-` or `_`)';

/** Which supported locale a source is in shows in its first word, the header keyword. */
const HEADER_HINT = "a module's first word, its header keyword, tells its locale";

/** Each entry point words the refusal as it always has; `supported` lists the locale tags. */
export const UnsupportedLocale = defineDiagnostic('PL6001', 'unsupported locale', {
  parse: (tag: string, supported: readonly string[]) => ({
    message: `unsupported locale \`${tag}\`; supported: ${supported.join(', ')}`,
    help: `name one of them ${OTHER_SPELLINGS}; ${HEADER_HINT}`,
  }),
  compile: (tag: string, supported: readonly string[]) => ({
    message: `unsupported locale \`${tag}\`; supported locales are ${supported.map((l) => `\`${l}\``).join(', ')} ${OTHER_SPELLINGS}`,
    help: `name one of them; ${HEADER_HINT}`,
  }),
  command: (tag: string, supported: readonly string[]) => ({
    message: `unsupported locale \`${tag}\`; supported locales: ${supported.join(', ')}`,
    help: `name one of them ${OTHER_SPELLINGS}; ${HEADER_HINT}`,
  }),
});

export const FunctionNotFound = defineDiagnostic('PL6002', 'function not found in the module', (name: string, module: string, functions: Iterable<string>) => {
  const { hint, help } = nameHint(name, functions, 'name one of its rules');
  return { message: `function \`${name}\` not found in module \`${module}\`${hint}`, help };
});

/** `module` is the requested locale's own module keyword. */
export const HeaderOfOtherLocale = defineDiagnostic(
  'PL6003',
  'module header keyword belongs to another locale than the one requested',
  (keyword: string, other: string, requested: string, module: string) => ({
    message: `module header keyword \`${keyword}\` belongs to ${other}, not to the requested locale ${requested}`,
    help: `parse the source as ${other}, or write the header as \`${module}\``,
  }),
);
