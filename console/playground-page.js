// The playground's page (#/playground). The editor and its modules load only here: the page shows
// its heading at once and the rest when they have arrived.
import { h, replaceChildren } from './dom.js';

export const PLAYGROUND_PATH = '/playground';

/** The page, and `dispose` for leaving it (the editor stops checking). */
export function playgroundPage({ client, session }) {
  const heading = () => h('h1', { id: 'page-title', tabindex: '-1' }, 'Playground');
  const element = h('div', {}, heading(), h('p', { className: 'loading' }, 'Loading the editor…'));
  let left = false;
  let view = null;
  import('./playground-view.js').then(
    ({ playgroundView }) => {
      if (left) return;
      const focused = document.activeElement?.id === 'page-title';
      view = playgroundView({ client, session });
      replaceChildren(element, view.element);
      if (focused) element.querySelector('h1')?.focus();
    },
    (loadError) => replaceChildren(element, heading(), h('p', { className: 'form-error', role: 'alert' }, `The editor could not be loaded: ${loadError.message}`)),
  );
  const dispose = () => {
    left = true;
    view?.dispose();
  };
  return { title: 'Playground', element, dispose };
}
