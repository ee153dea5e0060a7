export { check, type CheckResult } from './check.js';
export type { CheckedModule, EnumInfo, RecordInfo, Resolution, RuleInfo } from './checked-module.js';
export { typeToString, type ValueType } from './types.js';
