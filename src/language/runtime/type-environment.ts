import type { EnumInfo, RecordInfo } from '../checker/checked-module.js';

/** The declared records and enums that give a value's type its shape, for conversions. */
export interface TypeEnvironment {
  readonly records: ReadonlyMap<string, RecordInfo>;
  readonly enums: ReadonlyMap<string, EnumInfo>;
}
