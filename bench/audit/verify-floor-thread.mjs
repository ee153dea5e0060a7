// One thread of the verification floor (verify-floor.mjs): says it is ready, then reads and hashes its seq range each time it is told.
import { parentPort, workerData } from 'node:worker_threads';
import { readAndHash } from './verify-floor.mjs';

parentPort.postMessage('ready');
parentPort.on('message', () => {
  const { path, tenant, first, last } = workerData;
  parentPort.postMessage(readAndHash(path, tenant, first, last));
});
