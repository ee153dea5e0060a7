import type { Locale } from '../api-types.js';
import { detectLocale } from './detect-locale.js';

/**
 * The locale a tool reads a source in: the one asked for, else the one its module header keyword
 * names (`Module`, `Modul`, `模块`), else en-US (whose diagnostics then say what is wrong).
 */
export function sourceLocale(source: string): Locale;
export function sourceLocale(source: string, asked: string | undefined): string;
export function sourceLocale(source: string, asked?: string): string {
  return asked ?? detectLocale(source) ?? 'en-US';
}
