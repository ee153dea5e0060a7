// Resolve, dismiss and reopen, and the verification the recommended actions start (role ADMIN;
// the server refuses lower roles too). Each request carries its own Idempotency-Key. After verify
// the panel watches the anomaly until its job ends VERIFYING with RESOLVED or OPEN.
import { TRIAGE_MOVES } from './anomaly-api.js';
import { announce, h, replaceChildren } from './dom.js';
import { verificationFinding } from './verification-words.js';

const ACTION_LABELS = { RESOLVED: 'Resolve', DISMISSED: 'Dismiss', OPEN: 'Reopen' };
const FIRST_POLL_MS = 1000;
const LONGEST_POLL_MS = 10_000;

/**
 * `onChanged(detail)` redraws the page with the anomaly as the server now has it; the answer's
 * `verify()` starts a verification (offered among the recommended actions).
 */
export function triagePanel({ api, anomaly, onChanged }) {
  const message = h('p', { className: 'triage-message', role: 'status', 'aria-live': 'polite' });
  const note = h('textarea', { id: 'triage-note', name: 'note', rows: 3, maxlength: 2000, 'aria-describedby': 'triage-note-help' });
  const buttons = h('div', { className: 'actions' });
  const panel = h(
    'section',
    { className: 'panel triage', 'aria-labelledby': 'triage-title' },
    h('h2', { id: 'triage-title' }, 'Triage'),
    h('div', { className: 'field' }, h('label', { for: 'triage-note' }, 'Note'), note, h('p', { id: 'triage-note-help', className: 'help' }, 'Kept with the status change in the audit record (optional, up to 2,000 characters).')),
    buttons,
    message,
  );

  const busy = (isBusy) => {
    for (const button of buttons.querySelectorAll('button')) button.disabled = isBusy;
    panel.setAttribute('aria-busy', String(isBusy));
  };
  const failed = (failure) => {
    busy(false);
    message.className = 'triage-message form-error';
    message.textContent = failure.code ? `${failure.code}: ${failure.message}` : failure.message;
  };

  const watchVerification = async (delay = FIRST_POLL_MS) => {
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (!panel.isConnected) return; // the operator left the page
    try {
      const detail = await api.detail(anomaly.id);
      if (detail.status === 'VERIFYING') return watchVerification(Math.min(delay * 1.5, LONGEST_POLL_MS));
      const finding = detail.lastVerification ? ` ${verificationFinding(detail.lastVerification)}` : ` The anomaly is ${detail.status.toLowerCase()}.`;
      announce(`Verification finished.${finding}`);
      onChanged(detail, `Verification finished.${finding}`);
    } catch (failure) {
      failed(failure);
    }
  };

  const verify = async () => {
    busy(true);
    message.className = 'triage-message';
    message.textContent = 'Starting a verification…';
    try {
      await api.verify(anomaly.id);
      // The redrawn panel (status VERIFYING) watches the job.
      onChanged({ ...anomaly, status: 'VERIFYING' }, 'Verifying: the job re-assesses the rule on the latest window.');
    } catch (failure) {
      failed(failure);
    }
  };

  const changeStatus = async (status) => {
    busy(true);
    message.className = 'triage-message';
    message.textContent = `${ACTION_LABELS[status]}…`;
    try {
      const detail = await api.changeStatus(anomaly.id, status, note.value.trim());
      announce(`Status is now ${detail.status}`);
      onChanged(detail, `Status is now ${detail.status}.`);
    } catch (failure) {
      failed(failure);
    }
  };

  const moves = TRIAGE_MOVES[anomaly.status] ?? [];
  if (anomaly.status === 'VERIFYING') {
    note.disabled = true;
    replaceChildren(buttons, h('p', { className: 'help' }, 'A verification is running; the status changes when its job ends.'));
    void watchVerification();
  } else {
    replaceChildren(
      buttons,
      moves.map((status) => h('button', { type: 'button', className: status === 'DISMISSED' ? 'quiet' : 'secondary', onClick: () => changeStatus(status) }, ACTION_LABELS[status])),
    );
  }
  return { element: panel, message, verify };
}
