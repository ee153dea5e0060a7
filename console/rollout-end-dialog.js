// The confirmation of a promote or an abort, naming what changes, with an optional reason kept in
// the audit record. The server refuses both to anyone below ADMIN anyway.
import { confirmAction } from './confirm-dialog.js';
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
  const words = wording(rollout, step);
  const reason = h('textarea', { id: 'rollout-reason', name: 'reason', rows: 3, maxlength: REASON_MAX, 'aria-describedby': 'rollout-reason-help' });
  return confirmAction({
    labelledBy: 'rollout-end-title',
    describedBy: 'rollout-end-consequence',
    content: [
      h('h2', { id: 'rollout-end-title' }, words.title),
      h('p', { id: 'rollout-end-consequence' }, words.consequence, ' It is recorded in the audit chain.'),
      h(
        'div',
        { className: 'field' },
        h('label', { for: 'rollout-reason' }, 'Reason'),
        reason,
        h('p', { id: 'rollout-reason-help', className: 'help' }, `Optional, up to ${REASON_MAX} characters; kept with the rollout and its audit record.`),
      ),
    ],
    confirmLabel: words.confirm,
    busyLabel: words.busy,
    fields: [reason],
    act: () => api.endRollout(rollout.policyModule, step, reason.value.trim()),
  });
}
