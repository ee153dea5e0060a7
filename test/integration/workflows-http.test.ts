// Workflows on the embedded SQLite store; see workflows-support/workflow-scenario.ts.
// Needs `npx tsc -p tsconfig.json` first (engine threads).
import { workflowScenario } from './workflows-support/workflow-scenario.js';

workflowScenario('workflows over HTTP on SQLite');
