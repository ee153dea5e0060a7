// The confirmation step of a rollback: a modal dialog naming what changes. Cancel has the focus
// first, so Enter alone never rolls back; Escape closes it as Cancel does. The server refuses the
// rollback to anyone below ADMIN in any case.
import { h } from './dom.js';

/** Resolves with the rollback's answer, or null when the operator cancelled; rejects with its failure. */
export function confirmRollback({ api, policyModule, version, activeVersion }) {
  return new Promise((resolve, reject) => {
    const cancel = h('button', { type: 'button', className: 'quiet' }, 'Cancel');
    const confirm = h('button', { type: 'button', className: 'primary' }, `Roll back to version ${version}`);
    const dialog = h(
      'dialog',
      { className: 'confirm-dialog', 'aria-labelledby': 'rollback-title', 'aria-describedby': 'rollback-consequence' },
      h('h2', { id: 'rollback-title' }, `Roll back ${policyModule}?`),
      h(
        'p',
        { id: 'rollback-consequence' },
        `Version ${version} becomes the active version: evaluations that name no version use it from now on.`,
        activeVersion === null ? '' : ` Version ${activeVersion} stays stored and can be made active again.`,
        ' The rollback is recorded in the audit chain.',
      ),
      h('div', { className: 'actions' }, cancel, confirm),
    );
    let settled = false;
    let busy = false;
    // Escape while the request is under way would hide an outcome that still happens.
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
      confirm.disabled = true;
      cancel.disabled = true;
      confirm.textContent = 'Rolling back…';
      try {
        const answer = await api.rollback(policyModule, version);
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
