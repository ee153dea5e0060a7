// One thread of the verification floor (verify-floor.mjs): says it is ready, then reads and hashes its seq range when told.
import { parentPort, workerData } from 'node:worker_threads';
import { readAndHash } from './verify-floor.mjs';

parentPort.postMessage('ready');
parentPort.once('message', () => {
  const { path, tenant, first, last } = workerData;
  parentPort.postMessage(readAndHash(path, tenant, first, last));
});
