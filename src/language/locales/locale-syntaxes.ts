import type { Locale } from '../api-types.js';
import { DE_DE } from './de-de.js';
import { EN_US } from './en-us.js';
import type { LocaleSyntax } from './locale-syntax.js';
import { ZH_CN } from './zh-cn.js';

export const LOCALE_SYNTAXES: Readonly<Record<Locale, LocaleSyntax>> = {
  'en-US': EN_US,
  'zh-CN': ZH_CN,
  'de-DE': DE_DE,
};

/** Undefined only when a caller bypasses the `Locale` type with an unchecked string. */
export function getLocaleSyntax(locale: Locale): LocaleSyntax | undefined {
  return Object.hasOwn(LOCALE_SYNTAXES, locale) ? LOCALE_SYNTAXES[locale] : undefined;
}
