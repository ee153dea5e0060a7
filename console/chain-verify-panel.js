// Verify the tenant's audit chain (GET /api/v1/audit/verify): valid, how many records were
// checked, the head, or the first invalid seq and why. The endpoint answers once, at the end, with
// no progress on the way, so a long chain shows an indeterminate progress bar meanwhile.
import { announce, h, replaceChildren } from './dom.js';

function facts(entries) {
  return h('dl', { className: 'facts' }, entries.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))));
}

function verdict(result) {
  const badge = h('span', { className: `badge ${result.valid ? 'chain-valid' : 'chain-broken'}`, 'data-testid': 'chain-verdict' }, result.valid ? 'valid' : 'broken');
  const common = [
    ['Verdict', badge],
    ['Records checked', h('span', { 'data-testid': 'chain-checked' }, result.checked.toLocaleString('en-US'))],
    ['Head seq', result.headSeq === 0 ? 'none (empty chain)' : String(result.headSeq)],
    ['Head hash', result.headHash ? h('code', {}, result.headHash) : '—'],
  ];
  if (result.valid) return facts(common);
  return facts([...common, ['First invalid seq', String(result.firstInvalidSeq)], ['Reason', result.reason ?? '—']]);
}

export function chainVerifyPanel({ api }) {
  const outcome = h('div', { className: 'verify-outcome', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', className: 'primary', 'aria-describedby': 'verify-help' }, 'Verify the chain');
  const panel = h(
    'section',
    { className: 'panel chain-verify', 'aria-labelledby': 'verify-title' },
    h('h2', { id: 'verify-title' }, 'Chain integrity'),
    h('p', { id: 'verify-help', className: 'help' }, 'Recomputes every record\'s hash and link from seq 1 to the head. The service reports only the result, so a long chain shows a bar without a percentage while it runs.'),
    button,
    outcome,
  );

  button.addEventListener('click', async () => {
    button.disabled = true;
    panel.setAttribute('aria-busy', 'true');
    replaceChildren(outcome, h('label', { for: 'verify-progress' }, 'Verifying the chain…'), h('progress', { id: 'verify-progress', className: 'verify-progress' }));
    try {
      const result = await api.verify();
      replaceChildren(outcome, verdict(result));
      announce(result.valid ? `The chain is valid: ${result.checked} records checked.` : `The chain is broken at seq ${result.firstInvalidSeq}.`);
    } catch (failure) {
      replaceChildren(outcome, h('p', { className: 'form-error' }, failure.code ? `${failure.code}: ${failure.message}` : failure.message));
    } finally {
      button.disabled = false;
      panel.setAttribute('aria-busy', 'false');
    }
  });
  return panel;
}
