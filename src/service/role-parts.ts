import type { ProcessRole } from '../config/index.js';
import { startApi } from './api-part.js';
import type { PartStarter } from './running-part.js';
import { startWorkerMetrics } from './worker-metrics-part.js';
import { startWorker } from './worker-part.js';

/** The parts of each role, in start order. Workers start first so that the API never accepts work nobody can take. */
export const ROLE_PARTS: Readonly<Record<ProcessRole, readonly PartStarter[]>> = {
  api: [startApi],
  worker: [startWorker, startWorkerMetrics],
  all: [startWorker, startApi],
};
