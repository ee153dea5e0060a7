// The choice of two versions of a module to compare; submitting opens their differences.
import { h } from './dom.js';
import { policyDiffHref } from './policy-routes.js';

function versionField(id, label, value) {
  return h(
    'div',
    { className: 'field' },
    h('label', { for: id }, label),
    h('input', { id, name: id, type: 'number', min: 0, step: 1, required: true, inputmode: 'numeric', value: value ?? '' }),
  );
}

export function versionCompareForm(policyModule, from, to) {
  const fromField = versionField('diff-from', 'Compare version', from);
  const toField = versionField('diff-to', 'with version', to);
  return h(
    'form',
    {
      className: 'filters compare-form',
      'aria-label': 'Compare two versions',
      onSubmit: (event) => {
        event.preventDefault();
        window.location.hash = policyDiffHref(policyModule, fromField.querySelector('input').value, toField.querySelector('input').value);
      },
    },
    fromField,
    toField,
    h('button', { type: 'submit', className: 'secondary' }, 'Show the differences'),
  );
}
