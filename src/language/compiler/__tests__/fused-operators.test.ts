import { describe, expect, it } from 'vitest';
import type { Span } from '../../ast/nodes.js';
import { MAX_INT } from '../../runtime/numeric.js';
import { EvaluationError } from '../../runtime/evaluation-error.js';
import { arithmeticClosure, compareClosure, type ArithmeticOp, type ComparisonOp } from '../fused-operators.js';
import type { Operand } from '../operand.js';

const span: Span = { start: 3, end: 9, line: 1, column: 4, endLine: 1, endColumn: 10 };

/**
 * `x` and `y` as every operand shape pair the compiler can hand over, each with the frame it
 * reads, so a test can also change the variables after the closure is built.
 */
function shapes(x: unknown, y: unknown): Array<{ shape: string; frame: unknown[]; left: Operand; right: Operand }> {
  const make = (shape: string, build: (frame: unknown[]) => [Operand, Operand]) => {
    // Slot 0 holds x, slot 1 holds y, slot 2 a record whose field 1 holds x.
    const frame: unknown[] = [x, y, ['unused', x]];
    const [left, right] = build(frame);
    return { shape, frame, left, right };
  };
  return [
    make('slot, const', (f) => [{ kind: 'slot', frame: f, slot: 0 }, { kind: 'const', value: y }]),
    make('field, const', (f) => [{ kind: 'field', frame: f, slot: 2, index: 1 }, { kind: 'const', value: y }]),
    make('closure, const', (f) => [{ kind: 'eval', eval: () => f[0] }, { kind: 'const', value: y }]),
    make('slot, slot', (f) => [{ kind: 'slot', frame: f, slot: 0 }, { kind: 'slot', frame: f, slot: 1 }]),
    make('slots of two frames', (f) => [{ kind: 'slot', frame: f, slot: 0 }, { kind: 'slot', frame: [y], slot: 0 }]),
    make('field, slot', (f) => [{ kind: 'field', frame: f, slot: 2, index: 1 }, { kind: 'slot', frame: f, slot: 1 }]),
    make('const, slot', (f) => [{ kind: 'const', value: x }, { kind: 'slot', frame: f, slot: 1 }]),
    make('closure, closure', (f) => [{ kind: 'eval', eval: () => f[0] }, { kind: 'eval', eval: () => f[1] }]),
  ];
}

const ORDERINGS: Record<ComparisonOp, (x: number, y: number) => boolean> = {
  lt: (x, y) => x < y,
  gt: (x, y) => x > y,
  le: (x, y) => x <= y,
  ge: (x, y) => x >= y,
  eq: (x, y) => x === y,
  ne: (x, y) => x !== y,
};

const NUMBERS = [-1.5, -0, 0, 2, 700, 701];

function thrown(run: () => unknown): EvaluationError {
  try {
    run();
  } catch (error) {
    if (error instanceof EvaluationError) return error;
    throw error;
  }
  throw new Error('expected an EvaluationError');
}

describe('compareClosure', () => {
  it('agrees with the JavaScript operator for every operator, operand shape and pair of numbers', () => {
    for (const [op, expected] of Object.entries(ORDERINGS) as Array<[ComparisonOp, (x: number, y: number) => boolean]>) {
      for (const x of NUMBERS) {
        for (const y of NUMBERS) {
          for (const { shape, left, right } of shapes(x, y)) {
            expect(compareClosure(op, left, right)(), `${String(x)} ${op} ${String(y)} (${shape})`).toBe(expected(x, y));
          }
        }
      }
    }
  });

  it('compares Text, Bool and enum indices by identity under `is` and `is not`', () => {
    const pairs: Array<[unknown, unknown]> = [
      ['Prime', 'Prime'],
      ['Prime', 'prime'],
      [true, true],
      [true, false],
      [2, 2],
      [2, 1],
    ];
    for (const [x, y] of pairs) {
      for (const { shape, left, right } of shapes(x, y)) {
        expect(compareClosure('eq', left, right)(), `${String(x)} is ${String(y)} (${shape})`).toBe(x === y);
        expect(compareClosure('ne', left, right)(), `${String(x)} is not ${String(y)} (${shape})`).toBe(x !== y);
      }
    }
  });

  it('reads variables when it runs, not when it is built', () => {
    for (const { shape, frame, left, right } of shapes(1, 5)) {
      const less = compareClosure('lt', left, right);
      expect(less(), shape).toBe(true);
      frame[0] = 9;
      frame[2] = ['unused', 9];
      // Shapes whose left side is the constant 1 keep comparing 1.
      expect(less(), shape).toBe(left.kind === 'const');
    }
  });
});

