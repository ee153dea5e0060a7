import { describe, expect, it } from 'vitest';
import type { EngineRequest, EvaluateRequest, EvaluationBatch, ItemResult } from '../../engine/index.js';
import type { BatchTransport } from '../../jobs/index.js';
import { DispatcherClosedError } from '../dispatch-errors.js';
import { createCallerGone, type CallerGone } from '../caller-gone.js';
import { createEvaluationDispatcher } from '../evaluation-dispatcher.js';

interface Sent {
  batch: EvaluationBatch;
  cancelled: Array<readonly number[] | undefined>;
}

// The transport is the edge of the dispatcher: a stand-in records each batch and answers per item.
function recordingTransport(options: { answer?: (item: EvaluationBatch['items'][number]) => ItemResult | Error; gate?: (index: number) => Promise<void> } = {}) {
  const answer = options.answer ?? echo;
  const sent: Sent[] = [];
  let closed = 0;
  const transport: BatchTransport = {
    send(batch, deliver) {
      const record: Sent = { batch, cancelled: [] };
      sent.push(record);
      const index = sent.length - 1;
      const done = (async () => {
        await (options.gate?.(index) ?? new Promise((resolve) => setTimeout(resolve, 5)));
        const answers = batch.items.map(answer);
        const failure = answers.find((r) => r instanceof Error);
        if (failure) throw failure;
        answers.forEach((result, position) => deliver(position, result as ItemResult));
      })();
      return { done, cancel: (positions) => record.cancelled.push(positions) };
    },
    close: async () => {
      closed++;
    },
  };
  return { transport, sent, closed: () => closed, contexts: () => sent.map((s) => s.batch.items.map((i) => (i as { context: unknown }).context)) };
}

function echo(item: EvaluationBatch['items'][number]): ItemResult {
  const value = item.kind === 'evaluate' ? (item.context as never) : null;
  return { kind: 'evaluated', ok: true, value, moduleName: 'm', executionTimeMs: 0 };
}

