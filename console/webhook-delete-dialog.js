// The confirmation step of a subscription's deletion, naming what goes with it.
import { confirmAction } from './confirm-dialog.js';
import { h } from './dom.js';

/** Resolves with true once deleted, or null when the operator cancelled; rejects with the failure. */
export function confirmWebhookDeletion({ api, subscription }) {
  return confirmAction({
    labelledBy: 'delete-webhook-title',
    describedBy: 'delete-webhook-consequence',
    content: [
      h('h2', { id: 'delete-webhook-title' }, 'Delete this subscription?'),
      h(
        'p',
        { id: 'delete-webhook-consequence' },
        `No more events go to ${subscription.url}, and its deliveries are deleted with it. An attempt already under way may still arrive.`,
      ),
    ],
    confirmLabel: 'Delete subscription',
    busyLabel: 'Deleting…',
    act: async () => {
      await api.remove(subscription.id);
      return true;
    },
  });
}
