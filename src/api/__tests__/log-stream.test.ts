import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runLogStream, type LogPage } from '../streams/log-stream.js';
import { SseResponse } from '../streams/sse-response.js';

/** The edge of the unit: a response whose socket takes every write into its buffer and drains only when told. */
class SlowSocketResponse extends EventEmitter {
  writableNeedDrain = false;
  writableEnded = false;
  destroyed = false;
  readonly written: string[] = [];
  writeHead(): this {
    return this;
  }
  write(text: string): boolean {
    this.written.push(text);
    this.writableNeedDrain = true;
    return false;
  }
  end(): this {
    this.writableEnded = true;
    return this;
  }
  drain(): void {
    this.writableNeedDrain = false;
    this.emit('drain');
  }
}

/** Full pages for ever: a log far longer than any buffer. */
function pageAfter(afterSeq: number): LogPage {
  return { items: [1, 2, 3].map((n) => ({ seq: afterSeq + n, data: { n: afterSeq + n } })), full: true, ended: false };
}

describe('a log stream to a slow client', () => {
  it('reads no further page until the socket drained the one before, whatever wakes it', async () => {
    const socket = new SlowSocketResponse();
    const response = new SseResponse(socket as unknown as ServerResponse);
    const reads: number[] = [];
    let readWaiter: (() => void) | null = null;
    let wake: ((seq: number | null) => void) | null = null;
    const streaming = runLogStream(response, {
      afterSeq: 0,
      first: pageAfter(0),
      readAfter: async (afterSeq) => {
        reads.push(afterSeq);
        readWaiter?.();
        return pageAfter(afterSeq);
      },
      listen: (listener) => {
        wake = listener;
        return () => (wake = null);
      },
      heartbeatMs: 3_600_000,
      onError: (error) => {
        throw error;
      },
    });
    expect(socket.written.filter((text) => text.startsWith('id:'))).toEqual(['id: 1\ndata: {"n":1}\n\n', 'id: 2\ndata: {"n":2}\n\n', 'id: 3\ndata: {"n":3}\n\n']);
    // Notices keep coming while the socket is full: nothing is read.
    for (let notice = 0; notice < 5; notice++) {
      wake!(100 + notice);
      await nextTurn();
    }
    expect(reads).toEqual([]);
    // Drained: the next page is read after the last sequence sent, and waits in its turn.
    const read = new Promise<void>((resolve) => (readWaiter = resolve));
    socket.drain();
    await read;
    expect(reads).toEqual([3]);
    await nextTurn();
    expect(reads).toEqual([3]);
    expect(socket.written.filter((text) => text.startsWith('id:')).length).toBe(6);

    response.end();
    await streaming;
    expect(wake).toBeNull();
  });
});
