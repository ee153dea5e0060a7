import { z } from 'zod';
import { ANOMALY_SEVERITIES, ANOMALY_STATUSES, ANOMALY_TYPES, DETECTION_SETTING_NAMES, ROLLUP_STEPS } from '../../anomalies/index.js';
import { POLICY_STATUSES, ROLLOUT_MODES, ROLLOUT_STATUSES } from '../../policies/index.js';
import { WORKFLOW_STATUSES } from '../../workflows/index.js';

/**
 * The shapes of the service's answers, for the OpenAPI document. Request bodies are not here: the
 * document uses the schemas that validate them. Tests parse real answers with these.
 */
const instant = z.string().describe('ISO 8601 date-time');
const json = z.record(z.string(), z.unknown());

export const errorEnvelope = z
  .object({ result: z.null(), error: z.string(), executionTimeMs: z.number(), code: z.string() })
  .describe('Every error: `code` is stable, `error` says what to do');

export const span = z.object({ start: z.number(), end: z.number(), line: z.number(), column: z.number(), endLine: z.number(), endColumn: z.number() });
export const diagnostic = z.object({
  code: z.string().describe('PL1xxx syntax, PL2xxx types, PL3xxx runtime, PL4xxx limits, PL5xxx input, PL6xxx locale and entry'),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
  span: span.nullable(),
  help: z.string().optional(),
});

export const evaluationAnswer = z.object({
  result: z.unknown().describe('The rule\'s result as JSON; null when the evaluation failed'),
  error: z.string().nullable().describe('`<code> <message> at <line>:<column>` of the first error, or null'),
  executionTimeMs: z.number(),
  code: z.string().optional().describe('The failure\'s code (PL… or ERR_EVALUATION_…)'),
  diagnostics: z.array(diagnostic),
  trace: z.array(json).optional().describe('With ?trace=true: the decision trace'),
});
export const storedEvaluationAnswer = evaluationAnswer.extend({
  policyModule: z.string(),
  policyFunction: z.string(),
  version: z.number().int(),
  versionId: z.string(),
});
/** The receipt of an item's or a decision's audit record; both null when nothing was recorded for it. */
export const receiptFields = z.object({
  auditRecordId: z.string().nullable().describe('The id of the item\'s audit record, stored before the answer; null for an item refused before it was evaluated'),
  auditContentHash: z.string().nullable().describe('Lowercase hex SHA-256 of the record\'s canonical content; null as auditRecordId'),
});
export const batchAnswer = z.object({ results: z.array(evaluationAnswer.extend(receiptFields.shape)).describe('One per item, in order; each fails on its own') });

export const auditRecord = z.object({
  id: z.string(),
  seq: z.number().int().describe('Position in the tenant\'s chain, from 1'),
  eventType: z.string(),
  policyModule: z.string().nullable(),
  policyFunction: z.string().nullable(),
  actorId: z.string(),
  occurredAt: instant,
  payload: json,
  hash: z.string().describe('SHA-256 of the record\'s canonical content'),
  previousHash: z.string(),
});
/** One record found by id: as listed once linked; before that, stored with no place in the chain yet. */
export const foundAuditRecord = auditRecord.extend({
  seq: z.number().int().nullable().describe('Position in the tenant\'s chain, from 1; null until linked'),
  hash: z.string().nullable().describe('SHA-256 of the record\'s canonical content with its seq and previousHash; null until linked'),
  previousHash: z.string().nullable().describe('The hash of the record before it in the chain; null until linked'),
  linked: z.boolean().describe('Whether the record has its place in the chain yet'),
  contentHash: z.string().describe('Lowercase hex SHA-256 of the canonical content (id, eventType, policyModule, policyFunction, actorId, occurredAt, payload), computed from the record as read: what the answer\'s receipt carries'),
});
export const chainVerification = z.object({
  valid: z.boolean(),
  checked: z.number().int(),
  headSeq: z.number().int(),
  headHash: z.string().nullable(),
  firstInvalidSeq: z.number().int().nullable(),
  reason: z.string().nullable(),
  unlinked: z.number().int().describe('Records stored but not yet linked into the chain'),
  oldestUnlinkedAgeMs: z.number().nullable().describe('How long the oldest of them has waited, in ms; null when there is none'),
});

export const anomaly = z.object({
  id: z.string(),
  type: z.enum(ANOMALY_TYPES),
  policyModule: z.string(),
  policyFunction: z.string(),
  versionId: z.string(),
  detectedAt: instant,
  status: z.enum(ANOMALY_STATUSES),
  severity: z.enum(ANOMALY_SEVERITIES),
  summary: z.string(),
});
export const anomalyDetail = anomaly.extend({ metrics: json, recommendedActions: z.array(z.string()) }).passthrough();
export const anomalyPage = z.object({
  content: z.array(anomaly),
  totalElements: z.number().int(),
  totalPages: z.number().int(),
  page: z.number().int().describe('zero-based'),
  size: z.number().int(),
});

