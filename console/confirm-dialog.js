// A modal confirmation of one action: Cancel has the focus first, so Enter alone never confirms;
// Escape closes it as Cancel does, except while the action is under way (that would hide an outcome
// that still happens); leaving the page closes it as Cancel. Its callers say what changes.
import { h } from './dom.js';

/**
 * Shows `content` (the title, the consequence, any fields) above `dismissLabel` (Cancel) and
 * `confirmLabel`; on confirm, disables the buttons and `fields`, shows `busyLabel` and runs `act`.
 * Resolves with what `act` answered, or null when cancelled; rejects with its failure.
 */
export function confirmAction({ labelledBy, describedBy, content, confirmLabel, busyLabel, dismissLabel = 'Cancel', fields = [], act }) {
  return new Promise((resolve, reject) => {
    const cancel = h('button', { type: 'button', className: 'quiet' }, dismissLabel);
    const confirm = h('button', { type: 'button', className: 'primary' }, confirmLabel);
    const dialog = h(
      'dialog',
      { className: 'confirm-dialog', 'aria-labelledby': labelledBy, 'aria-describedby': describedBy },
      ...content,
      h('div', { className: 'actions' }, cancel, confirm),
    );
    let settled = false;
    let busy = false;
    dialog.addEventListener('cancel', (event) => {
      if (busy) event.preventDefault();
    });
    const finish = (outcome) => {
      settled = true;
      dialog.close();
      dialog.remove();
      outcome();
    };
    cancel.addEventListener('click', () => finish(() => resolve(null)));
    dialog.addEventListener('close', () => {
      if (!settled) finish(() => resolve(null));
    });
    confirm.addEventListener('click', async () => {
      busy = true;
      for (const control of [confirm, cancel, ...fields]) control.disabled = true;
      confirm.textContent = busyLabel;
      try {
        const answer = await act();
        finish(() => resolve(answer));
      } catch (failure) {
        finish(() => reject(failure));
      }
    });
    // The dialog lives outside <main>: leaving the page (Back, a bookmark) closes it as Cancel.
    window.addEventListener('hashchange', () => dialog.open && !busy && dialog.close(), { once: true });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
