import { describe, expect, it } from 'vitest';
import { firstWord } from '../detect-locale.js';
import { detectLocale } from '../index.js';

describe('detectLocale', () => {
  it('reads the module header keyword of each locale', () => {
    expect(detectLocale('Module a.b.\n')).toBe('en-US');
    expect(detectLocale('模块 a.b。\n')).toBe('zh-CN');
    expect(detectLocale('Modul a.b.\n')).toBe('de-DE');
  });

  it('ignores blank lines, comments, a byte-order mark and letter case', () => {
    expect(detectLocale('\uFEFF\n# about\n// more\n\n  MODULE x.\n')).toBe('en-US');
    expect(detectLocale('# Kommentar\nmodul x.\n')).toBe('de-DE');
  });

  it('normalises full-width letters before matching', () => {
    expect(detectLocale('Ｍｏｄｕｌｅ x.')).toBe('en-US');
  });

  it('returns null when the first word is not a module keyword', () => {
    expect(detectLocale('Define T has a as Int.')).toBeNull();
    expect(detectLocale('Modules x.')).toBeNull();
    expect(detectLocale('模块化 x.')).toBeNull();
    expect(detectLocale('')).toBeNull();
    expect(detectLocale('# only a comment\n')).toBeNull();
  });

  it('reads no more of the first word than a module keyword can be long (a source may be a megabyte)', () => {
    expect(firstWord('# note\nModule x.', 6)).toBe('Module');
    expect(firstWord('Modules x.', 6)).toBeNull();
    expect(detectLocale(`Module${'a'.repeat(1_000_000)}`)).toBeNull();
  });
});