const SOURCE = 'Module a.';
const request = (n: unknown, extra: Partial<EvaluateRequest> = {}): EvaluateRequest => ({
  kind: 'evaluate',
  tenantId: 'tenant-a',
  source: SOURCE,
  locale: 'en-US',
  functionName: 'f',
  context: n,
  ...extra,
});
const valueOf = (result: ItemResult | undefined) => (result?.kind === 'evaluated' && result.ok ? result.value : undefined);
function goneAlready(reason: unknown): CallerGone {
  const gone = createCallerGone();
  gone.markGone(reason);
  return gone;
}
const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * After a dispatcher with flushMs 0 has flushed: its setImmediate was queued first, so it runs
 * first. (A timer is no such wait: on a busy machine it can fire before the flush.)
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('evaluation dispatcher (coalescing)', () => {
  it('coalesces concurrent calls into one batch and answers each caller with its own result', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 100, flushMs: 5 });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => dispatcher.dispatch([request(n)])));
    expect(results.map(([r]) => valueOf(r))).toEqual([1, 2, 3, 4, 5]);
    expect(sent).toHaveLength(1);
    expect(dispatcher.stats()).toEqual({ batches: 1, items: 5, inFlight: 0 });
    await dispatcher.close();
  });

  it('carries each distinct source once, and requests of several tenants and kinds in one batch, the tenants in turn', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 100, flushMs: 5 });
    const requests: EngineRequest[] = [
      request(1),
      request(2, { tenantId: 'tenant-b' }),
      { kind: 'compile', tenantId: 'tenant-b', source: 'Module b.', locale: 'de' },
      request(3, { source: 'Module b.' }),
    ];
    await dispatcher.dispatch(requests);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.batch).toEqual({
      sources: [SOURCE, 'Module b.'],
      items: [
        { kind: 'evaluate', tenantId: 'tenant-a', sourceIndex: 0, locale: 'en-US', functionName: 'f', context: 1 },
        { kind: 'evaluate', tenantId: 'tenant-b', sourceIndex: 0, locale: 'en-US', functionName: 'f', context: 2 },
        { kind: 'evaluate', tenantId: 'tenant-a', sourceIndex: 1, locale: 'en-US', functionName: 'f', context: 3 },
        { kind: 'compile', tenantId: 'tenant-b', sourceIndex: 1, locale: 'de' },
      ],
    });
    await dispatcher.close();
  });

  it('sends a batch as soon as it is full, keeping each call in order across batches', async () => {
    const { transport, contexts } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 3, flushMs: 60_000 });
    const results = await dispatcher.dispatch([1, 2, 3, 4, 5, 6].map((n) => request(n)));
    expect(results.map(valueOf)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(contexts()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await dispatcher.close();
  });

  it('while maxInFlight batches wait for answers, holds the next batch and lets it grow', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { transport, contexts } = recordingTransport({ gate: (index) => (index === 0 ? gate : Promise.resolve()) });
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 4, flushMs: 0, maxInFlight: 1 });
    const first = dispatcher.dispatch([request(1)]);
    await nextTurn();
    expect(dispatcher.stats()).toMatchObject({ batches: 1, inFlight: 1 });
    // Due on the next turn, but the one batch allowed on its way is still unanswered.
    const waiting = [2, 3].map((n) => dispatcher.dispatch([request(n)]));
    await nextTurn();
    expect(contexts()).toEqual([[1]]);
    // A full batch goes at once all the same.
    const full = [4, 5, 6, 7].map((n) => dispatcher.dispatch([request(n)]));
    expect(contexts()).toEqual([[1], [2, 3, 4, 5]]);
    const last = dispatcher.dispatch([request(8)]);
    release();
    const results = await Promise.all([first, ...waiting, ...full, last]);
    expect(results.map(([r]) => valueOf(r))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(contexts()).toEqual([[1], [2, 3, 4, 5], [6, 7, 8]]);
    expect(dispatcher.stats()).toEqual({ batches: 3, items: 8, inFlight: 0 });
    await dispatcher.close();
  });

  it('sends a held batch after maxHoldMs even while the batches in flight stay unanswered', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { transport, contexts } = recordingTransport({ gate: (index) => (index === 0 ? gate : Promise.resolve()) });
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 64, flushMs: 0, maxInFlight: 1, maxHoldMs: 20 });
    const slow = dispatcher.dispatch([request(1)]);
    await nextTurn();
    // Another caller arrives behind the unanswered batch: held only for maxHoldMs, then sent.
    const [second] = await dispatcher.dispatch([request(2)]);
    expect(valueOf(second)).toBe(2);
    expect(contexts()).toEqual([[1], [2]]);
    release();
    await slow;
    await dispatcher.close();
  });

  it('answers each caller as soon as its own item is delivered, before the rest of its batch', async () => {
    let finishRest!: () => void;
    const rest = new Promise<void>((resolve) => (finishRest = resolve));
    const transport: BatchTransport = {
      send(batch, deliver) {
        // The first item is delivered at once, the others only when the test says so.
        deliver(0, echo(batch.items[0]!));
        const done = rest.then(() => batch.items.slice(1).forEach((item, i) => deliver(i + 1, echo(item))));
        return { done, cancel: () => {} };
      },
      close: async () => {},
    };
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 3, flushMs: 60_000 });
    const order: string[] = [];
    const quick = dispatcher.dispatch([request('quick')]).then(() => order.push('quick'));
    const slow = dispatcher.dispatch([request('slow-1'), request('slow-2')]).then(() => order.push('slow'));
    await quick;
    expect(order).toEqual(['quick']);
    finishRest();
    await slow;
    expect(order).toEqual(['quick', 'slow']);
    await dispatcher.close();
  });

  it('refuses a maxInFlight that is not a positive integer or Infinity, and other bad limits', () => {
    const { transport } = recordingTransport();
    expect(() => createEvaluationDispatcher({ transport, maxInFlight: 0 })).toThrow(RangeError);
    expect(() => createEvaluationDispatcher({ transport, maxInFlight: 1.5 })).toThrow(RangeError);
    expect(() => createEvaluationDispatcher({ transport, maxInFlight: Infinity })).not.toThrow();
    expect(() => createEvaluationDispatcher({ transport, maxBatchItems: 0 })).toThrow(/maxBatchItems/);
    expect(() => createEvaluationDispatcher({ transport, flushMs: -1 })).toThrow(/flushMs/);
    expect(() => createEvaluationDispatcher({ transport, maxHoldMs: -1 })).toThrow(/maxHoldMs/);
  });

  it('flushes on the next turn of the event loop when flushMs is 0', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 10, flushMs: 0 });
    const results = await Promise.all([dispatcher.dispatch([request(1)]), dispatcher.dispatch([request(2), request(3)])]);
    expect(results.map((r) => r.map(valueOf))).toEqual([[1], [2, 3]]);
    expect(sent).toHaveLength(1);
    await dispatcher.close();
  });

  it('rejects every caller of a batch whose transport failed, and only them', async () => {
    const boom = new Error('engine down');
    const { transport } = recordingTransport({ answer: (i) => (i.kind === 'evaluate' && i.context === 'bad' ? boom : echo(i)) });
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 2, flushMs: 60_000 });
    const outcomes = await Promise.allSettled([request(1), request('bad'), request(3), request(4)].map((r) => dispatcher.dispatch([r])));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(boom);
    await dispatcher.close();
  });

  it('refuses work after close, sends what was buffered, and closes the transport', async () => {
    const { transport, sent, closed } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, flushMs: 60_000 });
    const buffered = dispatcher.dispatch([request(1)]);
    await dispatcher.close();
    expect(sent).toHaveLength(1);
    expect(closed()).toBe(1);
    expect((await buffered).map(valueOf)).toEqual([1]);
    await expect(dispatcher.dispatch([request(2)])).rejects.toBeInstanceOf(DispatcherClosedError);
  });
});

