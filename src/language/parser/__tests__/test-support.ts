import { expect } from 'vitest';
import type { Expr, ModuleNode } from '../../ast/index.js';
import { stripPositions } from '../../ast/index.js';
import type { Locale } from '../../api-types.js';
import { parse } from '../index.js';

/** Wraps statements (one per line, already indented by 2) in a module with one rule. */
export function inRule(statements: string, locale: Locale = 'en-US'): string {
  const header: Record<Locale, string> = {
    'en-US': 'Module m.\nRule f produce Int:\n',
    'zh-CN': '模块 m。\n规则 f 产出 整数：\n',
    'de-DE': 'Modul m.\nRegel f liefert Ganzzahl:\n',
  };
  return `${header[locale]}${statements}\n`;
}

/** The module of a source that must parse without diagnostics. */
export function parseOk(source: string, locale: Locale = 'en-US'): ModuleNode {
  const result = parse(source, locale);
  expect(result.diagnostics).toEqual([]);
  return result.module!;
}

/** The expression of `Return <expr>.` in en-US, without ids and spans. */
export function returned(expr: string, locale: Locale = 'en-US'): unknown {
  const terminator = locale === 'zh-CN' ? '。' : '.';
  const keyword = { 'en-US': 'Return', 'zh-CN': '返回', 'de-DE': 'Liefere' }[locale];
  const module = parseOk(inRule(`  ${keyword} ${expr}${terminator}`, locale), locale);
  const rule = module.declarations[0]!;
  if (rule.kind !== 'RuleDecl' || rule.body[0]!.kind !== 'Return') throw new Error('expected `Return`');
  return stripPositions(rule.body[0]!.value as Expr);
}

/** Code and underlined source text of every diagnostic. */
export function problems(source: string, locale: Locale = 'en-US'): [string, string][] {
  return parse(source, locale).diagnostics.map((d) => [d.code, d.span ? source.slice(d.span.start, d.span.end) : '']);
}
