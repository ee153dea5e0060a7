// Workflows on the MongoDB adapter (FerretDB in CI); see workflows-support/workflow-scenario.ts.
// Needs MONGODB_URL and `npx tsc -p tsconfig.json` first.
import { afterAll } from 'vitest';
import { openMongoStore } from '../../src/store/index.js';
import { describeWithMongo, dropMongoDatabase, uniqueDatabaseName } from '../support/index.js';
import { workflowScenario } from './workflows-support/workflow-scenario.js';

describeWithMongo('workflows on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_test_workflows');
  workflowScenario('workflows over HTTP on MongoDB', () => openMongoStore({ url, database }));
  afterAll(() => dropMongoDatabase(url, database));
});
