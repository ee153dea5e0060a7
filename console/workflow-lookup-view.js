// Open a workflow by its id. The API lists no workflows: an id comes from the start request's
// answer, or from the audit chain, whose step evaluations name their workflow as actor.
import { auditHref } from './audit-routes.js';
import { h } from './dom.js';
import { workflowHref } from './workflow-routes.js';

export function workflowLookupView() {
  const error = h('p', { id: 'workflow-id-error', className: 'form-error', role: 'alert' });
  const input = h('input', { id: 'workflow-id', name: 'workflowId', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'workflow-id-help workflow-id-error' });
  const form = h(
    'form',
    {
      className: 'lookup-form',
      novalidate: true,
      onSubmit: (event) => {
        event.preventDefault();
        const id = input.value.trim();
        if (id === '') {
          error.textContent = 'Enter a workflow id first.';
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        window.location.hash = workflowHref(id);
      },
    },
    h('label', { for: 'workflow-id' }, 'Workflow id'),
    input,
    h(
      'p',
      { id: 'workflow-id-help', className: 'help' },
      'The service keeps no list of workflows to browse. The id is in the answer to ',
      h('code', {}, 'POST /api/v1/workflows'),
      '; the ',
      h('a', { href: auditHref({ type: 'POLICY_EVALUATED' }) }, 'audit chain'),
      ' links each step evaluation (actor ',
      h('code', {}, 'workflow:<id>'),
      ') to its workflow.',
    ),
    error,
    h('button', { type: 'submit', className: 'primary' }, 'Open'),
  );
  return h('section', { className: 'lookup', 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title', tabindex: '-1' }, 'Workflows'), form);
}
