export { check, type CheckResult } from './check.js';
export type { CheckedModule, EnumInfo, RecordInfo, Resolution, RuleInfo } from './checked-module.js';
export { typeToString, type ValueType } from './types.js';
export { MAX_WITHIN_MINUTES, MAX_WORKFLOW_STEPS } from './workflow-checker.js';
