/** Ordered from least to most privileged: a role includes every role before it. */
export const ROLES = ['VIEWER', 'MEMBER', 'ADMIN', 'OWNER'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

/** The highest known role among the names; unknown names are ignored. Null when none is known. */
export function highestRole(names: readonly unknown[]): Role | null {
  let best: Role | null = null;
  for (const name of names) {
    if (isRole(name) && (best === null || roleRank(name) > roleRank(best))) best = name;
  }
  return best;
}

export function roleSatisfies(held: Role | null, required: Role): boolean {
  return held !== null && roleRank(held) >= roleRank(required);
}
