/** A type as a diagnostic shows it: its name, and its kind, from which conversion help is chosen. */
export interface ShownType {
  readonly name: string;
  readonly kind: string;
}

export const TEXT_SHOWN: ShownType = { name: 'Text', kind: 'Text' };

/** Help for the most common mismatches: a Float where an Int is needed, a value where a Text is. */
export function conversionHelp(from: ShownType, to: ShownType): string | undefined {
  if (from.kind === 'Float' && to.kind === 'Int') return 'use `round`, `floor` or `ceil` to turn a `Float` into an `Int`';
  if (to.kind === 'Text' && from.kind !== 'Text' && from.kind !== 'List' && from.kind !== 'Record') return 'use `text(…)` to turn a value into `Text`';
  return undefined;
}
