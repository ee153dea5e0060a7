import { detectLocale } from './detect-locale.js';

/**
 * The locale a source is read in when none is asked for: the one its module header keyword names
 * (`Module`, `Modul`, `模块`), else en-US (whose diagnostics then say what is wrong). `policy`'s
 * commands and the service's check read sources alike.
 */
export function sourceLocale(source: string, asked: string | undefined): string {
  return asked ?? detectLocale(source) ?? 'en-US';
}
