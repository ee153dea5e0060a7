// Policy source as numbered, highlighted lines. Long lines wrap instead of scrolling sideways, so
// a phone never needs to scroll horizontally; the numbers come from CSS and are not copied with the text.
import { h } from './dom.js';
import { highlightedLine } from './policy-highlight.js';

export function sourceBlock(source, locale, label) {
  const lines = source.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return h(
    'pre',
    { className: 'source', 'aria-label': label, tabindex: '0', lang: locale },
    lines.map((line) => h('span', { className: 'source-line' }, highlightedLine(line, locale), '\n')),
  );
}
