import type { IncomingMessage, ServerResponse } from 'node:http';

/** Counts request handlers until they finish, which can be after their connection closed. */
export function trackHandlers(handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>) {
  let running = 0;
  const waiters: Array<() => void> = [];
  return {
    handle(req: IncomingMessage, res: ServerResponse): void {
      running++;
      const done = () => {
        if (--running > 0) return;
        for (const wake of waiters.splice(0)) wake();
      };
      // Koa answers its own errors; a rejection here would be a failed write, already logged by the app.
      handler(req, res).then(done, done);
    },
    settled(): Promise<void> {
      return running === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
  };
}
