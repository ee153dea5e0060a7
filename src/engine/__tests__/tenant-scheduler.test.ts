import { describe, expect, it } from 'vitest';
import { createTenantScheduler } from '../tenant-scheduler.js';

interface Item {
  tenantId: string;
  name: string;
}

const items = (tenantId: string, count: number, from = 1): Item[] =>
  Array.from({ length: count }, (_, i) => ({ tenantId, name: `${tenantId}${from + i}` }));
const names = (task: Item[] | null) => task?.map((item) => item.name) ?? null;

function scheduler(options: { maxItemsPerTask?: number; taskSliceMs?: number } = {}) {
  return createTenantScheduler<Item>({ maxItemsPerTask: options.maxItemsPerTask ?? 64, taskSliceMs: options.taskSliceMs ?? 8 });
}

/** Takes tasks until nothing waits. */
function takeAll(s: ReturnType<typeof scheduler>, freeThreads: number): string[][] {
  const tasks: string[][] = [];
  for (let task = s.next(freeThreads); task !== null; task = s.next(freeThreads)) tasks.push(names(task)!);
  return tasks;
}

describe('tenant scheduler', () => {
  it('takes turns between tenants however many items each has queued', () => {
    const s = scheduler();
    s.enqueue(items('a', 6));
    s.enqueue(items('b', 2));
    // With many free threads a tenant's queue is spread one item per task.
    expect(names(s.next(100))).toEqual(['a1']);
    s.enqueue(items('c', 1));
    expect(takeAll(s, 100)).toEqual([['b1'], ['a2'], ['c1'], ['b2'], ['a3'], ['a4'], ['a5'], ['a6']]);
    expect(s.size()).toBe(0);
  });

  it('serves a tenant that arrives later within one turn, not after the busy tenant\'s backlog', () => {
    const s = scheduler();
    s.observe('busy', 100);
    s.enqueue(items('busy', 5));
    expect(names(s.next(1))).toEqual(['busy1']);
    s.enqueue(items('late', 1));
    // The tenant just served went to the back of the turn order; the newcomer joins behind it.
    expect(takeAll(s, 1)).toEqual([['busy2'], ['late1'], ['busy3'], ['busy4'], ['busy5']]);
  });

  it('sizes tasks by measured cost: many items for a cheap tenant, one for a costly one', () => {
    const firstTask = (observations: number[]) => {
      const s = scheduler({ maxItemsPerTask: 64, taskSliceMs: 8 });
      for (const ms of observations) s.observe('t', ms);
      s.enqueue(items('t', 100));
      return s.next(1)!.length;
    };
    // Cost not known yet: a few items (a quarter of the slice each).
    expect(firstTask([])).toBe(4);
    expect(firstTask([0.5])).toBe(16);
    expect(firstTask([0.01])).toBe(64); // capped by maxItemsPerTask
    expect(firstTask([50])).toBe(1);
    expect(firstTask([8_000])).toBe(1);
  });

  it("spreads one tenant's queue over the free threads in parts worth a thread hop (1 ms)", () => {
    const s = scheduler();
    s.observe('cheap', 0.1);
    s.enqueue(items('cheap', 40));
    expect(s.next(4)).toHaveLength(10);
    // 30 items of 0.1 ms left: three parts of at least 1 ms, though four threads are free.
    expect(s.next(4)).toHaveLength(10);
    s.observe('cheaper', 0.01);
    s.enqueue(items('cheaper', 40));
    // Turns alternate: the rest of `cheap` (2 ms) in two parts; `cheaper` (0.4 ms in all) in one
    // task, not four hops of 0.1 ms each.
    expect(takeAll(s, 4).map((task) => task.length)).toEqual([10, 40, 10]);
  });

  it('follows the cost as it changes (running average)', () => {
    const s = scheduler({ taskSliceMs: 8 });
    s.observe('t', 0.01);
    s.enqueue(items('t', 200));
    const cheap = s.next(1)!.length;
    for (let i = 0; i < 30; i++) s.observe('t', 100);
    const costly = s.next(1)!.length;
    expect(cheap).toBe(64);
    expect(costly).toBe(1);
  });

  it('puts requeued items back at the front of their queue, in their order', () => {
    const s = scheduler();
    s.observe('a', 100);
    s.enqueue(items('a', 4));
    const first = s.next(1)!;
    const second = s.next(1)!;
    expect(names(first)).toEqual(['a1']);
    s.requeue([...first, ...second]);
    expect(s.size()).toBe(4);
    expect(takeAll(s, 1)).toEqual([['a1'], ['a2'], ['a3'], ['a4']]);
  });

  it('requeues items of a tenant whose queue had emptied', () => {
    const s = scheduler();
    s.enqueue(items('a', 1));
    const task = s.next(1)!;
    expect(s.next(1)).toBeNull();
    s.requeue(task);
    expect(names(s.next(1))).toEqual(['a1']);
  });

  it('discards matching items and drains the rest', () => {
    const s = scheduler();
    s.enqueue(items('a', 3));
    s.enqueue(items('b', 2));
    s.discard((item) => item.name === 'a2' || item.tenantId === 'b');
    expect(s.size()).toBe(2);
    expect(s.drain().map((item) => item.name)).toEqual(['a1', 'a3']);
    expect(s.size()).toBe(0);
    expect(s.next(1)).toBeNull();
  });

  it('refuses a task slice that is not positive', () => {
    expect(() => createTenantScheduler({ maxItemsPerTask: 1, taskSliceMs: 0 })).toThrow(RangeError);
  });
});
