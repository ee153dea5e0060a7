import { startAnomalyProcessor } from './anomaly-worker-part.js';
import { startEvaluationProcessor } from './evaluation-worker-part.js';
import type { PartStarter, RunningPart } from './running-part.js';
import { startWebhookProcessor } from './webhook-worker-part.js';
import { startWorkflowProcessor } from './workflow-worker-part.js';

/** Background work. Queue processors register here, each as a part that can stop. */
export const startWorker: PartStarter = async (runtime) => {
  const { logger } = runtime;
  const processors: RunningPart[] = [];
  processors.push(await startEvaluationProcessor(runtime));
  processors.push(await startAnomalyProcessor(runtime));
  processors.push(await startWorkflowProcessor(runtime));
  processors.push(await startWebhookProcessor(runtime));
  logger.info({ processors: processors.map((p) => p.name) }, 'worker started');
  return {
    name: 'worker',
    async stop() {
      for (const processor of processors.reverse()) await processor.stop();
    },
  };
};
