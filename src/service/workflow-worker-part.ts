import { redisConnection } from '../config/index.js';
import { observedWorkflowRepository, observeWorker } from '../metrics/index.js';
import {
  createWorkflowDefinitions,
  createWorkflowJobQueue,
  createWorkflowResumer,
  createWorkflowRunner,
  evaluateStep,
  startWorkflowResumeSchedule,
  startWorkflowWorker,
} from '../workflows/index.js';
import { loadBuiltins } from './builtin-library.js';
import { createEvaluationPath } from './evaluation-path.js';
import type { RunningPart } from './running-part.js';
import type { Runtime } from './runtime.js';
import { webhookAnnouncerOf, webhookDispatchOf, webhookJobQueueOf } from './webhook-settings.js';

/** The `workflow-run` consumer: advances workflows, each step through the one evaluation path. */
export async function startWorkflowProcessor(runtime: Runtime): Promise<RunningPart> {
  const { config, logger, store } = runtime;
  // No store wait here (EVALUATION_STORE_WAIT_MS is the API's): a step that timed out would fail its job,
  // and the retry could store a second POLICY_EVALUATED record for it. A step waits as long as the store's own timeouts say.
  const { versions, evaluation, close: closeEvaluationPath } = createEvaluationPath(runtime, await loadBuiltins(config));
  const queue = createWorkflowJobQueue({ connection: redisConnection(config), prefix: config.REDIS_KEY_PREFIX });
  const definitions = createWorkflowDefinitions({ versions, compile: evaluation.compile });
  const workflows = observedWorkflowRepository(runtime.workflows, runtime.metrics);
  const webhookQueue = webhookJobQueueOf(config);
  const announceEnd = webhookAnnouncerOf(webhookDispatchOf(runtime, webhookQueue));
  const runner = createWorkflowRunner({
    workflows,
    definition: (tenantId, record) => definitions.find(tenantId, record.policyModule, record.version, record.workflow),
    evaluate: (tenantId, record, rule, args) => evaluateStep(evaluation, tenantId, record, rule, args),
    scheduleTimeout: (tenantId, workflowId, step, delayMs) => queue.scheduleTimeout(tenantId, workflowId, step, delayMs),
    announceEnd,
  });
  const release = async () => {
    await closeEvaluationPath();
    await queue.close();
    await webhookQueue.close();
    await runtime.audit.recorder.flush();
  };
  let worker: Awaited<ReturnType<typeof startWorkflowWorker>>;
  try {
    worker = await startWorkflowWorker({
      connection: redisConnection(config),
      prefix: config.REDIS_KEY_PREFIX,
      runner,
      lockMs: config.WORKFLOW_JOB_LOCK_SECONDS * 1000,
      onError: (error) => logger.warn({ err: error }, 'workflow worker error'),
      onSliceFailed: (error, tenantId, workflowId, failures, givenUp) =>
        logger.warn(
          { err: error, tenantId, workflowId, failures },
          givenUp ? 'workflow slice failed; attempts used up, the resume sweep will run it again' : 'workflow slice failed; retried after a back-off',
        ),
    });
  } catch (error) {
    await release();
    throw error;
  }
  observeWorker(worker.worker, runtime.metrics);
  const resumeEveryMs = config.WORKFLOW_RESUME_INTERVAL_SECONDS * 1000;
  const resumer = createWorkflowResumer({
    workflows,
    resume: (tenantId, workflowId, timedOutStep) => queue.resume(tenantId, workflowId, timedOutStep),
    announceEnd,
    scheduleTimeout: (tenantId, workflowId, step, delayMs) => queue.scheduleTimeout(tenantId, workflowId, step, delayMs),
    // A fresher log most likely has its job queued or running; for an older one a spare job is harmless.
    graceMs: resumeEveryMs,
  });
  const resumeSchedule = startWorkflowResumeSchedule({
    redis: runtime.redis,
    prefix: config.REDIS_KEY_PREFIX,
    intervalMs: resumeEveryMs,
    async sweep(after) {
      const sweep = await resumer.sweep(after);
      if (sweep.resumed > 0 || sweep.finished > 0) logger.info(sweep, 'workflows resumed');
      else logger.debug(sweep, 'workflow resume sweep');
      return sweep;
    },
    onError: (error) => logger.warn({ err: error }, 'workflow resume sweep failed (the next interval tries again)'),
  });
  logger.info({ lockSeconds: config.WORKFLOW_JOB_LOCK_SECONDS, resumeEverySeconds: config.WORKFLOW_RESUME_INTERVAL_SECONDS }, 'workflow worker started');
  return {
    name: 'workflow-run',
    async stop() {
      await resumeSchedule.stop();
      await worker.close();
      await release();
    },
  };
}
