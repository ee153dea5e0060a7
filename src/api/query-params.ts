import { ApiError } from './api-error.js';
import type { AppContext } from './app-types.js';
import { ApiErrorCode } from './error-codes.js';
import { parseIsoTimestamp } from './iso-timestamp.js';

function invalid(message: string): ApiError {
  return new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, message);
}

/** The single value of a query parameter; a repeated parameter is ambiguous and refused. */
export function queryValue(ctx: AppContext, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw invalid(`query parameter \`${name}\` must be given once`);
  return value;
}

/** `true` or `false`; no parameter is `false`. */
export function booleanParam(ctx: AppContext, name: string): boolean {
  const value = queryValue(ctx, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalid(`query parameter \`${name}\` must be \`true\` or \`false\` (got \`${value}\`)`);
}

export interface IntegerParam {
  min: number;
  max: number;
  default?: number;
}

export function integerParam(ctx: AppContext, name: string, spec: IntegerParam & { default: number }): number;
export function integerParam(ctx: AppContext, name: string, spec: IntegerParam): number | undefined;
export function integerParam(ctx: AppContext, name: string, spec: IntegerParam): number | undefined {
  const text = queryValue(ctx, name);
  if (text === undefined) return spec.default;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
    throw invalid(`query parameter \`${name}\` must be a whole number between ${spec.min} and ${spec.max} (got \`${text}\`)`);
  }
  return value;
}

function requiredTimestamp(ctx: AppContext, name: string): string {
  const text = queryValue(ctx, name);
  if (text === undefined || text === '') {
    throw invalid(`query parameter \`${name}\` is required (an ISO 8601 date-time such as 2026-01-31T09:00:00Z)`);
  }
  if (parseIsoTimestamp(text, 'floor') === null) {
    throw invalid(
      `query parameter \`${name}\` must be an ISO 8601 date-time with a time zone such as 2026-01-31T09:00:00Z (got \`${text}\`)`,
    );
  }
  return text;
}

/** Two required ISO 8601 date-times bounding an inclusive window, normalised to the stored form. */
export function timeRangeParams(ctx: AppContext, startName: string, endName: string): { from: string; to: string } {
  const start = requiredTimestamp(ctx, startName);
  const end = requiredTimestamp(ctx, endName);
  const to = parseIsoTimestamp(end, 'floor')!;
  if (parseIsoTimestamp(start, 'floor')! > to) {
    throw invalid(`query parameter \`${startName}\` must not be after \`${endName}\``);
  }
  return { from: parseIsoTimestamp(start, 'ceil')!, to };
}
