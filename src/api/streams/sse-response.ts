import type { ServerResponse } from 'node:http';

/** How long a client waits before it reconnects, sent as the stream's first line (`retry:`). */
export const STREAM_RETRY_MS = 3_000;

/**
 * A `text/event-stream` answer written straight to the response: events (`id:` and one `data:`
 * line of JSON), comments, and the back-pressure of the socket under it.
 */
export class SseResponse {
  private readonly waiting = new Set<() => void>();
  private gone = false;

  constructor(private readonly res: ServerResponse) {
    res.once('close', () => {
      this.gone = true;
      this.wakeAll();
    });
  }

  /**
   * Sends the headers at once, so the client knows the stream is open before the first event.
   * `Connection: close`: a stream's socket is not kept for another request, so a stream ended at
   * shutdown leaves no connection behind.
   */
  open(headers: Record<string, string | string[] | number | undefined>): void {
    this.res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // Proxies that buffer answers (nginx) pass this one on as it is written.
      'X-Accel-Buffering': 'no',
      Connection: 'close',
    });
    this.res.write(`retry: ${STREAM_RETRY_MS}\n\n`);
  }

  /** The client is gone or the stream was ended. */
  get closed(): boolean {
    return this.gone || this.res.writableEnded || this.res.destroyed;
  }

  /** Written data waits for the socket: nothing more should be read until it drains. */
  get backedUp(): boolean {
    return this.res.writableNeedDrain;
  }

  /** One event; JSON text has no line breaks, so `data` is one line. */
  event(id: number, data: unknown): void {
    if (!this.closed) this.res.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    if (!this.closed) this.res.write(`: ${text}\n\n`);
  }

  /** Resolves once the socket drained what was written, or the stream closed. */
  drained(): Promise<void> {
    if (!this.backedUp || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.waiting.delete(done);
        resolve();
      };
      this.res.once('drain', done);
      this.waiting.add(done);
    });
  }

  /** Resolves when `wake` is called or the stream closes, whichever is first. */
  until(register: (wake: () => void) => void): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        resolve();
      };
      this.waiting.add(done);
      register(done);
    });
  }

  end(): void {
    if (!this.closed) this.res.end();
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }
}
