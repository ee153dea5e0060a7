// The evaluation endpoints on the embedded SQLite store (the suite also runs on MongoDB:
// evaluation-mongo.test.ts). Needs `npx tsc -p tsconfig.json` first (threads run the build).
import { describe } from 'vitest';
import { sqliteTarget } from '../support/index.js';
import { runEvaluationSuite } from './evaluation-support/evaluation-suite.js';

describe('evaluation endpoints (SQLite)', () => {
  const target = sqliteTarget();
  runEvaluationSuite(() => target.connect(), () => target.dispose());
});
