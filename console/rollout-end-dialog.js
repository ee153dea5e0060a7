// The confirmation of a promote or an abort: a modal dialog naming what changes, with an optional
// reason kept in the audit record. Cancel has the focus first, so Enter alone never ends a
// rollout; Escape closes it as Cancel does. The server refuses both to anyone below ADMIN anyway.
import { h } from './dom.js';

const REASON_MAX = 500;

function wording(rollout, step) {
  if (step === 'promote') {
    return {
      title: `Promote version ${rollout.version} of ${rollout.policyModule}?`,
      consequence: `Version ${rollout.version} becomes the active version and answers every evaluation; version ${rollout.stableVersion} stays stored and can be rolled back to.`,
      confirm: `Promote version ${rollout.version}`,
      busy: 'Promoting…',
    };
  }
  return {
    title: `Abort the rollout of ${rollout.policyModule}?`,
    consequence: `Version ${rollout.stableVersion} answers every evaluation again; version ${rollout.version} stays stored but answers nothing.`,
    confirm: 'Abort the rollout',
    busy: 'Aborting…',
  };
}

/** Resolves with the ended rollout, or null when the operator cancelled; rejects with the failure. */
export function confirmEndRollout({ api, rollout, step }) {
  return new Promise((resolve, reject) => {
    const words = wording(rollout, step);
    const cancel = h('button', { type: 'button', className: 'quiet' }, 'Cancel');
    const confirm = h('button', { type: 'button', className: 'primary' }, words.confirm);
    const reason = h('textarea', { id: 'rollout-reason', name: 'reason', rows: 3, maxlength: REASON_MAX, 'aria-describedby': 'rollout-reason-help' });
    const dialog = h(
      'dialog',
      { className: 'confirm-dialog', 'aria-labelledby': 'rollout-end-title', 'aria-describedby': 'rollout-end-consequence' },
      h('h2', { id: 'rollout-end-title' }, words.title),
      h('p', { id: 'rollout-end-consequence' }, words.consequence, ' It is recorded in the audit chain.'),
      h(
        'div',
        { className: 'field' },
        h('label', { for: 'rollout-reason' }, 'Reason'),
        reason,
        h('p', { id: 'rollout-reason-help', className: 'help' }, `Optional, up to ${REASON_MAX} characters; kept with the rollout and its audit record.`),
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
      reason.disabled = true;
      confirm.textContent = words.busy;
      try {
        const answer = await api.endRollout(rollout.policyModule, step, reason.value.trim());
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
