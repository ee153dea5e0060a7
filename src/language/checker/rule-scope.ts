/**
 * State shared while checking one module (`ModuleState`) and one rule (`RuleScope`).
 *
 * Blocks do not open scopes (docs/language.md §4): `names` grows in source order for the whole rule,
 * except that a loop variable is removed after its loop. Separately, `assigned` tracks which slots
 * certainly hold a value on every path to the current point, so a variable bound in only one
 * branch cannot be read after it (PL2024). `assigned === null` means the point is unreachable.
 */
import type { CallExpr } from '../ast/nodes.js';
import type { Resolution } from './checked-module.js';
import type { Declarations, DeclaredRule } from './declarations.js';
import type { Reporter } from './reporter.js';
import type { HoleType, Type } from './types.js';

export interface CallEdge {
  readonly from: string;
  readonly to: string;
  readonly call: CallExpr;
}

export class ModuleState {
  readonly types = new Map<number, Type>();
  readonly resolutions = new Map<number, Resolution>();
  readonly callEdges: CallEdge[] = [];
  readonly holes: HoleType[] = [];

  constructor(
    readonly declarations: Declarations,
    readonly reporter: Reporter,
  ) {}
}

export interface Variable {
  readonly slot: number;
  readonly type: Type;
}

export class RuleScope {
  readonly names = new Map<string, Variable>();
  readonly slotTypes: Type[] = [];
  readonly slotNames: string[] = [];
  assigned: Set<number> | null = new Set();

  constructor(
    readonly module: ModuleState,
    readonly rule: DeclaredRule,
  ) {}

  get reporter(): Reporter {
    return this.module.reporter;
  }

  get declarations(): Declarations {
    return this.module.declarations;
  }

  bindNew(name: string, type: Type): Variable {
    const variable = { slot: this.slotTypes.length, type };
    this.slotTypes.push(type);
    this.slotNames.push(name);
    this.names.set(name, variable);
    return variable;
  }

  markAssigned(slot: number): void {
    this.assigned?.add(slot);
  }

  isAssigned(slot: number): boolean {
    return this.assigned === null || this.assigned.has(slot);
  }
}

export function copyAssigned(assigned: Set<number> | null): Set<number> | null {
  return assigned === null ? null : new Set(assigned);
}

/** Slots assigned on every one of the given paths; unreachable paths (null) do not constrain. */
export function intersectAssigned(paths: readonly (Set<number> | null)[]): Set<number> | null {
  let result: Set<number> | null = null;
  for (const path of paths) {
    if (path === null) continue;
    if (result === null) {
      result = new Set(path);
    } else {
      for (const slot of result) if (!path.has(slot)) result.delete(slot);
    }
  }
  return result;
}
