// The confirmation of what an operator does to a workflow: approve or reject the signal its waiting
// step awaits, or cancel it. Each names what follows; the server refuses it to anyone below MEMBER.
import { confirmAction } from './confirm-dialog.js';
import { h } from './dom.js';

function wording(action, state, signal) {
  if (action === 'approve') {
    return {
      title: `Approve step ${state.currentStep} of workflow ${state.workflow}?`,
      consequence: `Sends the signal “${signal}” with approved true: the workflow goes on with its next step.`,
      confirm: 'Approve',
      busy: 'Approving…',
      dismiss: 'Cancel',
    };
  }
  if (action === 'reject') {
    return {
      title: `Reject step ${state.currentStep} of workflow ${state.workflow}?`,
      consequence: `Sends the signal “${signal}” with approved false: the workflow completes at once with the final result false.`,
      confirm: 'Reject',
      busy: 'Rejecting…',
      dismiss: 'Cancel',
    };
  }
  return {
    title: `Cancel workflow ${state.workflow}?`,
    consequence: 'Its completed steps are compensated in reverse order, and it ends CANCELLED. This cannot be undone.',
    confirm: 'Cancel the workflow',
    busy: 'Cancelling…',
    dismiss: 'Keep it',
  };
}

/** Resolves with the workflow's state after the request, or null when the operator backed out; rejects with the failure. */
export function confirmWorkflowAction({ api, state, action, signal }) {
  const words = wording(action, state, signal);
  return confirmAction({
    labelledBy: 'workflow-action-title',
    describedBy: 'workflow-action-consequence',
    content: [h('h2', { id: 'workflow-action-title' }, words.title), h('p', { id: 'workflow-action-consequence' }, words.consequence)],
    confirmLabel: words.confirm,
    busyLabel: words.busy,
    dismissLabel: words.dismiss,
    act: () => (action === 'cancel' ? api.cancel(state.workflowId) : api.signal(state.workflowId, signal, action === 'approve')),
  });
}
