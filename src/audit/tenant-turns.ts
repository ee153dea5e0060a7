export interface TenantTurns {
  /** Resolves when the tenant may start (at most `perTenant` at once); call the release once done. */
  take(tenantId: string): Promise<() => void>;
}

/**
 * At most `perTenant` pieces of work per tenant at once, the others waiting in arrival order: a
 * tenant sending many requests at once shares the event loop with others as if it sent a few.
 */
export function createTenantTurns(perTenant: number): TenantTurns {
  if (!Number.isInteger(perTenant) || perTenant < 1) throw new RangeError(`perTenant must be a positive integer, got ${perTenant}`);
  const tenants = new Map<string, { running: number; waiting: Array<() => void> }>();

  function releaser(tenantId: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const state = tenants.get(tenantId)!;
      const next = state.waiting.shift();
      // The turn passes straight to the next in line; the count changes only when nobody waits.
      if (next !== undefined) next();
      else if (--state.running === 0) tenants.delete(tenantId);
    };
  }

  return {
    async take(tenantId) {
      let state = tenants.get(tenantId);
      if (state === undefined) {
        state = { running: 0, waiting: [] };
        tenants.set(tenantId, state);
      }
      if (state.running < perTenant) state.running += 1;
      else await new Promise<void>((resolve) => state.waiting.push(resolve));
      return releaser(tenantId);
    },
  };
}