const settingValues = z.object(Object.fromEntries(DETECTION_SETTING_NAMES.map((name) => [name, z.number()])));
export const anomalySettings = z.object({ defaults: settingValues, overrides: settingValues.partial(), effective: settingValues, bounds: json });

/** Sums of evaluations; the rates are null where there were none. */
const rollupFigures = {
  count: z.number().int().describe('Evaluations'),
  failures: z.number().int().describe('Evaluations that failed'),
  failureRate: z.number().nullable().describe('failures ÷ count; null when count is 0'),
  meanMs: z.number().nullable().describe('Mean execution time in ms (sum of times ÷ count); null when count is 0'),
  maxMs: z.number().nullable().describe('Longest execution time in ms; null when count is 0'),
};
export const rollupSeries = z.object({
  policyModule: z.string(),
  policyFunction: z.string(),
  step: z.enum(ROLLUP_STEPS),
  from: instant.describe('Start of the first point: the window widened to whole steps'),
  to: instant.describe('End of the last point (exclusive)'),
  series: z
    .array(
      z.object({
        version: z.number().int(),
        versionId: z.string().describe('`<module>@<version>`'),
        total: z.object(rollupFigures).describe('The whole window'),
        points: z.array(z.object({ at: instant.describe('Start of the step (UTC)'), ...rollupFigures })).describe('One per step of the window, empty steps included'),
      }),
    )
    .describe('One per version evaluated in the window (or the named version), ascending'),
});

export const workflowEvent = z.object({ sequence: z.number().int(), workflowId: z.string(), eventType: z.string(), payload: json, occurredAt: instant });
/** What starting a workflow answers; its state is read with GET /api/v1/workflows/{workflowId}. */
export const workflowStarted = z.object({ workflowId: z.string() });
export const workflow = z.object({
  workflowId: z.string(),
  policyModule: z.string(),
  version: z.number().int(),
  workflow: z.string(),
  status: z.string().describe('RUNNING, WAITING, COMPENSATING, COMPLETED, FAILED, CANCELLED'),
  currentStep: z.string().nullable(),
  steps: z.array(json),
  finalResult: z.boolean().nullable(),
  error: z.string().nullable(),
  startedAt: instant,
});

