import { describe, expect, it } from 'vitest';
import { ReadOnlyToolError } from '../../src/file-tools/errors.js';
import { compileGlob, isGlob } from '../../src/file-tools/glob-pattern.js';

describe('compileGlob matches like a glob', () => {
  const cases: Array<{ glob: string; yes: string[]; no: string[] }> = [
    { glob: '*.ts', yes: ['a.ts', '.ts', 'x.test.ts'], no: ['a.tsx', 'src/a.ts', 'a.js'] },
    { glob: 'a?c', yes: ['abc', 'a-c'], no: ['ac', 'abbc', 'a/c'] },
    { glob: '**/*.test.ts', yes: ['x.test.ts', 'deep/a/b/x.test.ts'], no: ['x.ts', 'deep/x.test.tsx'] },
    { glob: 'src/**/*.ts', yes: ['src/a.ts', 'src/a/b/c.ts'], no: ['a.ts', 'srcx/a.ts', 'lib/src/a.ts'] },
    { glob: 'src/**', yes: ['src/a', 'src/a/b.ts'], no: ['src', 'lib/a'] },
    { glob: 'a**b', yes: ['ab', 'a/x/b', 'axb'], no: ['a/x/c'] },
    { glob: 'src/*.ts', yes: ['src/a.ts'], no: ['src/a/b.ts'] },
    { glob: 'src/{alpha,beta}.ts', yes: ['src/alpha.ts', 'src/beta.ts'], no: ['src/gamma.ts', 'src/alphabeta.ts'] },
    { glob: '{a,b{c,d}}x', yes: ['ax', 'bcx', 'bdx'], no: ['bx', 'cx'] },
    { glob: '*.{ts,js', yes: ['a.ts', 'a.js'], no: ['a.{ts,js'] },
    { glob: 'a,b}', yes: ['a,b}'], no: ['a'] },
    { glob: '[abc]*', yes: ['apple', 'cat'], no: ['dog', '/a'] },
    { glob: '[!a-c]*', yes: ['dog', 'zed'], no: ['apple', 'bee'] },
    { glob: '[^a-c]?', yes: ['dx'], no: ['ax', 'd/'] },
    { glob: '[]x]', yes: [']', 'x'], no: ['y'] },
    { glob: 'x[-]y', yes: ['x-y'], no: ['xay'] },
    { glob: '[unclosed', yes: ['[unclosed'], no: ['u'] },
    { glob: 'a.b+c(d)|e$', yes: ['a.b+c(d)|e$'], no: ['aXb+c(d)|e$'] },
  ];
  for (const { glob, yes, no } of cases) {
    it(glob, () => {
      const matches = compileGlob(glob);
      for (const text of yes) expect(matches(text), `${glob} should match ${text}`).toBe(true);
      for (const text of no) expect(matches(text), `${glob} should not match ${text}`).toBe(false);
    });
  }

  it('tells globs from plain name fragments', () => {
    expect(['*.ts', 'a?', '[ab]', '{a,b}'].map(isGlob)).toEqual([true, true, true, true]);
    expect(isGlob('verdict.ts')).toBe(false);
  });
});

describe('compileGlob on hostile globs', () => {
  it('answers patterns that make a backtracking RegExp run for minutes', () => {
    const name = 'a'.repeat(45);
    expect(compileGlob(`${'*a'.repeat(9)}*b`)(name)).toBe(false);
    expect(compileGlob(`${'*a'.repeat(40)}*`)(name)).toBe(true);
    expect(compileGlob(`${'**a'.repeat(40)}**b`)(`${'a/'.repeat(2_000)}c`)).toBe(false);
    expect(compileGlob(`${'{a,*}'.repeat(60)}b`)('a'.repeat(200))).toBe(false);
  });

  it('throws ReadOnlyToolError for a backwards range and for an overlong glob', () => {
    expect(() => compileGlob('[z-a]')).toThrow(ReadOnlyToolError);
    expect(() => compileGlob('x[9-0]')).toThrow(/"\[9-0\]" has a range that runs backwards \(9-0\)/);
    expect(() => compileGlob('*'.repeat(1_001))).toThrow(/at most 1000 are accepted/);
  });
});

describe('one compiled glob over many paths', () => {
  it('gives the same answers whatever the order and lengths of the paths it saw before', () => {
    const matches = compileGlob('{a,b{c,*}}/**/x*y');
    const paths = ['a/x1y', `b${'q'.repeat(900)}/d/xy`, 'a/b/c/xzzy', 'bc/x', `a/${'d/'.repeat(300)}xy`, 'c/xy', 'bq/xy'];
    const expected = [true, true, true, false, true, false, true];
    expect(paths.map(matches)).toEqual(expected);
    expect([...paths].reverse().map(matches)).toEqual([...expected].reverse());
    expect(paths.map(matches)).toEqual(expected);
  });
});
