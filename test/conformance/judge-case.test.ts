import { describe, expect, it } from 'vitest';
import { type ConformanceCase, sourceText } from './case-file.js';
import { judgeCase } from './judge-case.js';

function judge(c: ConformanceCase) {
  return judgeCase({ ...c, file: 'inline', text: sourceText(c) });
}

const DIVIDE: Omit<ConformanceCase, 'expect'> = {
  name: 'divide',
  locale: 'en-US',
  source: ['Module judge.', 'Define P has x as Int, y as Int.', 'Rule r given a as Int, b as Int, produce Float:', '  Return a / b.', 'Rule p produce P:', '  Return P with y set to 2, x set to 1.'],
  function: 'r',
};

// The runner must be able to fail: these cases are wrong on purpose.
describe('the conformance judge', () => {
  it('passes a matching result and fails a different one', () => {
    expect(judge({ ...DIVIDE, context: { a: 1, b: 4 }, expect: { result: 0.25 } }).pass).toBe(true);
    expect(judge({ ...DIVIDE, context: { a: 1, b: 4 }, expect: { result: 0.5 } }).pass).toBe(false);
  });

  it('fails when record keys come out of declaration order', () => {
    expect(judge({ ...DIVIDE, function: 'p', context: {}, expect: { result: { x: 1, y: 2 } } }).pass).toBe(true);
    expect(judge({ ...DIVIDE, function: 'p', context: {}, expect: { result: { y: 2, x: 1 } } }).pass).toBe(false);
  });

  it('matches diagnostics by code, underlined text and message fragment', () => {
    const zero = { ...DIVIDE, context: { a: 1, b: 0 } };
    expect(judge({ ...zero, expect: { diagnostics: [{ code: 'PL3001', text: 'a / b' }] } }).pass).toBe(true);
    expect(judge({ ...zero, expect: { diagnostics: [{ code: 'PL3002' }] } }).pass).toBe(false);
    expect(judge({ ...zero, expect: { diagnostics: [{ code: 'PL3001', text: 'a' }] } }).pass).toBe(false);
    expect(judge({ ...zero, expect: { diagnostics: [{ code: 'PL3001', messageIncludes: 'no such words' }] } }).pass).toBe(false);
  });

  it('fails when a result was expected but diagnostics came, and the other way round', () => {
    expect(judge({ ...DIVIDE, context: { a: 1, b: 0 }, expect: { result: 0 } }).pass).toBe(false);
    expect(judge({ ...DIVIDE, context: { a: 1, b: 2 }, expect: { diagnostics: [{ code: 'PL3001' }] } }).pass).toBe(false);
  });

  it('fails on errors the case does not expect', () => {
    const twoErrors: ConformanceCase = {
      name: 'two errors',
      locale: 'en-US',
      source: ['Module judge.', 'Rule r produce Int:', '  Return missing + alsoMissing2.'],
      expect: { diagnostics: [{ code: 'PL2001', text: 'missing' }] },
    };
    const verdict = judge(twoErrors);
    expect(verdict.pass).toBe(false);
    expect(verdict.reason).toContain('alsoMissing2');
    expect(judge({ ...twoErrors, expect: { diagnostics: [{ code: 'PL2001', text: 'missing' }, { code: 'PL2001', text: 'alsoMissing2' }] } }).pass).toBe(true);
  });

  it('pads a source to the requested size with the requested character', () => {
    const text = sourceText({ name: 'pad', locale: 'en-US', source: 'Module a.\n', padSourceTo: 100, padWith: '汉', expect: { result: 1 } });
    expect(text.length).toBe(100);
    expect(text).toContain('# 汉汉');
  });

  it('repeats a numbered line after the source', () => {
    const text = sourceText({ name: 'repeat', locale: 'en-US', source: ['Module a.'], repeatLine: { line: '  Step s{n}: ok(n).', count: 3 }, expect: { result: 1 } });
    expect(text).toBe('Module a.\n  Step s1: ok(n).\n  Step s2: ok(n).\n  Step s3: ok(n).\n');
  });
});
