import type { AppContext } from './app-types.js';

/**
 * What a handler reads from the context the router and the route's guard prepared, stated once
 * instead of casting the context in every route.
 */

/** The path parameter `name` as the router matched it; '' when the path has none. */
export function pathValue(ctx: AppContext, name: string): string {
  return (ctx as AppContext & { params?: Record<string, string> }).params?.[name] ?? '';
}

/** The tenant the route's guard admitted (from the tenant header). */
export function tenantOf(ctx: AppContext): string {
  const tenantId = ctx.state.tenantId;
  if (tenantId === undefined) throw new Error(`${ctx.path} reached without a tenant`);
  return tenantId;
}
