/** What lies under a position of an analysed document: the word, the nodes around it, the types in reach. */
import type { Node } from '../language/index.js';
import type { SourceWord } from './analysis.js';
import type { AnalysedDocument } from './document-store.js';
import type { TypeScope } from './expression-types.js';
import { nodePathAt, ruleAt, wordAt } from './module-outline.js';

export interface PositionContext {
  readonly word: SourceWord;
  /** The innermost node around the word. */
  readonly node: Node;
  /** The node around it, if any. */
  readonly parent: Node | undefined;
  readonly scope: TypeScope;
}

export function positionContext(analysed: AnalysedDocument, offset: number): PositionContext | undefined {
  const { analysis, typed } = analysed;
  const word = wordAt(analysis.words, offset);
  if (word === undefined || analysis.module === null) return undefined;
  const path = nodePathAt(analysis.module, word.start);
  return {
    word,
    node: path[path.length - 1]!,
    parent: path[path.length - 2],
    scope: { module: analysis.module, rule: ruleAt(analysis.module, word.start), typed, types: analysis.types },
  };
}
