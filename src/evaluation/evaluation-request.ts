/**
 * The request bodies of the evaluation endpoints, checked with zod. A structural problem of the
 * envelope is a 400 (EvaluationRequestError); inside a batch, a malformed item fails on its own.
 */
import { z } from 'zod';
import { describeSchemaProblem, jsonTypeName } from '../errors/index.js';
import { hasLoneSurrogate, MAX_NAME_LENGTH, nameSchema } from '../kernel/index.js';
import { contextDepthProblem, DEFAULT_CONTEXT_MAX_DEPTH } from './context-bounds.js';
import { EvaluationErrorCode, EvaluationRequestError } from './evaluation-errors.js';

/** Locale of a request that names none. */
export const DEFAULT_EVALUATION_LOCALE = 'en-US';
/** Longest locale name taken; audit records hold it. */
export const MAX_LOCALE_LENGTH = 64;

/** One evaluation of policy source text sent in the request. */
export interface SourceEvaluationRequest {
  source: string;
  functionName: string;
  /** Object keyed by parameter name, or array in parameter order. */
  context: Record<string, unknown> | unknown[];
  locale: string;
}

/** A reference to a deployed policy (evaluated through a PolicyResolver). */
export interface StoredPolicyRequest {
  policyModule: string;
  policyFunction: string;
  /** Module version; the active one when absent. */
  version?: number;
  context: Record<string, unknown> | unknown[];
}

/** One batch item after validation: what to evaluate, or why this item cannot be. */
export type BatchEntry =
  | { kind: 'source'; request: SourceEvaluationRequest }
  | { kind: 'stored'; request: StoredPolicyRequest }
  | { kind: 'invalid'; code: string; message: string };

// Audit records hold the locale too, so it is well formed like a name (canonical JSON has no form for a lone surrogate).
const locale = z.string().min(1).max(MAX_LOCALE_LENGTH).refine((text) => !hasLoneSurrogate(text));
const context = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);

const sourceFields = {
  source: z.string(),
  functionName: nameSchema,
  context,
  locale: locale.optional(),
};
/** The bodies of the evaluation routes: the parsers below check with them, and the routes declare them. */
export const sourceSchema = z.strictObject(sourceFields);
export const storedSchema = z.strictObject({
  policyModule: nameSchema,
  policyFunction: nameSchema,
  // 0 names the built-in module.
  version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  context,
});
/** The batch envelope, checked first; each item is then judged on its own (parseBatchItem). */
const batchSchema = z.strictObject({ items: z.array(z.unknown()) });
/** The batch body as the routes declare it: each item a source item or a deployed policy's reference. */
export const declaredBatchSchema = batchSchema.extend({ items: z.array(z.union([sourceSchema, storedSchema])) });

/** What each field must be, for messages that name the field and what was sent instead. */
const FIELD_RULES: Record<string, string> = {
  source: 'a string (the policy source text)',
  functionName: `a non-empty string of at most ${MAX_NAME_LENGTH} characters`,
  context: 'an object keyed by parameter name or an array in parameter order',
  locale: `a language tag string of 1 to ${MAX_LOCALE_LENGTH} characters, e.g. \`en-US\``,
  policyModule: `a non-empty string of at most ${MAX_NAME_LENGTH} characters`,
  policyFunction: `a non-empty string of at most ${MAX_NAME_LENGTH} characters`,
  version: 'a whole number of at least 0 (0 is the built-in module)',
  items: 'an array of evaluation items',
};

const SOURCE_FIELD_LIST = '`source`, `functionName`, `context` and `locale` (optional)';
const STORED_FIELD_LIST = '`policyModule`, `policyFunction`, `version` (optional) and `context`';

function describeProblem(error: z.ZodError, input: unknown, where: string, fieldList: string): string {
  return describeSchemaProblem(error, input, { where, fieldList, fieldRules: FIELD_RULES });
}

function withDefaultLocale(data: z.output<typeof sourceSchema>): SourceEvaluationRequest {
  return {
    source: data.source,
    functionName: data.functionName,
    context: data.context,
    locale: data.locale ?? DEFAULT_EVALUATION_LOCALE,
  };
}

