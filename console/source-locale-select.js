// "Show in": the locale a version's source is shown in. The service prints the module in the
// chosen locale (GET …/versions/{version}/source?locale=); the stored locale shows it as stored.
import { h } from './dom.js';
import { POLICY_KEYWORDS } from './policy-keywords.js';

export function sourceLocaleSelect(storedLocale, onChoose) {
  const locales = Object.keys(POLICY_KEYWORDS);
  const options = locales.includes(storedLocale) ? locales : [storedLocale, ...locales];
  return h(
    'div',
    { className: 'field' },
    h('label', { for: 'source-locale' }, 'Show in'),
    h(
      'select',
      { id: 'source-locale', name: 'source-locale', onChange: (event) => onChoose(event.target.value) },
      options.map((locale) => h('option', { value: locale, selected: locale === storedLocale }, locale === storedLocale ? `${locale} (as deployed)` : locale)),
    ),
  );
}
