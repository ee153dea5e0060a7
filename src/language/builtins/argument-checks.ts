/**
 * The argument tests type rules of built-ins share; each reports a PL2006 at the argument that
 * does not fit.
 */
import type { CallExpr } from '../ast/nodes.js';
import type { Reporter } from '../checker/reporter.js';
import { assignable, ERROR, prune, TEXT, type Type, typeToString } from '../checker/types.js';
import { TypeMismatch } from '../diagnostics/index.js';

export class ArgumentChecks {
  constructor(
    readonly name: string,
    readonly call: CallExpr,
    readonly types: readonly Type[],
    readonly reporter: Reporter,
  ) {}

  get count(): number {
    return this.types.length;
  }

  /** Reports that argument `index` is not what the built-in takes; returns the error type. */
  mismatch(index: number, wanted: string): Type {
    this.reporter.report(TypeMismatch.builtinArgument(index + 1, this.name, wanted, typeToString(this.types[index]!)), this.call.args[index]!.span);
    return ERROR;
  }

  /** The argument's numeric type (or the error type), or null after reporting. */
  number(index: number): Type | null {
    const t = prune(this.types[index]!);
    if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error') return t;
    this.mismatch(index, 'a number (`Int` or `Float`)');
    return null;
  }

  text(index: number): boolean {
    if (assignable(this.types[index]!, TEXT)) return true;
    this.mismatch(index, '`Text`');
    return false;
  }

  /** The element type of a list argument, or null after reporting. */
  list(index: number): Type | null {
    const t = prune(this.types[index]!);
    if (t.kind === 'List') return t.element;
    if (t.kind === 'Error') return ERROR;
    this.mismatch(index, 'a list');
    return null;
  }
}
