/**
 * What the checker learns about a module, recorded in maps keyed by node id (the tree itself is
 * never changed). The compiler reads only this and the tree.
 */
import type { EnumDecl, ModuleNode, RecordDecl, RuleDecl, WorkflowDecl } from '../ast/nodes.js';
import type { BuiltinName } from '../builtins/builtin-names.js';
import type { ValueType } from './types.js';

export interface RecordInfo {
  readonly name: string;
  readonly decl: RecordDecl;
  /** In declaration order; a record value stores field i at position i. */
  readonly fields: readonly { readonly name: string; readonly type: ValueType }[];
  readonly fieldIndex: ReadonlyMap<string, number>;
}

export interface EnumInfo {
  readonly name: string;
  readonly decl: EnumDecl;
  /** In declaration order; a variant's value at run time is its index here. */
  readonly variants: readonly string[];
  readonly variantIndex: ReadonlyMap<string, number>;
}

export interface RuleInfo {
  readonly name: string;
  readonly decl: RuleDecl;
  /** Parameters occupy variable slots 0..n-1. */
  readonly params: readonly { readonly name: string; readonly type: ValueType }[];
  readonly returnType: ValueType;
  /** Number of variable slots the rule needs (parameters, `Let` variables, loop variables). */
  readonly slotCount: number;
  /** Name of each slot, for diagnostics and debugging. */
  readonly slotNames: readonly string[];
}

export interface WorkflowInfo {
  readonly name: string;
  readonly decl: WorkflowDecl;
  readonly params: readonly { readonly name: string; readonly type: ValueType }[];
}

/**
 * How a name-like node was resolved:
 * - `Name` → a variable slot of its rule, or an enum variant;
 * - `FieldAccess` → a record field position, or a qualified enum variant;
 * - `Call` → a rule or a built-in function;
 * - `Let`, `ForEach` → the slot they bind;
 * - `VariantPattern` → the variant.
 */
export type Resolution =
  | { readonly kind: 'slot'; readonly slot: number }
  | { readonly kind: 'variant'; readonly enumName: string; readonly index: number }
  | { readonly kind: 'field'; readonly recordName: string; readonly index: number }
  | { readonly kind: 'rule'; readonly name: string }
  | { readonly kind: 'builtin'; readonly name: BuiltinName };

export interface CheckedModule {
  readonly module: ModuleNode;
  /** Dotted module name, e.g. `lending.demo`. */
  readonly moduleName: string;
  /** The type of every expression node, by node id. */
  readonly types: ReadonlyMap<number, ValueType>;
  readonly resolutions: ReadonlyMap<number, Resolution>;
  readonly records: ReadonlyMap<string, RecordInfo>;
  readonly enums: ReadonlyMap<string, EnumInfo>;
  /** In declaration order. */
  readonly rules: ReadonlyMap<string, RuleInfo>;
  readonly workflows: ReadonlyMap<string, WorkflowInfo>;
  /** Rule names ordered so that every rule comes after the rules it calls. */
  readonly callOrder: readonly string[];
  /** The rules each rule calls directly. */
  readonly callees: ReadonlyMap<string, readonly string[]>;
}
