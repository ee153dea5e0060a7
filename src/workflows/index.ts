export {
  storedBytesOf,
  type StoredWorkflowEvent,
  type UnfinishedWorkflow,
  type WorkflowEvent,
  type WorkflowListItem,
  type WorkflowRecord,
  type WorkflowRepository,
  type WorkflowUsage,
} from './workflow-store.js';
export { isTerminalEvent, WorkflowEventType, type WorkflowEventTypeValue } from './workflow-events.js';
export { announcedWorkflowRepository } from './announced-appends.js';
export { WorkflowError, WorkflowErrorCode } from './workflow-errors.js';
export { isTerminal, replay, WORKFLOW_STATUSES, type StepState, type StepStatus, type WorkflowState, type WorkflowStatus } from './workflow-replay.js';
export { createWorkflowDefinitions, type WorkflowDefinitions, type WorkflowDefinitionsDeps } from './workflow-definitions.js';
export { createWorkflowRunner, type Advanced, type WorkflowRunner, type WorkflowRunnerDeps, type WorkflowSlice } from './workflow-runner.js';
export type { StepEvaluation } from './workflow-decision.js';
export { createWorkflowResumer, type WorkflowResumer, type WorkflowResumerDeps, type WorkflowSweep } from './workflow-resumer.js';
export {
  createWorkflowService,
  WORKFLOW_EVENTS_PAGE,
  WORKFLOW_PAGE_DEFAULT_SIZE,
  WORKFLOW_PAGE_MAX_PAGE,
  WORKFLOW_PAGE_MAX_SIZE,
  type WorkflowCaller,
  type WorkflowEventView,
  type WorkflowListRequest,
  type WorkflowQuotas,
  type WorkflowService,
  type WorkflowServiceDeps,
  type WorkflowView,
} from './workflow-service.js';
export { evaluateStep } from './step-evaluation.js';
export { signalSchema as workflowSignalBodySchema, startSchema as workflowStartBodySchema } from './workflow-service.js';
export {
  createWorkflowJobQueue,
  startWorkflowWorker,
  WORKFLOW_RUN_JOB_OPTIONS,
  type WorkflowJobQueue,
  type WorkflowRunJobData,
  type WorkflowTurnSize,
  type WorkflowWorker,
} from './queue/workflow-jobs.js';
export { startWorkflowResumeSchedule, type WorkflowResumeSchedule, type WorkflowResumeScheduleOptions } from './queue/workflow-resume-schedule.js';
