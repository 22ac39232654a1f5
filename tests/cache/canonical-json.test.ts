import { describe, expect, it } from 'vitest';
import { UsageError } from 'groundswell';
import { canonicalJson } from '../../src/cache/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order and adds no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, 2], c: 'x y' } })).toBe('{"a":{"c":"x y","d":[3,1,2]},"b":1}');
    expect(canonicalJson({ a: { c: 'x y', d: [3, 1, 2] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [3, 1, 2], c: 'x y' } }));
  });

  it('drops undefined properties and writes undefined array items as null, like JSON.stringify', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
    expect(canonicalJson([1, , 3])).toBe('[1,null,3]');
  });

  it('writes scalars as JSON does, honouring toJSON (a Date becomes its ISO string)', () => {
    expect(canonicalJson([null, true, false, 0, -0, 1.5, 'é"\n', new Date(0)])).toBe(
      '[null,true,false,0,0,1.5,"é\\"\\n","1970-01-01T00:00:00.000Z"]',
    );
    expect(canonicalJson({ z: { toJSON: () => ({ y: 1, x: 2 }) } })).toBe('{"z":{"x":2,"y":1}}');
  });

  it('allows the same object twice when it is not its own ancestor', () => {
    const shared = { v: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"v":1},"b":[{"v":1}]}');
  });

  it.each([
    ['a cycle', () => { const o: Record<string, unknown> = { list: [] }; (o.list as unknown[]).push({ back: o }); return { data: o }; }, 'a circular reference at $.data.list[0].back'],
    ['a function', () => ({ data: { fn: () => 1 } }), 'a function at $.data.fn'],
    ['a symbol', () => ({ tags: [Symbol('s')] }), 'a symbol at $.tags[0]'],
    ['a bigint', () => ({ 'odd key': 1n }), 'a bigint at $["odd key"]'],
    ['NaN', () => ({ n: Number.NaN }), 'the non-finite number NaN at $.n'],
    ['Infinity', () => [Number.POSITIVE_INFINITY], 'the non-finite number Infinity at $[0]'],
    ['a Map', () => ({ m: new Map([[1, 2]]) }), 'a Map (convert it to an object or array first) at $.m'],
    ['a Set', () => ({ s: new Set([1]) }), 'a Set (convert it to an object or array first) at $.s'],
    ['bare undefined', () => undefined, 'undefined at $'],
  ])('throws a UsageError naming the path for %s', (_label, build, message) => {
    const attempt = () => canonicalJson(build());
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(message);
  });
});
