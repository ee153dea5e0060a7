import { z } from 'zod';
import {
  readRollupSeries,
  ROLLUP_SERIES_MAX_VERSIONS,
  ROLLUP_SERIES_MAX_POINTS,
  ROLLUP_STEPS,
  seriesWindow,
  TooManyVersionsError,
  type RollupStep,
} from '../../anomalies/index.js';
import { hasLoneSurrogate, isName, MAX_NAME_LENGTH, nameSchema } from '../../kernel/index.js';
import type { RollupRepository } from '../../rollups/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import * as answers from '../openapi/response-schemas.js';
import { integerParam, queryValue, timeRangeParams } from '../query-params.js';
import { tenantOf } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

/** Where the rollups are read. */
type RollupReader = Pick<RollupRepository, 'scan'>;

export const ROLLUPS_ROUTE = '/api/v1/audit/rollups';
/** The store's own resolution: without `step`, nothing is summed across minutes. */
const ROLLUP_DEFAULT_STEP: RollupStep = 'minute';

const count = (n: number) => n.toLocaleString('en-US');

function invalid(message: string): ApiError {
  return new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, message);
}

function nameParam(ctx: AppContext, name: 'policyModule' | 'policyFunction'): string {
  const value = queryValue(ctx, name);
  const what = name === 'policyModule' ? 'module' : 'rule';
  if (value === undefined || value.length === 0) {
    throw invalid(`query parameter \`${name}\` is required: the ${what} name, 1-${MAX_NAME_LENGTH} characters`);
  }
  if (hasLoneSurrogate(value)) throw invalid(`query parameter \`${name}\` must be well-formed text (no unpaired surrogates)`);
  if (!isName(value)) {
    throw invalid(`query parameter \`${name}\` is ${count(value.length)} characters long: a ${what} name has at most ${MAX_NAME_LENGTH}`);
  }
  return value;
}

function stepParam(ctx: AppContext): RollupStep {
  const step = queryValue(ctx, 'step');
  if (step === undefined) return ROLLUP_DEFAULT_STEP;
  if (!(ROLLUP_STEPS as readonly string[]).includes(step)) {
    throw invalid(`query parameter \`step\` must be one of ${ROLLUP_STEPS.join(', ')} (got \`${step.slice(0, 64)}\`)`);
  }
  return step as RollupStep;
}

const policyName = (what: string) => nameSchema.describe(what);
const rollupQuery = z.object({
  policyModule: policyName('module name'),
  policyFunction: policyName('rule name'),
  version: z.number().int().min(0).optional().describe('only this version (0: the built-in module); default every version evaluated in the window'),
  startTime: z.string().describe('ISO 8601 with a zone; the step holding it is the first point'),
  endTime: z.string().describe('ISO 8601 with a zone; the step holding it is the last point'),
  step: z.enum(ROLLUP_STEPS).optional().describe('UTC minute, hour or day per point (default minute)'),
});

/** A policy function's rollups as series per version (role ADMIN, bearer token, tenant header). */
export const ROLLUP_ROUTES = declareRoutes<RollupReader>([
  {
    method: 'get',
    path: ROLLUPS_ROUTE,
    auth: 'bearer',
    role: 'ADMIN',
    query: rollupQuery,
    doc: {
      tag: 'anomalies',
      summary: 'A policy function\'s evaluations per version over time',
      description: `The per-minute rollups summed into one point per step: count, failures, failure rate, mean and longest time. Every series has a point for every step; a step without evaluations has count 0 and null rates. At most ${ROLLUP_SERIES_MAX_POINTS.toLocaleString('en-US')} points per series and ${ROLLUP_SERIES_MAX_VERSIONS} versions per answer.`,
      success: { status: 200, schema: answers.rollupSeries, description: 'one series per version' },
      errors: {
        400: `a missing or malformed parameter, a start after the end, an unknown step, more than ${ROLLUP_SERIES_MAX_POINTS.toLocaleString('en-US')} points per series, or more than ${ROLLUP_SERIES_MAX_VERSIONS} versions evaluated in the window without \`version\` (ERR_REQUEST_QUERY_INVALID)`,
      },
    },
    handle: async (ctx, rollups) => {
      const policyModule = nameParam(ctx, 'policyModule');
      const policyFunction = nameParam(ctx, 'policyFunction');
      const version = integerParam(ctx, 'version', { min: 0, max: Number.MAX_SAFE_INTEGER });
      const { from, to } = timeRangeParams(ctx, 'startTime', 'endTime');
      const step = stepParam(ctx);
      const window = seriesWindow(from, to, step);
      if (window.points > ROLLUP_SERIES_MAX_POINTS) {
        throw invalid(
          `the window from ${window.from} to ${window.to} takes ${count(window.points)} points at step \`${step}\`, ` +
            `more than ${count(ROLLUP_SERIES_MAX_POINTS)} per series: narrow it or take a coarser \`step\``,
        );
      }
      try {
        ctx.body = await readRollupSeries(rollups, tenantOf(ctx), {
          policyModule,
          policyFunction,
          window,
          ...(version !== undefined ? { version } : {}),
        });
      } catch (error) {
        if (error instanceof TooManyVersionsError) {
          throw invalid(`more than ${error.limit} versions of \`${policyModule.slice(0, 64)}\` \`${policyFunction.slice(0, 64)}\` were evaluated in the window: name one with \`version\``);
        }
        throw error;
      }
    },
  },
]);

/** The rollup routes over the store's rollups. */
export function createRollupRoutes(rollups: RollupReader): RouteGroup {
  return bindRoutes(ROLLUP_ROUTES, rollups);
}
