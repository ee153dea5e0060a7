export { DIAGNOSTIC_CODES, type DiagnosticCode } from './codes.js';
export { describeDiagnostic, type Diagnostic, type Severity } from './diagnostic.js';
export { didYouMean, MAX_SUGGESTED_NAME_LENGTH, suggestName } from './suggest-name.js';
