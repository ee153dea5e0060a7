import { describe, expect, it } from 'vitest';
import { createTenantTurns } from '../tenant-turns.js';

describe('createTenantTurns', () => {
  it('lets each tenant run at most its share at once, the others waiting in arrival order, and never holds another tenant', async () => {
    const turns = createTenantTurns(2);
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    const start = (tenantId: string, name: string) =>
      turns.take(tenantId).then((release) => {
        started.push(name);
        releases.set(name, release);
      });
    const all = [start('a', 'a1'), start('a', 'a2'), start('a', 'a3'), start('a', 'a4'), start('b', 'b1')];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'a2', 'b1']);
    releases.get('a2')!();
    releases.get('a2')!(); // a second release changes nothing
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    releases.get('a1')!();
    await Promise.all(all);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    for (const name of ['a3', 'a4', 'b1']) releases.get(name)!();
    // Everyone released: a tenant starts at once again, twice.
    await turns.take('a');
    await turns.take('a');
  });

  it('refuses a share that is not a positive whole number', () => {
    expect(() => createTenantTurns(0)).toThrow(RangeError);
  });
});
