export * from './codes/index.js';
export type { DiagnosticDefinition, Wording } from './define-diagnostic.js';
export { describeDiagnostic, placeDiagnostic, type Diagnostic, type Severity } from './diagnostic.js';
export { didYouMean, suggestName } from './suggest-name.js';
