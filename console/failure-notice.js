// What a failed call looks like on a page: the service's own message, and for a 403 why.
import { h } from './dom.js';

/** `forbiddenWhy` completes the 403 sentence: who may see what the page shows. */
export function failureNotice(failure, session, forbiddenWhy = 'anomalies are for administrators (role ADMIN or OWNER).') {
  const forbidden = failure.status === 403;
  return h(
    'div',
    { className: 'notice notice-error', role: 'alert' },
    h('p', {}, forbidden ? `Your role (${session.role}) may not see this: ${forbiddenWhy}` : 'The service refused the request.'),
    h('p', { className: 'detail' }, failure.code ? `${failure.code}: ${failure.message}` : failure.message),
  );
}
