import { detectLocale } from '../language/index.js';

/**
 * The locale a command reads a source in: the one asked for, else the one its module header
 * keyword names (`Module`, `Modul`, `模块`), else en-US (whose diagnostics then say what is wrong).
 */
export function sourceLocale(source: string, asked: string | undefined): string {
  return asked ?? detectLocale(source) ?? 'en-US';
}
