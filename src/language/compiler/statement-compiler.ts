/**
 * Statements → closures. A statement closure returns `undefined` to let the block continue, or
 * the value of a `Return` (language values are never `undefined`), so control flow needs no
 * exceptions. Each statement and each loop iteration takes one step from the meter.
 *
 * Closures that call other closures are built by small module-level factories: a closure then
 * captures only the factory's parameters, not the compiler's whole scope (context, tree), which
 * keeps cached programs small.
 *
 * When the context carries a trace recorder, `If`, `Match`, `Return` and `Fail with` compile to
 * recording variants instead; the plain tree contains no tracing code at all.
 */
import type { ForEachStmt, IfStmt, MatchStmt, Span, Statement } from '../ast/nodes.js';
import type { TraceEntry } from '../api-types.js';
import { EvaluationError, ruleFailure } from '../runtime/evaluation-error.js';
import { budgetExceeded, type Meter } from '../runtime/meter.js';
import type { Eval, Exec } from '../runtime/program-runtime.js';
import { resolutionOf, typeOf, type CompileContext } from './compile-context.js';
import { compileExpr, literalValue, operandOf } from './expression-compiler.js';

type Exceeded = typeof budgetExceeded;

const NOTHING: Exec = () => undefined;

/** Beyond this many `When` values, an Int or Text `Match` dispatches through a Map. */
const LINEAR_MATCH_LIMIT = 8;

const failWith = ruleFailure;

// ---------- closure factories ----------

const block2 =
  (a: Exec, b: Exec): Exec =>
  () => {
    const r = a();
    if (r !== undefined) return r;
    return b();
  };

const block3 =
  (a: Exec, b: Exec, c: Exec): Exec =>
  () => {
    let r = a();
    if (r !== undefined) return r;
    r = b();
    if (r !== undefined) return r;
    return c();
  };

const block4 =
  (a: Exec, b: Exec, c: Exec, d: Exec): Exec =>
  () => {
    let r = a();
    if (r !== undefined) return r;
    r = b();
    if (r !== undefined) return r;
    r = c();
    if (r !== undefined) return r;
    return d();
  };

const letValue =
  (meter: Meter, span: Span, exceeded: Exceeded, frame: unknown[], slot: number, value: Eval): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    frame[slot] = value();
    return undefined;
  };

const returnValue =
  (meter: Meter, span: Span, exceeded: Exceeded, value: Eval): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    return value();
  };

const failMessage =
  (meter: Meter, span: Span, exceeded: Exceeded, fail: typeof failWith, message: Eval): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    throw fail(message() as string, span);
  };

const ifThen =
  (meter: Meter, span: Span, exceeded: Exceeded, condition: Eval, then: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    return condition() ? then() : undefined;
  };

const ifThenElse =
  (meter: Meter, span: Span, exceeded: Exceeded, condition: Eval, then: Exec, otherwise: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    return condition() ? then() : otherwise();
  };

const ifTwo =
  (meter: Meter, span: Span, exceeded: Exceeded, c0: Eval, b0: Exec, c1: Eval, b1: Exec, rest: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    if (c0()) return b0();
    if (c1()) return b1();
    return rest();
  };

const ifThree =
  (meter: Meter, span: Span, exceeded: Exceeded, c0: Eval, b0: Exec, c1: Eval, b1: Exec, c2: Eval, b2: Exec, rest: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    if (c0()) return b0();
    if (c1()) return b1();
    if (c2()) return b2();
    return rest();
  };

const ifMany =
  (meter: Meter, span: Span, exceeded: Exceeded, conditions: Eval[], bodies: Exec[], rest: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    for (let i = 0; i < conditions.length; i++) {
      if (conditions[i]!()) return bodies[i]!();
    }
    return rest();
  };

const matchTable =
  (meter: Meter, span: Span, exceeded: Exceeded, subject: Eval, table: Exec[]): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    return table[subject() as number]!();
  };

const matchLinear =
  (meter: Meter, span: Span, exceeded: Exceeded, subject: Eval, keys: unknown[], bodies: Exec[], fallback: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    const value = subject();
    for (let i = 0; i < keys.length; i++) if (keys[i] === value) return bodies[i]!();
    return fallback();
  };

const matchMap =
  (meter: Meter, span: Span, exceeded: Exceeded, subject: Eval, table: Map<unknown, Exec>, fallback: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    return (table.get(subject()) ?? fallback)();
  };

const forEach =
  (meter: Meter, span: Span, exceeded: Exceeded, frame: unknown[], slot: number, iterable: Eval, body: Exec): Exec =>
  () => {
    if (--meter.left < 0) throw exceeded(meter, span);
    const items = iterable() as unknown[];
    for (let i = 0; i < items.length; i++) {
      if (--meter.left < 0) throw exceeded(meter, span);
      frame[slot] = items[i];
      const r = body();
      if (r !== undefined) return r;
    }
    return undefined;
  };

const blockMany =
  (code: Exec[]): Exec =>
  () => {
    for (let i = 0; i < code.length; i++) {
      const r = code[i]!();
      if (r !== undefined) return r;
    }
    return undefined;
  };

