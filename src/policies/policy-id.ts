import { isName } from '../kernel/index.js';

/**
 * Ids are derived, not stored: a policy is `<module>.<function>@<version>` and a module version
 * `<module>@<version>` (version 0 is the built-in module). Module and function names are
 * identifiers joined by dots, so the last `@` and the last `.` before it split an id unambiguously,
 * and every process answers the same id for the same policy.
 */
export function versionId(policyModule: string, version: number): string {
  return `${policyModule}@${version}`;
}

export function policyId(policyModule: string, policyFunction: string, version: number): string {
  return `${policyModule}.${policyFunction}@${version}`;
}

export interface ParsedPolicyId {
  policyModule: string;
  policyFunction: string;
  version: number;
}

/** Null for anything that is not a well-formed policy id. */
export function parsePolicyId(id: string): ParsedPolicyId | null {
  const at = id.lastIndexOf('@');
  if (at < 0) return null;
  const versionText = id.slice(at + 1);
  if (!/^(0|[1-9]\d{0,15})$/.test(versionText)) return null;
  const version = Number(versionText);
  if (!Number.isSafeInteger(version)) return null;
  const name = id.slice(0, at);
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return null;
  const policyModule = name.slice(0, dot);
  const policyFunction = name.slice(dot + 1);
  // No policy has a name past the rule, so such an id names none (and never reaches the store).
  if (!isName(policyModule) || !isName(policyFunction)) return null;
  return { policyModule, policyFunction, version };
}