describe('arithmeticClosure', () => {
  const ops: Array<[ArithmeticOp, (x: number, y: number) => number]> = [
    ['add', (x, y) => x + y],
    ['sub', (x, y) => x - y],
    ['mul', (x, y) => x * y],
  ];

  it('computes Float results as JavaScript does, negative zero included', () => {
    for (const [op, expected] of ops) {
      for (const x of NUMBERS) {
        for (const y of NUMBERS) {
          for (const { shape, left, right } of shapes(x, y)) {
            const result = arithmeticClosure(op, false, left, right, span)();
            expect(Object.is(result, expected(x, y)), `${String(x)} ${op} ${String(y)} (${shape}) gave ${String(result)}`).toBe(true);
          }
        }
      }
    }
  });

  it('gives an Int product of a negative number and zero as 0, never -0', () => {
    for (const { shape, left, right } of shapes(-3, 0)) {
      expect(Object.is(arithmeticClosure('mul', true, left, right, span)(), 0), shape).toBe(true);
    }
    for (const { shape, left, right } of shapes(0, -3)) {
      expect(Object.is(arithmeticClosure('mul', true, left, right, span)(), 0), shape).toBe(true);
    }
  });

  it('computes Int sums, differences and products inside the safe range exactly', () => {
    for (const [op, expected] of ops) {
      for (const [x, y] of [
        [7, 5],
        [-7, 5],
        [MAX_INT - 5, 5],
        [-MAX_INT + 5, -5],
      ] as Array<[number, number]>) {
        for (const { shape, left, right } of shapes(x, y)) {
          const want = expected(x, y);
          if (Math.abs(want) > MAX_INT) continue;
          expect(arithmeticClosure(op, true, left, right, span)(), `${x} ${op} ${y} (${shape})`).toBe(want);
        }
      }
    }
  });

  it('fails with PL3003 at its span when an Int result leaves the safe range', () => {
    const cases: Array<[ArithmeticOp, number, number]> = [
      ['add', MAX_INT, 1],
      ['sub', -MAX_INT, 1],
      ['mul', 2 ** 30, 2 ** 30 * 16],
    ];
    for (const [op, x, y] of cases) {
      for (const { shape, left, right } of shapes(x, y)) {
        const error = thrown(arithmeticClosure(op, true, left, right, span));
        expect([error.code, error.span], `${x} ${op} ${y} (${shape})`).toEqual(['PL3003', span]);
      }
    }
  });

  it('fails with PL3005 at its span when a Float result is not finite', () => {
    const cases: Array<[ArithmeticOp, number, number]> = [
      ['add', 1.5e308, 1.5e308],
      ['sub', -1.5e308, 1.5e308],
      ['mul', 1e200, 1e200],
    ];
    for (const [op, x, y] of cases) {
      for (const { shape, left, right } of shapes(x, y)) {
        const error = thrown(arithmeticClosure(op, false, left, right, span));
        expect([error.code, error.span], `${x} ${op} ${y} (${shape})`).toEqual(['PL3005', span]);
      }
    }
  });

  it('reads variables when it runs, not when it is built', () => {
    for (const { shape, frame, left, right } of shapes(10, 4)) {
      const difference = arithmeticClosure('sub', true, left, right, span);
      expect(difference(), shape).toBe(6);
      frame[1] = 1;
      // Shapes whose right side is the constant 4 keep subtracting 4.
      expect(difference(), shape).toBe(right.kind === 'const' ? 6 : right.kind === 'slot' && right.frame !== frame ? 6 : 9);
    }
  });
});