// ---------- compilation ----------

export function compileBlock(ctx: CompileContext, statements: readonly Statement[]): Exec {
  const code = statements.map((s) => compileStatement(ctx, s));
  switch (code.length) {
    case 0:
      return NOTHING;
    case 1:
      return code[0]!;
    case 2:
      return block2(code[0]!, code[1]!);
    case 3:
      return block3(code[0]!, code[1]!, code[2]!);
    case 4:
      return block4(code[0]!, code[1]!, code[2]!, code[3]!);
    default:
      // Longer blocks run as a chain of four-statement blocks, keeping each call site small.
      if (code.length <= 8) return blockMany(code);
      return block2(blockMany(code.slice(0, 4)), compileChunked(ctx, code.slice(4)));
  }
}

function compileChunked(ctx: CompileContext, code: Exec[]): Exec {
  if (code.length <= 4) return code.length === 1 ? code[0]! : blockMany(code);
  return block2(blockMany(code.slice(0, 4)), compileChunked(ctx, code.slice(4)));
}

function compileStatement(ctx: CompileContext, statement: Statement): Exec {
  const meter = ctx.meter;
  const span = statement.span;
  switch (statement.kind) {
    case 'Let': {
      const resolution = resolutionOf(ctx, statement.id);
      if (resolution.kind !== 'slot') throw new Error('`Let` without a slot');
      const slot = resolution.slot;
      const frame = ctx.frame;
      const operand = operandOf(ctx, statement.value);
      switch (operand.kind) {
        case 'const': {
          const c = operand.value;
          return () => {
            if (--meter.left < 0) throw budgetExceeded(meter, span);
            frame[slot] = c;
            return undefined;
          };
        }
        case 'slot': {
          const from = operand.slot;
          return () => {
            if (--meter.left < 0) throw budgetExceeded(meter, span);
            frame[slot] = frame[from];
            return undefined;
          };
        }
        case 'field': {
          const from = operand.slot;
          const index = operand.index;
          return () => {
            if (--meter.left < 0) throw budgetExceeded(meter, span);
            frame[slot] = (frame[from] as unknown[])[index];
            return undefined;
          };
        }
        case 'eval':
          return letValue(meter, span, budgetExceeded, frame, slot, operand.eval);
      }
    }
    // eslint-disable-next-line no-fallthrough
    case 'Return': {
      const value = compileExpr(ctx, statement.value);
      if (ctx.trace) {
        const sink = ctx.trace.sink;
        const rule = ctx.rule.name;
        const text = ctx.trace.textOf(statement.value);
        const valueSpan = statement.value.span;
        const toJson = ctx.trace.toJson(typeOf(ctx, statement.value));
        return () => {
          if (--meter.left < 0) throw budgetExceeded(meter, span);
          const result = value();
          sink.push({ kind: 'return', rule, text, span: valueSpan, value: toJson(result) });
          return result;
        };
      }
      const literal = literalValue(statement.value);
      if (literal !== undefined) {
        return () => {
          if (--meter.left < 0) throw budgetExceeded(meter, span);
          return literal;
        };
      }
      return returnValue(meter, span, budgetExceeded, value);
    }
    case 'Fail': {
      const message = compileExpr(ctx, statement.message);
      if (ctx.trace) {
        const sink = ctx.trace.sink;
        const rule = ctx.rule.name;
        const text = ctx.trace.textOf(statement.message);
        const messageSpan = statement.message.span;
        const toJson = ctx.trace.toJson(typeOf(ctx, statement.message));
        return () => {
          if (--meter.left < 0) throw budgetExceeded(meter, span);
          const value = message() as string;
          sink.push({ kind: 'fail', rule, text, span: messageSpan, value: toJson(value) });
          throw failWith(value, span);
        };
      }
      return failMessage(meter, span, budgetExceeded, failWith, message);
    }
    case 'If':
      return ctx.trace ? compileTracedIf(ctx, statement) : compileIf(ctx, statement);
    case 'Match':
      return compileMatch(ctx, statement);
    case 'ForEach':
      return compileForEach(ctx, statement);
  }
}

function compileIf(ctx: CompileContext, statement: IfStmt): Exec {
  const { meter } = ctx;
  const span = statement.span;
  const conditions = statement.branches.map((b) => compileExpr(ctx, b.condition));
  const bodies = statement.branches.map((b) => compileBlock(ctx, b.body));
  const otherwise = statement.otherwise ? compileBlock(ctx, statement.otherwise) : null;
  const rest = otherwise ?? NOTHING;
  switch (conditions.length) {
    case 1:
      if (otherwise === null) return ifThen(meter, span, budgetExceeded, conditions[0]!, bodies[0]!);
      return ifThenElse(meter, span, budgetExceeded, conditions[0]!, bodies[0]!, otherwise);
    case 2:
      return ifTwo(meter, span, budgetExceeded, conditions[0]!, bodies[0]!, conditions[1]!, bodies[1]!, rest);
    case 3:
      return ifThree(meter, span, budgetExceeded, conditions[0]!, bodies[0]!, conditions[1]!, bodies[1]!, conditions[2]!, bodies[2]!, rest);
    default:
      return ifMany(meter, span, budgetExceeded, conditions, bodies, rest);
  }
}

