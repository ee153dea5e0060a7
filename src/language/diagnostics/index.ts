export { DIAGNOSTIC_CODES, type DiagnosticCode } from './codes.js';
export { describeDiagnostic, type Diagnostic, type Severity } from './diagnostic.js';
export { didYouMean, suggestName } from './suggest-name.js';
