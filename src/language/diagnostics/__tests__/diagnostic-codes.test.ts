// The declarations of the diagnostic codes: each code declared once, in its range, and nowhere
// else; constructors give the code, the severity and help only when there is some.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DIAGNOSTIC_CODES,
  DIAGNOSTIC_DEFINITIONS,
  DivisionByZero,
  FunctionNotFound,
  MissingTerminator,
  RuleFailed,
  UnexpectedCharacter,
  UnknownName,
  UnreachableStatement,
} from '../index.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const HOME = join('src', 'language', 'diagnostics', 'codes') + sep;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === '__tests__' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('diagnostic code declarations', () => {
  it('declare every code once, in code order, within the six ranges', () => {
    const codes = DIAGNOSTIC_DEFINITIONS.map((d) => d.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(codes);
    for (const code of codes) expect(code).toMatch(/^PL[1-6]\d{3}$/);
    expect(Object.keys(DIAGNOSTIC_CODES)).toEqual(codes);
  });

  it('give every code a lowercase summary for the code table', () => {
    for (const { code, summary } of DIAGNOSTIC_DEFINITIONS) {
      expect(summary.length, code).toBeGreaterThan(0);
      expect(summary[0], code).not.toMatch(/[A-Z]/);
    }
  });

  it('are the only place a code is written as a string literal', () => {
    const literal = /['"]PL\d{4}['"]/;
    const offenders = ['src', 'scripts', 'workers']
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .map((path) => relative(ROOT, path))
      .filter((path) => !path.startsWith(HOME) && literal.test(readFileSync(join(ROOT, path), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('build diagnostics with their code and severity, and help only when a fix is worded', () => {
    expect(DivisionByZero()).toEqual({ code: 'PL3001', severity: 'error', message: 'division by zero', help: expect.any(String) });
    expect(UnreachableStatement().severity).toBe('warning');
    expect(MissingTerminator('.', 'statement')).toStrictEqual({
      code: 'PL1007',
      severity: 'error',
      message: 'missing `.` at the end of the statement',
      help: 'end the line with `.`: every statement ends with one, the last of a block too',
    });
    expect(RuleFailed('too young')).toStrictEqual({ code: 'PL3004', severity: 'error', message: 'too young' });
    expect(UnknownName.unknown('scor', ['score'])).toStrictEqual({ code: 'PL2001', severity: 'error', message: 'unknown name `scor`; did you mean `score`?' });
    expect(UnknownName.unknown('x', [])).toHaveProperty('help');
    expect(UnexpectedCharacter("'").help).toBe('text is written in double quotes: "…"');
  });

  it('list the choices in help when no close name exists, reading the candidates once', () => {
    const rules = new Map([['approve', 1], ['score', 2]]);
    expect(FunctionNotFound('main', 'm', rules.keys())).toStrictEqual({
      code: 'PL6002',
      severity: 'error',
      message: 'function `main` not found in module `m`',
      help: 'name one of its rules: `approve`, `score`',
    });
    expect(FunctionNotFound('scor', 'm', rules.keys())).toStrictEqual({
      code: 'PL6002',
      severity: 'error',
      message: 'function `scor` not found in module `m`; did you mean `score`?',
    });
    const many = Array.from({ length: 12 }, (_, i) => `rule${i}`);
    expect(FunctionNotFound('main', 'm', many).help).toBe(`name one of its rules: ${many.slice(0, 10).map((name) => `\`${name}\``).join(', ')}, …`);
  });
});
