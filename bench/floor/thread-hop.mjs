// The floor of a thread hop: one long-lived worker_threads thread, a job's items posted to it in one
// message and its results back in one, matched by id. What Piscina adds on top (a pool, queues,
// task objects) is not here.
import { Worker } from 'node:worker_threads';

export function startEvaluationThread() {
  const thread = new Worker(new URL('./evaluation-thread.mjs', import.meta.url));
  const waiting = new Map();
  let nextId = 0;
  thread.on('message', ({ id, results }) => {
    const { resolve } = waiting.get(id);
    waiting.delete(id);
    resolve(results);
  });
  thread.on('error', (error) => {
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  });
  return {
    /** The results of evaluating `contexts` on the thread, in order. */
    evaluate(contexts) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        thread.postMessage({ id, contexts });
      });
    },
    close: () => thread.terminate(),
  };
}
