export { check, type CheckResult } from './check.js';
export type { CheckedModule, EnumInfo, RecordInfo, Resolution, RuleInfo } from './checked-module.js';
export { BUILTIN_NAMES, isBuiltinName, type BuiltinName } from './builtins.js';
export { typeToString, type ValueType } from './types.js';
