import { describe, expect, it } from 'vitest';
import { ReadOnlyToolError } from '../../src/file-tools/errors.js';
import { refuseCatastrophicRegex } from '../../src/file-tools/regex-safety.js';

describe('refuseCatastrophicRegex', () => {
  const refused: Array<{ pattern: string; ignoreCase?: boolean; message: RegExp }> = [
    { pattern: '^(a+)+$', message: /repeats a group that has a quantifier inside/ },
    { pattern: '(a*)*', message: /quantifier inside/ },
    { pattern: '(?:ab+)*c', message: /quantifier inside/ },
    { pattern: '((a)+)+', message: /quantifier inside/ },
    { pattern: '(?:x{1,3})+', message: /quantifier inside/ },
    { pattern: '(a+){9}', message: /quantifier inside/ },
    { pattern: '(?<word>\\w+\\s?)*$', message: /quantifier inside/ },
    { pattern: '(a|a)*', message: /alternatives can start with the same character/ },
    { pattern: '(a|ab)+$', message: /alternatives can start with the same character/ },
    { pattern: '(A|ab)+', ignoreCase: true, message: /start with the same character/ },
    { pattern: '(\\w|\\d)*', message: /start with the same character/ },
    { pattern: '(.|\\n)*x', message: /start with the same character/ },
    { pattern: '(a|)*', message: /start with the same character/ },
    { pattern: '(?:b|ba)+', message: /start with the same character/ },
    { pattern: '(b?a|a){2,5}', message: /start with the same character/ },
    { pattern: '(?:ab?)+', message: /quantifier inside/ },
    { pattern: '(x)\\1', message: /Backreferences/ },
    { pattern: '(?<q>["\'])\\k<q>', message: /Backreferences/ },
  ];
  for (const { pattern, ignoreCase, message } of refused) {
    it(`refuses ${pattern}`, () => {
      expect(() => refuseCatastrophicRegex(pattern, ignoreCase ?? false)).toThrow(ReadOnlyToolError);
      expect(() => refuseCatastrophicRegex(pattern, ignoreCase ?? false)).toThrow(message);
    });
  }

  const allowed = [
    'alpha.*beta',
    '^export (const|function) \\w+',
    '(foo|bar)+',
    '(A|ab)+',
    '(?:\\d{1,3}\\.){3}\\d{1,3}',
    '(ab?|cd){2,4}',
    '[(a+)+]',
    '\\(a+\\)+',
    'x{2}y{3,}',
    'a{,3}+',
    '(?=a+)b',
  ];
  for (const pattern of allowed) {
    it(`allows ${pattern}`, () => {
      expect(() => refuseCatastrophicRegex(pattern, false)).not.toThrow();
    });
  }

  it('refuses an overlong pattern', () => {
    expect(() => refuseCatastrophicRegex('a'.repeat(1_001), false)).toThrow(/at most 1000 are accepted/);
  });
});
