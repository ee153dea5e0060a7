/**
 * Support for the traced closure tree: the source text of a node and JSON conversion of values,
 * both prepared at compile time so recording an entry costs one push.
 */
import type { Node } from '../ast/nodes.js';
import type { ValueType } from '../checker/types.js';
import { createOutputConversion, type OutputConversion } from '../runtime/output-conversion.js';
import type { TypeEnvironment } from '../runtime/type-environment.js';
import { createJsonSize } from '../runtime/json-size.js';
import type { TraceSink } from '../runtime/trace-sink.js';

export class TraceRecorder {
  constructor(
    readonly sink: TraceSink,
    private readonly source: string,
    private readonly env: TypeEnvironment,
  ) {}

  /** The node's text exactly as written. */
  textOf(node: Node): string {
    return this.source.slice(node.span.start, node.span.end);
  }

  /** Converts values of the type for entries, charging the sink (see trace-sink.ts). */
  toJson(type: ValueType): OutputConversion {
    const sink = this.sink;
    const size = createJsonSize(type, this.env);
    const convert = createOutputConversion(type, this.env);
    return (value) => sink.value(size, convert, value);
  }
}