const signature = z.object({ name: z.string(), params: z.array(z.object({ name: z.string(), type: z.string() })), returnType: z.string() });
export const policy = z.object({
  id: z.string(),
  policyModule: z.string(),
  policyFunction: z.string(),
  version: z.number().int(),
  versionId: z.string(),
  status: z.enum(POLICY_STATUSES),
  builtin: z.boolean(),
  locale: z.string(),
  createdAt: instant,
  updatedAt: instant,
});
/** One policy read by its id: with its version's source. */
export const policyDetail = policy.extend({ source: z.string().describe("the version's source (every rule of the version shares it)") });
/** The interface's page envelope around `item`. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    content: z.array(item),
    totalElements: z.number().int(),
    totalPages: z.number().int(),
    page: z.number().int().describe('zero-based'),
    size: z.number().int(),
  });
export const policyPage = page(policy);
/** A workflow as the list shows it: its summary, without context or steps. */
export const workflowListItem = z.object({
  workflowId: z.string(),
  policyModule: z.string(),
  workflow: z.string(),
  version: z.number().int(),
  status: z.enum(WORKFLOW_STATUSES),
  finalResult: z.boolean().nullable().describe('COMPLETED: true when approved, false when a step or signal said no; null otherwise'),
  currentStep: z.string().nullable(),
  startedAt: instant,
  finishedAt: instant.nullable(),
});
export const workflowPage = page(workflowListItem);
/** One version as the versions list shows it: how many rules, not their signatures. */
const moduleVersionSummary = z.object({
  policyModule: z.string(),
  version: z.number().int(),
  versionId: z.string(),
  status: z.enum(POLICY_STATUSES),
  builtin: z.boolean(),
  locale: z.string(),
  sourceHash: z.string(),
  ruleCount: z.number().int(),
  actorId: z.string().nullable(),
  createdAt: instant,
  updatedAt: instant,
});
/** One version read alone: with its rules' signatures. */
export const moduleVersion = moduleVersionSummary.extend({ functions: z.array(signature) });
export const moduleVersionPage = page(moduleVersionSummary);
const rolloutTerms = {
  mode: z.enum(ROLLOUT_MODES),
  percent: z.number().int().describe('1-100: the share of evaluations copied (shadow) or answered by the new version (canary)'),
  stickyKey: z.string().nullable().describe('the context path whose value picks the version (canary); null: by request'),
  captureContexts: z.boolean().describe('a shadow keeps the contexts of sampled disagreements'),
};
export const deployed = moduleVersion.extend({
  policies: z.array(policy),
  warnings: z.array(diagnostic),
  rollout: z
    .object({ ...rolloutTerms, stableVersion: z.number().int().describe('the version that goes on answering') })
    .nullable()
    .describe('the rollout the deploy started; null for an active deploy'),
});
const shadowSide = z.union([z.object({ ok: z.literal(true), value: z.unknown() }), z.object({ ok: z.literal(false), code: z.string(), error: z.string() })]);
const rolloutVersionStats = z.object({
  version: z.number().int(),
  role: z.enum(['stable', 'rollout']),
  evaluations: z.number().int(),
  failures: z.number().int(),
  failureRate: z.number().nullable(),
  meanTimeMs: z.number().nullable(),
});
const routedStats = z.object({ evaluations: z.number().int(), failures: z.number().int(), failureRate: z.number().nullable(), meanTimeMs: z.number().nullable() });
export const rollout = z.object({
  policyModule: z.string(),
  rollout: z.number().int().describe("the rollout's number in the module"),
  version: z.number().int(),
  versionId: z.string(),
  stableVersion: z.number().int(),
  stableVersionId: z.string(),
  ...rolloutTerms,
  status: z.enum(ROLLOUT_STATUSES),
  reason: z.string().nullable(),
  anomalyId: z.string().nullable().describe('the anomaly that made the guard abort it'),
  startedAt: instant,
  startedBy: z.string(),
  endedAt: instant.nullable(),
  endedBy: z.string().nullable(),
  shadow: z
    .object({
      counts: z.object({ compared: z.number().int(), agreed: z.number().int(), disagreed: z.number().int(), errors: z.number().int(), skipped: z.number().int() }),
      disagreements: z.array(
        z.object({
          at: instant,
          policyFunction: z.string(),
          stable: shadowSide.optional().describe('MEMBER and above'),
          shadow: shadowSide.optional().describe('MEMBER and above'),
          contextHash: z.string().optional().describe("SHA-256 of the context's canonical JSON; MEMBER and above"),
          context: z.unknown().optional().describe('only when the rollout captures contexts; ADMIN'),
        }),
      ),
    })
    .nullable()
    .describe('shadow rollouts: how the copies compared, and the newest disagreements; null for a canary'),
  versions: z.array(rolloutVersionStats).describe('the stable and the rolled-out version since the rollout started'),
  routed: z
    .object({ stable: routedStats, rollout: routedStats })
    .nullable()
    .describe("canaries: the answers the route chose by side, what the guard compares (no pinned evaluations, no failures of the caller's context); null for a shadow"),
});
export const versionSource = z.object({
  policyModule: z.string(),
  version: z.number().int(),
  locale: z.string().describe('the locale `source` is written in'),
  source: z.string(),
});
const checkPosition = z.object({ line: z.number().int().describe('from 1'), column: z.number().int().describe('from 1, in UTF-16 code units'), offset: z.number().int().describe('UTF-16 index into the source') });
const checkParameter = z.object({ name: z.string(), type: z.string().describe('as written in en-US, e.g. `List of Applicant`') });
const caseResult = z.object({
  name: z.string(),
  rule: z.string(),
  passed: z.boolean(),
  expected: z.unknown().describe('`{result}`, `{fields}` or `{error: <code>}`'),
  actual: z.unknown().describe('`{result}` or `{error: <code>, message}`'),
  reason: z.string().optional().describe('why the case failed; absent when it passed'),
});
/** `policy check --json`'s report, plus the cases and the print a check asked for. */
export const moduleCheck = z.object({
  ok: z.boolean().describe('no error diagnostic, and every case passed when `tests` were given'),
  locale: z.string().describe('the locale the source was read in: given, or named by its module header'),
  module: z.string().nullable().describe('the module\'s name; null when it did not compile'),
  functions: z.array(z.object({ name: z.string(), parameters: z.array(checkParameter), returns: z.string() })),
  workflows: z.array(z.object({ name: z.string(), parameters: z.array(checkParameter) })),
  diagnostics: z.array(
    z.object({
      code: diagnostic.shape.code,
      severity: diagnostic.shape.severity,
      message: z.string(),
      help: z.string().optional(),
      span: z.object({ start: checkPosition, end: checkPosition.describe('just past the last character') }).nullable().describe('null only for a problem with no place in the source'),
    }),
  ),
  tests: z.object({ passed: z.number().int(), failed: z.number().int(), cases: z.array(caseResult) }).optional().describe('when `tests` were given and the module compiled'),
  formatted: z.object({ locale: z.string(), source: z.string() }).optional().describe('when `showIn` was given and the module compiled: the module printed in that locale'),
});
export const rolledBack = z.object({ policyModule: z.string(), version: z.number().int(), versionId: z.string(), previousVersion: z.number().int().nullable(), activatedAt: instant });

export const health = z.object({ status: z.literal('ok') });
export const readiness = z.object({ status: z.string(), checks: z.object({ store: z.enum(['ok', 'failed']), redis: z.enum(['ok', 'failed']) }) }).passthrough();
export const version = z.object({ service: z.string(), version: z.string(), api: z.array(z.string()), node: z.string() });
