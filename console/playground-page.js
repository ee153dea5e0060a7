// The playground's page (#/playground). The editor and its modules load only here: the page shows
// its heading at once and the rest when they have arrived.
import { h, replaceChildren } from './dom.js';

export const PLAYGROUND_PATH = '/playground';

export function playgroundPage({ client, session }) {
  const element = h('div', {}, h('h1', { id: 'page-title', tabindex: '-1' }, 'Playground'), h('p', { className: 'loading' }, 'Loading the editor…'));
  import('./playground-view.js').then(
    ({ playgroundView }) => {
      const focused = document.activeElement?.id === 'page-title';
      replaceChildren(element, playgroundView({ client, session }));
      if (focused) element.querySelector('h1')?.focus();
    },
    (loadError) => replaceChildren(element, h('h1', { id: 'page-title', tabindex: '-1' }, 'Playground'), h('p', { className: 'form-error', role: 'alert' }, `The editor could not be loaded: ${loadError.message}`)),
  );
  return { title: 'Playground', element };
}
