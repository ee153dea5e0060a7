/**
 * Statements → closures. A statement closure returns `undefined` to let the block continue, or
 * the value of a `Return` (language values are never `undefined`), so control flow needs no
 * exceptions. Each statement and each loop iteration takes one step from the meter.
 *
 * When the context carries a trace recorder, `If`, `Match`, `Return` and `Fail with` compile to
 * recording variants instead; the plain tree contains no tracing code at all.
 */
import type { ForEachStmt, IfStmt, MatchStmt, Statement } from '../ast/nodes.js';
import type { TraceEntry } from '../api-types.js';
import { EvaluationError } from '../runtime/evaluation-error.js';
import { budgetExceeded } from '../runtime/meter.js';
import type { Eval, Exec } from '../runtime/program-runtime.js';
import { resolutionOf, typeOf, type CompileContext } from './compile-context.js';
import { compileExpr, literalValue, operandOf } from './expression-compiler.js';

const NOTHING: Exec = () => undefined;

/** Beyond this many `When` values, an Int or Text `Match` dispatches through a Map. */
const LINEAR_MATCH_LIMIT = 8;

export function compileBlock(ctx: CompileContext, statements: readonly Statement[]): Exec {
  const code = statements.map((s) => compileStatement(ctx, s));
  switch (code.length) {
    case 0:
      return NOTHING;
    case 1:
      return code[0]!;
    case 2: {
      const [a, b] = code as [Exec, Exec];
      return () => {
        const r = a();
        if (r !== undefined) return r;
        return b();
      };
    }
    case 3: {
      const [a, b, c] = code as [Exec, Exec, Exec];
      return () => {
        let r = a();
        if (r !== undefined) return r;
        r = b();
        if (r !== undefined) return r;
        return c();
      };
    }
    default:
      return () => {
        for (let i = 0; i < code.length; i++) {
          const r = code[i]!();
          if (r !== undefined) return r;
        }
        return undefined;
      };
  }
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
        case 'eval': {
          const value = operand.eval;
          return () => {
            if (--meter.left < 0) throw budgetExceeded(meter, span);
            frame[slot] = value();
            return undefined;
          };
        }
      }
    }
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
          sink.entries.push({ kind: 'return', rule, text, span: valueSpan, value: toJson(result) });
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
      return () => {
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        return value();
      };
    }
    case 'Fail': {
      const message = compileExpr(ctx, statement.message);
      if (ctx.trace) {
        const sink = ctx.trace.sink;
        const rule = ctx.rule.name;
        const text = ctx.trace.textOf(statement.message);
        const messageSpan = statement.message.span;
        return () => {
          if (--meter.left < 0) throw budgetExceeded(meter, span);
          const text2 = message() as string;
          sink.entries.push({ kind: 'fail', rule, text, span: messageSpan, value: text2 });
          throw new EvaluationError('PL3004', text2, span);
        };
      }
      return () => {
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        throw new EvaluationError('PL3004', message() as string, span);
      };
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
  const meter = ctx.meter;
  const span = statement.span;
  const conditions = statement.branches.map((b) => compileExpr(ctx, b.condition));
  const bodies = statement.branches.map((b) => compileBlock(ctx, b.body));
  const otherwise = statement.otherwise ? compileBlock(ctx, statement.otherwise) : null;
  if (conditions.length === 1) {
    const condition = conditions[0]!;
    const then = bodies[0]!;
    if (otherwise === null) {
      return () => {
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        return condition() ? then() : undefined;
      };
    }
    return () => {
      if (--meter.left < 0) throw budgetExceeded(meter, span);
      return condition() ? then() : otherwise();
    };
  }
  if (conditions.length === 2) {
    const [c0, c1] = conditions as [Eval, Eval];
    const [b0, b1] = bodies as [Exec, Exec];
    const rest = otherwise ?? NOTHING;
    return () => {
      if (--meter.left < 0) throw budgetExceeded(meter, span);
      if (c0()) return b0();
      if (c1()) return b1();
      return rest();
    };
  }
  const rest = otherwise ?? NOTHING;
  return () => {
    if (--meter.left < 0) throw budgetExceeded(meter, span);
    for (let i = 0; i < conditions.length; i++) {
      if (conditions[i]!()) return bodies[i]!();
    }
    return rest();
  };
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
      sink.entries.push(last);
      if (value) {
        last.branch = branch.label;
        return branch.body();
      }
    }
    if (last) last.branch = otherwise ? 'otherwise' : 'none';
    return otherwise ? otherwise() : undefined;
  };
}

