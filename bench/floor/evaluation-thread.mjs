// The evaluation on a worker_threads thread: each message is one job's items (request contexts);
// the answer is their results, in order, under the job's id.
import { parentPort } from 'node:worker_threads';
import { priceInJs } from '../language/loan-pricing.mjs';

parentPort.on('message', ({ id, contexts }) => {
  parentPort.postMessage({ id, results: contexts.map(priceInJs) });
});
