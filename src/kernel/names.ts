/**
 * Longest policy module, rule (function) and audit event type name taken anywhere: audit records
 * and rollups hold these names, so every entry point and both store adapters share the bound.
 */
export const MAX_NAME_LENGTH = 256;