describe('evaluation dispatcher (callers that go away)', () => {
  it('never sends the items of a call aborted before its batch left', async () => {
    const { transport, contexts } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 10, flushMs: 20 });
    const controller = createCallerGone();
    const gone = dispatcher.dispatch([request('gone-1'), request('gone-2')], { gone: controller });
    const kept = dispatcher.dispatch([request('kept')]);
    controller.markGone(new Error('client disconnected'));
    await expect(gone).rejects.toThrow('client disconnected');
    expect((await kept).map(valueOf)).toEqual(['kept']);
    expect(contexts()).toEqual([['kept']]);
    await dispatcher.close();
  });

  it('sends nothing when every caller of a buffer went away', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 10, flushMs: 1 });
    const controller = createCallerGone();
    const gone = dispatcher.dispatch([request(1)], { gone: controller });
    controller.markGone(new Error('gone'));
    await expect(gone).rejects.toThrow('gone');
    await tick(20);
    expect(sent).toHaveLength(0);
    expect(dispatcher.stats()).toEqual({ batches: 0, items: 0, inFlight: 0 });
    await dispatcher.close();
  });

  it('rejects at once for a caller that has already gone', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, flushMs: 1 });
    await expect(dispatcher.dispatch([request(1)], { gone: goneAlready(new Error('late')) })).rejects.toThrow('late');
    await tick(10);
    expect(sent).toHaveLength(0);
    await dispatcher.close();
  });

  it('cancels the positions of a call aborted after its batch left; the others still get answers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { transport, sent } = recordingTransport({ gate: () => gate });
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 10, flushMs: 0 });
    const controller = createCallerGone();
    const before = dispatcher.dispatch([request('a')]);
    const gone = dispatcher.dispatch([request('b'), request('c')], { gone: controller });
    const after = dispatcher.dispatch([request('d')]);
    await nextTurn();
    expect(sent).toHaveLength(1);
    controller.markGone(new Error('client disconnected'));
    await expect(gone).rejects.toThrow('client disconnected');
    expect(sent[0]!.cancelled).toEqual([[1, 2]]);
    release();
    expect((await before).map(valueOf)).toEqual(['a']);
    expect((await after).map(valueOf)).toEqual(['d']);
    await dispatcher.close();
  });

  it('cancels nothing once a call has been answered', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, flushMs: 0 });
    const controller = createCallerGone();
    await dispatcher.dispatch([request(1)], { gone: controller });
    controller.markGone(new Error('gone'));
    expect(sent[0]!.cancelled).toEqual([]);
    await dispatcher.close();
  });
});

describe('evaluation dispatcher (one tenant’s many items)', () => {
  it('keeps at most maxTenantItemsInFlight of a tenant on their way, and sends another tenant’s item in the next batch', async () => {
    const gates: Array<() => void> = [];
    const { transport, sent } = recordingTransport({ gate: () => new Promise<void>((resolve) => gates.push(resolve)) });
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 4, flushMs: 0, maxInFlight: 100, maxTenantItemsInFlight: 8 });
    const flood = dispatcher.dispatch(Array.from({ length: 40 }, (_, n) => request(n)));
    await nextTurn();
    // Two full batches of the flooding tenant, then nothing more of it while they are unanswered.
    expect(sent.map((s) => s.batch.items.length)).toEqual([4, 4]);
    const single = dispatcher.dispatch([request('b', { tenantId: 'tenant-b' })]);
    await nextTurn();
    expect(sent).toHaveLength(3);
    expect(sent[2]!.batch.items.map((item) => item.tenantId)).toEqual(['tenant-b']);
    gates[2]!();
    expect((await single).map(valueOf)).toEqual(['b']);
    // Each answered batch makes room for the next of the flood, until all of it is answered in order.
    const release = setInterval(() => gates.splice(0).forEach((open) => open()), 1);
    try {
      expect((await flood).map(valueOf)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    } finally {
      clearInterval(release);
    }
    expect(sent.filter((s) => s.batch.items.some((item) => item.tenantId === 'tenant-a')).length).toBe(10);
    await dispatcher.close();
  });

  it('fills a batch with the waiting tenants in turn', async () => {
    const { transport, sent } = recordingTransport();
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 6, flushMs: 60_000 });
    const a = dispatcher.dispatch([1, 2, 3, 4].map((n) => request(`a${n}`)));
    const b = dispatcher.dispatch([1, 2].map((n) => request(`b${n}`, { tenantId: 'tenant-b' })));
    await Promise.all([a, b]);
    expect(sent.map((s) => s.batch.items.map((i) => (i as { context: unknown }).context))).toEqual([['a1', 'b1', 'a2', 'b2', 'a3', 'a4']]);
    await dispatcher.close();
  });

  it('refuses, on close, the items a tenant’s room kept back', async () => {
    const { transport, sent } = recordingTransport({ gate: () => new Promise<void>(() => {}) });
    const dispatcher = createEvaluationDispatcher({ transport, maxBatchItems: 2, flushMs: 0, maxTenantItemsInFlight: 2 });
    const flood = dispatcher.dispatch([1, 2, 3, 4].map((n) => request(n)));
    await nextTurn();
    expect(sent).toHaveLength(1);
    await dispatcher.close();
    await expect(flood).rejects.toBeInstanceOf(DispatcherClosedError);
  });
});
