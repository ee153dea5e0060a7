export { BUILTIN_NAMES, isBuiltinName, type BuiltinName } from './builtin-names.js';
export { BUILTIN_HELPERS, BUILTINS } from './builtin-table.js';
export { checkBuiltinCall } from './check-builtin-call.js';
