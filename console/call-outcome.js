// A call behind a button: the button waits while it runs, and the element below shows what came
// back, or the service's refusal in the console's error style.
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';

/** `view(answer)` makes the shown outcome; `forbiddenWhy` completes a 403's sentence. */
export async function showCallOutcome({ button, outcome, busyText, call, view, session, forbiddenWhy }) {
  button.disabled = true;
  replaceChildren(outcome, h('p', { className: 'loading' }, busyText));
  try {
    replaceChildren(outcome, view(await call()));
  } catch (failure) {
    replaceChildren(outcome, failureNotice(failure, session, forbiddenWhy));
  } finally {
    button.disabled = false;
  }
}
