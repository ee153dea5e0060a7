/**
 * Where a traced closure tree records its entries, within `maxTraceBytes`. Each entry is charged
 * as it is recorded: its value exactly (measured before it is converted, so an oversized value is
 * never built), its texts exactly, and ENTRY_OVERHEAD bytes for its keys, span and Bool value.
 * Passing the limit stops the evaluation with PL4007.
 */
import type { JsonValue, TraceEntry } from '../api-types.js';
import { textSize, TOO_DEEP, type JsonSize } from './json-size.js';
import type { OutputConversion } from './output-conversion.js';
import { DEFAULT_MAX_TRACE_BYTES, traceTooLarge, valueTooDeep } from './value-limits.js';

/** Bytes an entry takes besides its value and texts: keys, punctuation, span numbers, a Bool. */
const ENTRY_OVERHEAD = 160;

export class TraceSink {
  entries: TraceEntry[] = [];
  private limit = DEFAULT_MAX_TRACE_BYTES;
  private left = DEFAULT_MAX_TRACE_BYTES;

  /** Starts the trace of one evaluation; returns its entries. */
  start(maxBytes: number): TraceEntry[] {
    this.entries = [];
    this.limit = maxBytes;
    this.left = maxBytes;
    return this.entries;
  }

  private charge(bytes: number): void {
    this.left -= bytes;
    if (this.left < 0) throw traceTooLarge(this.limit);
  }

  /** Records an entry; its value, when not a Bool, has been charged by `value`. */
  push(entry: TraceEntry): void {
    let bytes = ENTRY_OVERHEAD + textSize(entry.rule, this.left) + textSize(entry.text, this.left);
    if (entry.branch !== undefined) bytes += textSize(entry.branch, this.left);
    this.charge(bytes);
    this.entries.push(entry);
  }

  /** A value for an entry as JSON, charged before it is converted. */
  value(size: JsonSize, convert: OutputConversion, value: unknown): JsonValue {
    const bytes = size(value, this.left);
    if (bytes === TOO_DEEP) throw valueTooDeep('a value in the decision trace');
    this.charge(bytes);
    return convert(value);
  }
}
