// The console's sections, linked from the top bar; the one being shown is marked as the current
// page for screen readers (and underlined).
import { h } from './dom.js';

const SECTIONS = [
  { label: 'Anomalies', href: '#/anomalies', paths: /^\/anomalies(\/|$)|^$/ },
  { label: 'Policies', href: '#/policies', paths: /^\/policies(\/|$)/ },
  { label: 'Playground', href: '#/playground', paths: /^\/playground$/ },
  { label: 'Audit chain', href: '#/audit', paths: /^\/audit$/ },
  { label: 'Workflows', href: '#/workflows', paths: /^\/workflows(\/|$)/ },
  { label: 'Webhooks', href: '#/webhooks', paths: /^\/webhooks(\/|$)/ },
];

export function sectionNav() {
  const path = window.location.hash.replace(/^#/, '').split('?')[0];
  return h(
    'nav',
    { className: 'section-nav', 'aria-label': 'Sections' },
    h('ul', {}, SECTIONS.map((section) => h('li', {}, h('a', { href: section.href, 'aria-current': section.paths.test(path) ? 'page' : null }, section.label)))),
  );
}
