import { describeWithMongo } from '../support/mongo-env.js';
import { mongoTarget } from '../support/store-targets.js';
import { runStoreContract } from './store-contract.js';

describeWithMongo('MongoDB store contract', (url) => {
  runStoreContract(() => mongoTarget(url));
});