/** Bounds every evaluation request is held to before anything is queued. */
export interface RequestLimits {
  /** CONTEXT_MAX_DEPTH. */
  contextMaxDepth: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = { contextMaxDepth: DEFAULT_CONTEXT_MAX_DEPTH };

/** The body checked against `schema`, or a 400 naming the first problem (and a too deep context). */
function parseBody<T extends { context: unknown }>(schema: z.ZodType<T>, body: unknown, fieldList: string, limits: RequestLimits): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new EvaluationRequestError(EvaluationErrorCode.REQUEST_INVALID, describeProblem(parsed.error, body, 'the request body', fieldList));
  }
  const tooDeep = contextDepthProblem(parsed.data.context, limits.contextMaxDepth);
  if (tooDeep !== null) throw new EvaluationRequestError(EvaluationErrorCode.CONTEXT_TOO_DEEP, tooDeep);
  return parsed.data;
}

/** The body of POST /api/v1/policies/evaluate-source; throws a 400 naming the first problem. */
export function parseSourceEvaluationBody(body: unknown, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): SourceEvaluationRequest {
  return withDefaultLocale(parseBody(sourceSchema, body, SOURCE_FIELD_LIST, limits));
}

/** The body of POST /api/v1/policies/evaluate (a deployed policy); throws a 400 naming the first problem. */
export function parseStoredEvaluationBody(body: unknown, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): StoredPolicyRequest {
  const { version, ...rest } = parseBody(storedSchema, body, STORED_FIELD_LIST, limits);
  return version === undefined ? rest : { ...rest, version };
}

function isStoredReference(item: Record<string, unknown>): boolean {
  return !('source' in item) && ('policyModule' in item || 'policyFunction' in item);
}

/** One batch item; never throws: a malformed item becomes an `invalid` entry. */
export function parseBatchItem(item: unknown, index: number, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): BatchEntry {
  const where = `items[${index}]`;
  const invalid = (message: string): BatchEntry => ({ kind: 'invalid', code: EvaluationErrorCode.ITEM_INVALID, message });
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return invalid(`${where} must be a JSON object with ${SOURCE_FIELD_LIST} (got ${jsonTypeName(item)})`);
  }
  const record = item as Record<string, unknown>;
  const stored = isStoredReference(record);
  const parsed = stored ? storedSchema.safeParse(record) : sourceSchema.safeParse(record);
  if (!parsed.success) return invalid(describeProblem(parsed.error, record, where, stored ? STORED_FIELD_LIST : SOURCE_FIELD_LIST));
  const tooDeep = contextDepthProblem(parsed.data.context, limits.contextMaxDepth);
  if (tooDeep !== null) return { kind: 'invalid', code: EvaluationErrorCode.CONTEXT_TOO_DEEP, message: `${where}: ${tooDeep}` };
  if ('source' in parsed.data) return { kind: 'source', request: withDefaultLocale(parsed.data) };
  const { version, ...rest } = parsed.data;
  return { kind: 'stored', request: version === undefined ? rest : { ...rest, version } };
}

/**
 * The body of POST /api/v1/policies/evaluate-source/batch: `{items: [...]}` with 1 to `maxItems`
 * items. The envelope is a 400 when wrong; each item is judged on its own.
 */
export function parseBatchEvaluationBody(body: unknown, maxItems: number, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): BatchEntry[] {
  const parsed = batchSchema.safeParse(body);
  if (!parsed.success) {
    throw new EvaluationRequestError(
      EvaluationErrorCode.REQUEST_INVALID,
      describeProblem(parsed.error, body, 'the request body', '`items` (an array of evaluation items)'),
    );
  }
  const { items } = parsed.data;
  if (items.length === 0 || items.length > maxItems) {
    throw new EvaluationRequestError(
      EvaluationErrorCode.BATCH_SIZE_INVALID,
      `\`items\` must hold 1 to ${maxItems} evaluations (got ${items.length}); split larger batches into several requests`,
    );
  }
  const entries = items.map((item, index) => parseBatchItem(item, index, limits));
  shareRepeatedSources(entries);
  return entries;
}

/**
 * Each item of a batch arrives with its own copy of its source text, and consecutive items mostly
 * carry the same one: they are given the first copy, so the maps keyed by source downstream (the
 * queue's table of distinct sources, the audit's source hashes) hash that text once (the hash is
 * kept on the string), not once per item. Comparing with the previous copy costs one memory compare.
 */
function shareRepeatedSources(entries: readonly BatchEntry[]): void {
  let previous: string | undefined;
  for (const entry of entries) {
    if (entry.kind !== 'source') continue;
    if (entry.request.source === previous) entry.request.source = previous;
    else previous = entry.request.source;
  }
}
