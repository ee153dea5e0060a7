// The choice of two versions of a module to compare; submitting opens their differences.
import { h } from './dom.js';
import { policyDiffHref } from './policy-routes.js';

function versionSelect(id, label, versions, selected) {
  return h(
    'div',
    { className: 'field' },
    h('label', { for: id }, label),
    h('select', { id, name: id }, versions.map((one) => h('option', { value: one.version, selected: one.version === selected }, `version ${one.version}`))),
  );
}

export function versionCompareForm(policyModule, versions, from, to) {
  const fromField = versionSelect('diff-from', 'Compare version', versions, from);
  const toField = versionSelect('diff-to', 'with version', versions, to);
  return h(
    'form',
    {
      className: 'filters compare-form',
      'aria-label': 'Compare two versions',
      onSubmit: (event) => {
        event.preventDefault();
        window.location.hash = policyDiffHref(policyModule, fromField.querySelector('select').value, toField.querySelector('select').value);
      },
    },
    fromField,
    toField,
    h('button', { type: 'submit', className: 'secondary' }, 'Show the differences'),
  );
}
