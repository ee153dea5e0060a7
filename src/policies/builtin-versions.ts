import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { FunctionSignature } from '../language/index.js';
import type { BuiltinModule } from './builtin-library.js';
import type { PolicyFunctionSignature } from './policy-store.js';

/** A built-in module as version 0 of its name, visible to every tenant. */
export interface BuiltinVersion {
  module: BuiltinModule;
  sourceHash: string;
  functions: PolicyFunctionSignature[];
  /** The file's modification time: the same in every process running the same build. */
  createdAt: string;
}

export type BuiltinVersions = ReadonlyMap<string, BuiltinVersion>;

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function signatures(functions: readonly FunctionSignature[]): PolicyFunctionSignature[] {
  return functions.map((f) => ({ name: f.name, params: f.params.map((p) => ({ name: p.name, type: p.type })), returnType: f.returnType }));
}

export function createBuiltinVersions(modules: readonly BuiltinModule[]): BuiltinVersions {
  return new Map(
    modules.map((module) => [
      module.moduleName,
      { module, sourceHash: sha256(module.source), functions: signatures(module.functions), createdAt: statSync(module.file).mtime.toISOString() },
    ]),
  );
}

/** Version 0 when the service ships a module of that name, else none. */
export function initialVersion(builtins: BuiltinVersions, policyModule: string): 0 | null {
  return builtins.has(policyModule) ? 0 : null;
}
