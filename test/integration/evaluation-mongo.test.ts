// The evaluation suite once more on the MongoDB adapter (FerretDB in CI), from MONGODB_URL;
// skipped locally without it, failing under CI=true without it.
import { describeWithMongo, mongoTarget } from '../support/index.js';
import { runEvaluationSuite } from './evaluation-support/evaluation-suite.js';

describeWithMongo('evaluation endpoints (MongoDB)', (url) => {
  const target = mongoTarget(url);
  runEvaluationSuite(() => target.connect(), () => target.dispose());
});
