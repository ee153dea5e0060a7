// Anomaly detection and triage on the embedded SQLite store; see anomalies-support/anomaly-scenario.ts.
// Needs `npx tsc -p tsconfig.json` first (engine threads).
import { anomalyScenario } from './anomalies-support/anomaly-scenario.js';

anomalyScenario('anomalies over HTTP on SQLite');
