import { ClientError } from '../errors/index.js';
import type { AnomalyStatus } from './anomaly-enums.js';

/** Stable codes of anomaly triage (`ERR_ANOMALY_*`). */
export const AnomalyErrorCode = {
  /** 400: the request body or a query parameter is not what the endpoint takes. */
  REQUEST_INVALID: 'ERR_ANOMALY_REQUEST_INVALID',
  /** 404: the tenant has no anomaly with that id. */
  NOT_FOUND: 'ERR_ANOMALY_NOT_FOUND',
  /** 409: the change is not permitted from the anomaly's current status. */
  TRANSITION_NOT_PERMITTED: 'ERR_ANOMALY_TRANSITION_NOT_PERMITTED',
  /** 503: the verification job could not be queued; the status is back to OPEN. */
  VERIFICATION_UNAVAILABLE: 'ERR_ANOMALY_VERIFICATION_UNAVAILABLE',
  /** 503: concurrent changes kept winning the race for the next status. */
  CONTENDED: 'ERR_ANOMALY_CONTENDED',
} as const;

/** A refusal of anomaly triage that the client sees as it is. */
export class AnomalyError extends ClientError {
  override readonly name: string = 'AnomalyError';
}

export function anomalyNotFound(id: string): AnomalyError {
  return new AnomalyError(404, AnomalyErrorCode.NOT_FOUND, `no anomaly \`${id.slice(0, 128)}\` exists for this tenant`);
}

/** 409 naming the current status, and what may be asked of it instead. */
export function transitionNotPermitted(current: AnomalyStatus, wanted: string, allowed: readonly string[]): AnomalyError {
  const instead =
    allowed.length === 0
      ? 'its status cannot change until its verification job finishes'
      : `from ${current} only ${allowed.join(' or ')} can be requested`;
  return new AnomalyError(409, AnomalyErrorCode.TRANSITION_NOT_PERMITTED, `the anomaly is ${current}: ${wanted} is not permitted (${instead})`);
}

/** 409 for a verification of an anomaly that is not OPEN. */
export function verificationNotPermitted(current: AnomalyStatus): AnomalyError {
  return new AnomalyError(
    409,
    AnomalyErrorCode.TRANSITION_NOT_PERMITTED,
    `the anomaly is ${current}: only an OPEN anomaly can be verified${current === 'VERIFYING' ? ' (a verification is already running)' : ''}`,
  );
}
