// Anomaly detection and triage on the MongoDB adapter (FerretDB in CI, no transactions); see
// anomalies-support/anomaly-scenario.ts. Needs MONGODB_URL and `npx tsc -p tsconfig.json` first.
import { afterAll } from 'vitest';
import { openMongoStore } from '../../src/store/index.js';
import { describeWithMongo, dropMongoDatabase, uniqueDatabaseName } from '../support/index.js';
import { anomalyScenario } from './anomalies-support/anomaly-scenario.js';

describeWithMongo('anomalies on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_test_anomalies');
  anomalyScenario('anomalies over HTTP on MongoDB', () => openMongoStore({ url, database }));
  afterAll(() => dropMongoDatabase(url, database));
});
