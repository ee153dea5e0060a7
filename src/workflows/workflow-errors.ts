import { ClientError } from '../errors/index.js';

/** Stable codes of workflows (`ERR_WORKFLOW_*`). */
export const WorkflowErrorCode = {
  /** 400: the request body or a query parameter is not what the endpoint takes. */
  REQUEST_INVALID: 'ERR_WORKFLOW_REQUEST_INVALID',
  /** 403: the workflow belongs to another tenant. */
  OTHER_TENANT: 'ERR_WORKFLOW_OTHER_TENANT',
  /** 404: no such workflow, or the module version declares no workflow of that name. */
  NOT_FOUND: 'ERR_WORKFLOW_NOT_FOUND',
  /** 409: the workflow is not in a state that takes this (a signal it does not await, a cancel after its end). */
  STATE_CONFLICT: 'ERR_WORKFLOW_STATE_CONFLICT',
  /**
   * 422: the module version does not compile any more (it did when it was deployed; a check added
   * since refuses it); 503: the engine could not compile it just now (retry later).
   */
  DEFINITION_UNAVAILABLE: 'ERR_WORKFLOW_DEFINITION_UNAVAILABLE',
  /** 413: the start's `context` is larger than WORKFLOW_CONTEXT_MAX_BYTES as JSON. */
  CONTEXT_TOO_LARGE: 'ERR_WORKFLOW_CONTEXT_TOO_LARGE',
  /** 409: the tenant has WORKFLOW_TENANT_MAX_UNFINISHED workflows that have not ended. */
  UNFINISHED_LIMIT: 'ERR_WORKFLOW_UNFINISHED_LIMIT',
  /** 409: the tenant's workflows hold WORKFLOW_TENANT_MAX_STORED_BYTES (contexts and events). */
  STORAGE_LIMIT: 'ERR_WORKFLOW_STORAGE_LIMIT',
} as const;

/** A refusal of the workflow endpoints that the client sees as it is. */
export class WorkflowError extends ClientError {
  override readonly name: string = 'WorkflowError';
}
