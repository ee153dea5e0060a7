// Sign-in: paste a bearer token (for example from `npm run -s token -- --tenant acme --role ADMIN`).
import { h } from './dom.js';
import { sessionOf, startSession } from './session.js';

export function signInView({ notice, onSignedIn }) {
  const error = h('p', { id: 'sign-in-error', className: 'form-error', role: 'alert' }, notice ?? '');
  const input = h('textarea', {
    id: 'token-input',
    name: 'token',
    rows: 5,
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'token-help sign-in-error',
  });
  const form = h(
    'form',
    {
      className: 'sign-in-form',
      novalidate: true,
      onSubmit: (event) => {
        event.preventDefault();
        const session = sessionOf(input.value.trim());
        if (session instanceof Error) {
          error.textContent = input.value.trim() === '' ? 'Paste a bearer token first.' : session.message;
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        startSession(session);
        onSignedIn(session);
      },
    },
    h('label', { for: 'token-input' }, 'Bearer token'),
    input,
    h(
      'p',
      { id: 'token-help', className: 'help' },
      'Mint one with ',
      h('code', {}, 'npm run -s token -- --tenant acme --role ADMIN'),
      '. It stays in this browser tab only (session storage) and is sent to this service alone; every request is checked by the service.',
    ),
    error,
    h('button', { type: 'submit', className: 'primary' }, 'Sign in'),
  );
  return h('section', { className: 'sign-in', 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title', tabindex: '-1' }, 'Sign in'), form);
}
