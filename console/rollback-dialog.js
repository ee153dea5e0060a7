// The confirmation step of a rollback, naming what changes. The server refuses the rollback to
// anyone below ADMIN in any case.
import { confirmAction } from './confirm-dialog.js';
import { h } from './dom.js';

/** Resolves with the rollback's answer, or null when the operator cancelled; rejects with its failure. */
export function confirmRollback({ api, policyModule, version, activeVersion }) {
  return confirmAction({
    labelledBy: 'rollback-title',
    describedBy: 'rollback-consequence',
    content: [
      h('h2', { id: 'rollback-title' }, `Roll back ${policyModule}?`),
      h(
        'p',
        { id: 'rollback-consequence' },
        `Version ${version} becomes the active version: evaluations that name no version use it from now on.`,
        activeVersion === null ? '' : ` Version ${activeVersion} stays stored and can be made active again.`,
        ' The rollback is recorded in the audit chain.',
      ),
    ],
    confirmLabel: `Roll back to version ${version}`,
    busyLabel: 'Rolling back…',
    act: () => api.rollback(policyModule, version),
  });
}
