// Piscina thread entry, loaded by path from dist/workers/evaluation-thread.js (see src/engine/thread-file.ts).
import { workerData } from 'node:worker_threads';
import { compile, evaluate, format, parse, resolveLocale } from '../src/language/index.js';
import { createEvaluationThreadHandler } from '../src/engine/evaluation-thread-handler.js';
import type { ThreadSettings } from '../src/engine/thread-protocol.js';

export default createEvaluationThreadHandler(workerData as ThreadSettings, { compile, evaluate, parse, format, resolveLocale });
