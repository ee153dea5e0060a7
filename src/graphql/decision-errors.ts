import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { EvaluationFailure } from '../engine/index.js';
import { DependencyUnavailableError } from '../errors/index.js';
import { EvaluationUnavailableError } from '../evaluation/index.js';
import { isStoreUnreachable } from '../store/index.js';
import { GraphqlErrorCode } from './graphql-error-codes.js';

/** Where a failed decision came from, for the error's extensions. */
export interface DecisionSite {
  policyModule: string;
  policyFunction: string;
}

/** The parts of a logger the resolvers use (pino's signature). */
export interface ErrorLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * A failed evaluation as a field error: the engine's message, and the diagnostic code (`PL3004`
 * for `Fail with`, …) as `extensions.code`, so clients branch on codes, not prose.
 */
export function decisionFailureError(result: EvaluationFailure, site: DecisionSite): GraphQLError {
  const diagnostic = result.diagnostics[0];
  const extensions: Record<string, unknown> = {
    code: diagnostic?.code ?? result.code,
    policyModule: site.policyModule,
    policyFunction: site.policyFunction,
  };
  if (diagnostic?.span) extensions.policyLocation = { line: diagnostic.span.line, column: diagnostic.span.column };
  const message = diagnostic?.message ?? result.error;
  return new GraphQLError(message, { extensions });
}

/** A value the rule returned that is not a record: the schema's object types cannot show it. */
export function decisionShapeError(site: DecisionSite, value: unknown): GraphQLError {
  const shape = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
  return new GraphQLError(`${site.policyModule}.${site.policyFunction} returned ${shape}, not a record`, {
    extensions: { code: GraphqlErrorCode.RESULT_INVALID, ...site },
  });
}

/**
 * A rejection of a dependency. Unavailability is the client's to know (retry later); anything
 * else is a fault whose details stay in the log under a reference id the client gets.
 */
export function dependencyError(error: unknown, log: ErrorLog, what: string): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof EvaluationUnavailableError) {
    // The public reason only: the message may name Redis's address or a cause meant for the log.
    const message = `policy evaluation is unavailable: ${error.publicReason}; retry later`;
    return new GraphQLError(message, { extensions: { code: GraphqlErrorCode.EVALUATION_UNAVAILABLE } });
  }
  if (error instanceof DependencyUnavailableError) {
    return new GraphQLError(error.message, { extensions: { code: GraphqlErrorCode.SERVICE_UNAVAILABLE } });
  }
  if (isStoreUnreachable(error)) {
    log.warn({ reason: (error as Error).message }, `graphql: ${what}: the store did not answer`);
    return new GraphQLError('the store is not answering; retry later', { extensions: { code: GraphqlErrorCode.SERVICE_UNAVAILABLE } });
  }
  return internalError(error, log, what);
}

export function internalError(error: unknown, log: ErrorLog, what: string): GraphQLError {
  const reference = randomUUID();
  log.error({ err: error, ref: reference }, `graphql: ${what} failed`);
  return new GraphQLError(`internal error; reference ${reference}`, { extensions: { code: GraphqlErrorCode.INTERNAL_UNEXPECTED } });
}
