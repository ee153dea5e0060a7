// One version of a module: its facts and its source, highlighted with its locale's keywords, as
// deployed or printed by the service in another locale.
import { statusBadge } from './badges.js';
import { announce, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { versionOrNull, versionSource } from './policy-api.js';
import { canHighlight } from './policy-highlight.js';
import { policyDiffHref, policyModuleHref } from './policy-routes.js';
import { sourceBlock } from './source-block.js';
import { sourceLocaleSelect } from './source-locale-select.js';

function facts(entries) {
  return h('dl', { className: 'facts' }, entries.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))));
}

export function policySourceView({ api, session, policyModule, version }) {
  const content = h('div', { 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading the source…'));
  const view = h(
    'article',
    { 'aria-labelledby': 'page-title' },
    h('nav', { className: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: policyModuleHref(policyModule) }, `Versions of ${policyModule}`)),
    h('h1', { id: 'page-title', tabindex: '-1' }, `${policyModule} version ${version}`),
    content,
  );

  (async () => {
    const [record, previous] = await Promise.all([api.version(policyModule, version), version > 0 ? versionOrNull(api, policyModule, version - 1) : null]);
    const source = await versionSource(api, record);
    const shown = h('div', {});
    const showSource = (text, locale) =>
      replaceChildren(
        shown,
        !canHighlight(locale) && h('p', { className: 'help' }, `The console knows no keywords of the locale ${locale}: the source is shown without highlighting.`),
        sourceBlock(text, locale, `Source of ${policyModule} version ${version} (${locale})`),
      );
    // A later choice wins over an earlier answer still on its way.
    let latestChoice = 0;
    const showIn = async (locale) => {
      const choice = ++latestChoice;
      if (locale === record.locale) {
        showSource(source, locale);
        return;
      }
      shown.setAttribute('aria-busy', 'true');
      try {
        const translated = await api.source(policyModule, version, locale);
        if (choice !== latestChoice) return;
        showSource(translated.source, translated.locale);
        announce(`The source is shown in ${translated.locale}.`);
      } catch (failure) {
        if (choice === latestChoice) replaceChildren(shown, failureNotice(failure, session, 'the policy registry is readable from role VIEWER up.'));
      } finally {
        if (choice === latestChoice) shown.setAttribute('aria-busy', 'false');
      }
    };
    replaceChildren(
      content,
      facts([
        ['Status', statusBadge(record.status)],
        ['Locale', record.locale],
        ['Created', formatTime(record.createdAt)],
        ['Deployed by', record.actorId ?? (record.builtin ? 'built-in library' : '—')],
        ['Rules', (record.functions ?? []).map((f) => f.name).join(', ') || '—'],
      ]),
      previous && h('p', {}, h('a', { href: policyDiffHref(policyModule, previous.version, version) }, `Changes since version ${previous.version}`)),
      sourceLocaleSelect(record.locale, showIn),
      shown,
    );
    showSource(source, record.locale);
  })()
    .catch((failure) => replaceChildren(content, failureNotice(failure, session, 'the policy registry is readable from role VIEWER up.')))
    .finally(() => content.setAttribute('aria-busy', 'false'));
  return view;
}
