// An evaluation's decision trace as a tree of disclosures: each call into a rule opens a level
// holding what that rule decided, up to its return. <details>/<summary> make every level
// keyboard-operable (Tab to it, Enter or Space to fold) and announce whether it is open.
import { h } from './dom.js';

const json = (value) => JSON.stringify(value) ?? 'null';

/** One entry in words: what was decided, in which rule, with which value and branch. */
function entryLine(entry) {
  return [
    h('span', { className: 'trace-kind' }, entry.kind),
    ' ',
    h('code', {}, entry.text),
    ' → ',
    h('code', {}, json(entry.value)),
    entry.branch ? ` (${entry.branch})` : '',
    h('span', { className: 'trace-rule' }, ` in ${entry.rule}`),
  ];
}

/** The flat trace as nested levels: a call's level ends with its rule's return (or a failure). */
function nest(trace) {
  const root = { children: [] };
  const open = [root];
  for (const entry of trace) {
    const node = { entry, children: [] };
    open.at(-1).children.push(node);
    if (entry.kind === 'call') open.push(node);
    else if (entry.kind === 'return' && open.length > 1) open.pop();
  }
  return root.children;
}

function nodeItem(node) {
  if (node.entry.kind !== 'call') return h('li', { className: `trace-entry trace-${node.entry.kind}` }, entryLine(node.entry));
  return h('li', { className: 'trace-entry trace-call' }, h('details', { open: true }, h('summary', {}, entryLine(node.entry)), h('ol', {}, node.children.map(nodeItem))));
}

/** The trace of an evaluation of `functionName`, open at first. */
export function traceTree(trace, functionName) {
  return h(
    'details',
    { className: 'trace-tree', open: true, 'data-testid': 'trace' },
    h('summary', {}, `Decision trace of ${functionName} (${trace.length === 1 ? '1 step' : `${trace.length} steps`})`),
    trace.length === 0 ? h('p', { className: 'empty' }, 'Nothing was decided on the way.') : h('ol', {}, nest(trace).map(nodeItem)),
  );
}