/** Records every condition evaluated; the one that decided also names the branch taken. */
function compileTracedIf(ctx: CompileContext, statement: IfStmt): Exec {
  const trace = ctx.trace!;
  const meter = ctx.meter;
  const span = statement.span;
  const sink = trace.sink;
  const rule = ctx.rule.name;
  const branches = statement.branches.map((b, i) => ({
    condition: compileExpr(ctx, b.condition),
    body: compileBlock(ctx, b.body),
    text: trace.textOf(b.condition),
    span: b.condition.span,
    label: i === 0 ? 'then' : `otherwise if #${i}`,
  }));
  const otherwise = statement.otherwise ? compileBlock(ctx, statement.otherwise) : null;
  return () => {
    if (--meter.left < 0) throw budgetExceeded(meter, span);
    let last: TraceEntry | null = null;
    for (const branch of branches) {
      const value = branch.condition() as boolean;
      last = { kind: 'if', rule, text: branch.text, span: branch.span, value };
      // Named before recording, so the trace's size counts the branch.
      if (value) last.branch = branch.label;
      sink.push(last);
      if (value) return branch.body();
    }
    if (last) last.branch = otherwise ? 'otherwise' : 'none';
    return otherwise ? otherwise() : undefined;
  };
}

function compileMatch(ctx: CompileContext, statement: MatchStmt): Exec {
  const { meter } = ctx;
  const span = statement.span;
  const subject = compileExpr(ctx, statement.subject);
  const subjectType = typeOf(ctx, statement.subject);
  const otherwise = statement.otherwise ? compileBlock(ctx, statement.otherwise) : null;
  const fallback = otherwise ?? NOTHING;
  const cases = statement.cases.map((c) => ({ node: c, body: compileBlock(ctx, c.body) }));

  // Which body runs for a subject value; the plain tree dispatches inline, the traced one
  // asks this and records the choice.
  let select: (value: unknown) => Exec;
  if (subjectType.kind === 'Enum') {
    const size = ctx.env.enums.get(subjectType.name)!.variants.length;
    const table: Exec[] = [];
    for (let i = 0; i < size; i++) table.push(fallback);
    for (const c of cases) {
      for (const pattern of c.node.patterns) {
        const resolution = resolutionOf(ctx, pattern.id);
        if (resolution.kind !== 'variant') throw new Error('variant pattern without index');
        table[resolution.index] = c.body;
      }
    }
    if (!ctx.trace) return matchTable(meter, span, budgetExceeded, subject, table);
    select = (value) => table[value as number]!;
  } else {
    const keys: unknown[] = [];
    const bodies: Exec[] = [];
    for (const c of cases) {
      for (const pattern of c.node.patterns) {
        if (pattern.kind === 'VariantPattern') throw new Error('variant pattern on a scalar match');
        keys.push(pattern.value);
        bodies.push(c.body);
      }
    }
    if (keys.length <= LINEAR_MATCH_LIMIT) {
      if (!ctx.trace) return matchLinear(meter, span, budgetExceeded, subject, keys, bodies, fallback);
      select = (value) => {
        for (let i = 0; i < keys.length; i++) if (keys[i] === value) return bodies[i]!;
        return fallback;
      };
    } else {
      const table = new Map<unknown, Exec>();
      keys.forEach((key, i) => table.set(key, bodies[i]!));
      if (!ctx.trace) return matchMap(meter, span, budgetExceeded, subject, table, fallback);
      select = (value) => table.get(value) ?? fallback;
    }
  }

  const trace = ctx.trace!;
  const labels = new Map<Exec, string>();
  for (const c of cases) {
    const first = c.node.patterns[0]!;
    const last = c.node.patterns[c.node.patterns.length - 1]!;
    labels.set(c.body, trace.textOf({ ...first, span: { ...first.span, end: last.span.end } }));
  }
  const labelOf = (body: Exec): string => labels.get(body) ?? (body === otherwise ? 'otherwise' : 'none');
  const sink = trace.sink;
  const rule = ctx.rule.name;
  const text = trace.textOf(statement.subject);
  const subjectSpan = statement.subject.span;
  const toJson = trace.toJson(subjectType);
  return () => {
    if (--meter.left < 0) throw budgetExceeded(meter, span);
    const value = subject();
    const body = select(value);
    sink.push({ kind: 'match', rule, text, span: subjectSpan, value: toJson(value), branch: labelOf(body) });
    return body();
  };
}

function compileForEach(ctx: CompileContext, statement: ForEachStmt): Exec {
  const resolution = resolutionOf(ctx, statement.id);
  if (resolution.kind !== 'slot') throw new Error('`For each` without a slot');
  const iterable = compileExpr(ctx, statement.iterable);
  const body = compileBlock(ctx, statement.body);
  return forEach(ctx.meter, statement.span, budgetExceeded, ctx.frame, resolution.slot, iterable, body);
}
