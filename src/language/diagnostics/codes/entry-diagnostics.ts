/** PL6xxx: the locale a source is read in, and the function an evaluation starts from. */
import { defineDiagnostic } from '../define-diagnostic.js';
import { didYouMean } from '../suggest-name.js';

/** Each entry point words the refusal as it always has; `supported` lists the locale tags. */
export const UnsupportedLocale = defineDiagnostic('PL6001', 'unsupported locale', {
  parse: (tag: string, supported: readonly string[]) => ({ message: `unsupported locale \`${tag}\`; supported: ${supported.join(', ')}` }),
  compile: (tag: string, supported: readonly string[]) => ({
    message: `unsupported locale \`${tag}\`; supported locales are ${supported.map((l) => `\`${l}\``).join(', ')} (also \`en\`, \`zh\`, \`de\`, in any case, with \`-\` or \`_\`)`,
  }),
  command: (tag: string, supported: readonly string[]) => ({ message: `unsupported locale \`${tag}\`; supported locales: ${supported.join(', ')}` }),
});

export const FunctionNotFound = defineDiagnostic('PL6002', 'function not found in the module', (name: string, module: string, functions: Iterable<string>) => ({
  message: `function \`${name}\` not found in module \`${module}\`${didYouMean(name, functions)}`,
}));

/** `module` is the requested locale's own module keyword. */
export const HeaderOfOtherLocale = defineDiagnostic(
  'PL6003',
  'module header keyword belongs to another locale than the one requested',
  (keyword: string, other: string, requested: string, module: string) => ({
    message: `module header keyword \`${keyword}\` belongs to ${other}, not to the requested locale ${requested}`,
    help: `parse the source as ${other}, or write the header as \`${module}\``,
  }),
);
