// Open a workflow by a pasted id (from the start request's answer, or from the audit chain, whose
// step evaluations name their workflow as actor `workflow:<id>`): a small form below the list.
import { h } from './dom.js';
import { workflowHref } from './workflow-routes.js';

export function workflowLookupForm() {
  const error = h('p', { id: 'workflow-id-error', className: 'form-error', role: 'alert' });
  const input = h('input', { id: 'workflow-id', name: 'workflowId', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'workflow-id-error' });
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
    error,
    h('button', { type: 'submit', className: 'secondary' }, 'Open'),
  );
  return h('section', { className: 'lookup', 'aria-labelledby': 'lookup-title' }, h('h2', { id: 'lookup-title' }, 'Open a workflow by id'), form);
}