function compileMatch(ctx: CompileContext, statement: MatchStmt): Exec {
  const meter = ctx.meter;
  const span = statement.span;
  const subject = compileExpr(ctx, statement.subject);
  const subjectType = typeOf(ctx, statement.subject);
  const otherwise = statement.otherwise ? compileBlock(ctx, statement.otherwise) : null;
  const fallback = otherwise ?? NOTHING;
  const cases = statement.cases.map((c) => ({ node: c, body: compileBlock(ctx, c.body) }));

  // The dispatch returns the body to run; tracing wraps it without touching the plain path.
  let select: (value: unknown) => Exec;
  let labelOf: (body: Exec) => string;
  const labels = new Map<Exec, string>();
  if (ctx.trace) {
    const trace = ctx.trace;
    for (const c of cases) {
      const first = c.node.patterns[0]!;
      const last = c.node.patterns[c.node.patterns.length - 1]!;
      const text = trace.textOf({ ...first, span: { ...first.span, end: last.span.end } });
      labels.set(c.body, text);
    }
  }
  labelOf = (body) => labels.get(body) ?? (body === otherwise ? 'otherwise' : 'none');

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
    if (!ctx.trace) {
      return () => {
        if (--meter.left < 0) throw budgetExceeded(meter, span);
        return table[subject() as number]!();
      };
    }
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
      if (!ctx.trace) {
        return () => {
          if (--meter.left < 0) throw budgetExceeded(meter, span);
          const value = subject();
          for (let i = 0; i < keys.length; i++) if (keys[i] === value) return bodies[i]!();
          return fallback();
        };
      }
      select = (value) => {
        for (let i = 0; i < keys.length; i++) if (keys[i] === value) return bodies[i]!;
        return fallback;
      };
    } else {
      const table = new Map<unknown, Exec>();
      keys.forEach((key, i) => table.set(key, bodies[i]!));
      if (!ctx.trace) {
        return () => {
          if (--meter.left < 0) throw budgetExceeded(meter, span);
          return (table.get(subject()) ?? fallback)();
        };
      }
      select = (value) => table.get(value) ?? fallback;
    }
  }

  const trace = ctx.trace;
  const sink = trace.sink;
  const rule = ctx.rule.name;
  const text = trace.textOf(statement.subject);
  const subjectSpan = statement.subject.span;
  const toJson = trace.toJson(subjectType);
  return () => {
    if (--meter.left < 0) throw budgetExceeded(meter, span);
    const value = subject();
    const body = select(value);
    sink.entries.push({ kind: 'match', rule, text, span: subjectSpan, value: toJson(value), branch: labelOf(body) });
    return body();
  };
}

function compileForEach(ctx: CompileContext, statement: ForEachStmt): Exec {
  const meter = ctx.meter;
  const span = statement.span;
  const resolution = resolutionOf(ctx, statement.id);
  if (resolution.kind !== 'slot') throw new Error('`For each` without a slot');
  const slot = resolution.slot;
  const frame = ctx.frame;
  const iterable = compileExpr(ctx, statement.iterable);
  const body = compileBlock(ctx, statement.body);
  return () => {
    if (--meter.left < 0) throw budgetExceeded(meter, span);
    const items = iterable() as unknown[];
    for (let i = 0; i < items.length; i++) {
      if (--meter.left < 0) throw budgetExceeded(meter, span);
      frame[slot] = items[i];
      const r = body();
      if (r !== undefined) return r;
    }
    return undefined;
  };
}
