import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { UsageError } from 'groundswell';
import { schemaHash } from '../../src/cache/schema-hash.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('schemaHash', () => {
  it('is a SHA-256 hex digest, equal for separately built but identical schemas', () => {
    const build = () =>
      z.object({
        title: z.string().min(1).max(80).describe('Short title'),
        tags: z.array(z.enum(['a', 'b'])).max(3),
        score: z.number().int().min(0).optional(),
        kind: z.union([z.literal('x'), z.literal('y')]).nullable(),
      });
    expect(schemaHash(build())).toMatch(/^[0-9a-f]{64}$/);
    expect(schemaHash(build())).toBe(schemaHash(build()));
  });

  const fnA = (s: string) => s.includes('a');
  const fnB = (s: string) => s.includes('b');

  // Each pair differs in one thing; every one of them must change the hash.
  const pairs: Array<[string, () => z.ZodType, () => z.ZodType]> = [
    ['min(1) vs min(5)', () => z.string().min(1), () => z.string().min(5)],
    ['max', () => z.array(z.string()).max(2), () => z.array(z.string()).max(3)],
    ['a check vs none', () => z.string(), () => z.string().min(1)],
    ['regex', () => z.string().regex(/^a+$/), () => z.string().regex(/^a+$/i)],
    ['format', () => z.email(), () => z.url()],
    ['int vs number', () => z.number(), () => z.int()],
    ['refine(fnA) vs refine(fnB)', () => z.string().refine(fnA), () => z.string().refine(fnB)],
    ['refine vs none', () => z.string(), () => z.string().refine(fnA)],
    ['check(fn) functions', () => z.string().check((c) => void c), () => z.string().check((c) => void c.value)],
    ['transform functions', () => z.string().transform((s) => s.trim()), () => z.string().transform((s) => s.toUpperCase())],
    ['overwrite functions', () => z.string().overwrite((s) => s.trim()), () => z.string().overwrite((s) => s.toLowerCase())],
    ['describe', () => z.string().describe('a name'), () => z.string().describe('a title')],
    ['describe vs none', () => z.string(), () => z.string().describe('a name')],
    ['meta', () => z.string().meta({ examples: ['x'] }), () => z.string().meta({ examples: ['y'] })],
    ['optional', () => z.string(), () => z.string().optional()],
    ['nullable', () => z.string(), () => z.string().nullable()],
    ['optional vs nullable', () => z.string().optional(), () => z.string().nullable()],
    ['enum values', () => z.enum(['a', 'b']), () => z.enum(['a', 'c'])],
    ['literal', () => z.literal(1), () => z.literal('1')],
    ['nested object field type', () => z.object({ a: z.object({ b: z.string() }) }), () => z.object({ a: z.object({ b: z.number() }) })],
    ['nested object field name', () => z.object({ a: z.object({ b: z.string() }) }), () => z.object({ a: z.object({ c: z.string() }) })],
    ['object field order (the order the model fills fields in)', () => z.object({ why: z.string(), answer: z.string() }), () => z.object({ answer: z.string(), why: z.string() })],
    ['strict vs strip', () => z.object({ a: z.string() }), () => z.strictObject({ a: z.string() })],
    ['array element', () => z.array(z.string()), () => z.array(z.number())],
    ['union options', () => z.union([z.string(), z.number()]), () => z.union([z.string(), z.boolean()])],
    ['discriminated union', () => z.discriminatedUnion('k', [z.object({ k: z.literal('a') })]), () => z.discriminatedUnion('k', [z.object({ k: z.literal('b') })])],
    ['record value', () => z.record(z.string(), z.number()), () => z.record(z.string(), z.string())],
    ['tuple', () => z.tuple([z.string()]), () => z.tuple([z.string(), z.string()])],
    ['default value', () => z.string().default('a'), () => z.string().default('b')],
    ['catch value', () => z.string().catch('a'), () => z.string().catch('b')],
    ['error message', () => z.string().min(1, 'too short'), () => z.string().min(1, 'need text')],
    ['instanceof class', () => z.instanceof(Date), () => z.instanceof(Map)],
    ['pipe target', () => z.string().pipe(z.email()), () => z.string().pipe(z.url())],
  ];

  it.each(pairs)('changes with %s', (_label, a, b) => {
    expect(schemaHash(a())).not.toBe(schemaHash(b()));
    expect(schemaHash(a())).toBe(schemaHash(a()));
  });

  it('counts refinements by function source: the same source hashes alike', () => {
    expect(schemaHash(z.string().refine((s) => s.length > 2))).toBe(schemaHash(z.string().refine((s) => s.length > 2)));
  });

  it('does not let a volatile default (a timestamp, an id) change the hash between calls', () => {
    const build = () => z.object({ id: z.string().default(() => crypto.randomUUID()) });
    expect(schemaHash(build())).toBe(schemaHash(build()));
  });

  it('hashes a recursive z.lazy schema in finite time, stably across separate builds', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const build = (leaf: z.ZodType<string>) => {
      const Node: z.ZodType<Node> = z.object({ name: leaf, children: z.lazy(() => z.array(Node)) });
      return Node;
    };
    expect(schemaHash(build(z.string()))).toBe(schemaHash(build(z.string())));
    expect(schemaHash(build(z.string()))).not.toBe(schemaHash(build(z.string().min(1))));
  });

  it('hashes a schema made recursive through a getter in its shape', () => {
    const build = (max: number) => {
      const Category = z.object({
        name: z.string().max(max),
        get subcategories() {
          return z.array(Category);
        },
      });
      return Category;
    };
    expect(schemaHash(build(10))).toBe(schemaHash(build(10)));
    expect(schemaHash(build(10))).not.toBe(schemaHash(build(11)));
  });

  it('tells mutually recursive schemas apart from a self-recursive one', () => {
    const selfRec: z.ZodType = z.object({ next: z.lazy(() => selfRec).optional() });
    const a: z.ZodType = z.object({ next: z.lazy(() => b).optional() });
    const b: z.ZodType = z.object({ next: z.lazy(() => a).optional(), extra: z.string() });
    expect(schemaHash(a)).not.toBe(schemaHash(selfRec));
    expect(schemaHash(a)).not.toBe(schemaHash(b));
  });

  it('hashes a shared sub-schema like an identical copy (structure counts, not identity)', () => {
    const shared = z.string().min(2);
    expect(schemaHash(z.object({ a: shared, b: shared }))).toBe(
      schemaHash(z.object({ a: z.string().min(2), b: z.string().min(2) })),
    );
  });

  it('memoises per schema instance: the second hash does not walk the schema again', () => {
    const schema = z.object({ a: z.string().describe('x'), b: z.array(z.number()) });
    const registryReads = vi.spyOn(z.globalRegistry, 'get');
    const first = schemaHash(schema);
    const walked = registryReads.mock.calls.length;
    expect(walked).toBeGreaterThan(0);
    expect(schemaHash(schema)).toBe(first);
    expect(registryReads.mock.calls.length).toBe(walked);
  });

  it('throws a UsageError for a lazy getter that builds a new schema on every call', () => {
    const endless = (): z.ZodType => z.object({ child: z.lazy(() => endless()) });
    expect(() => schemaHash(endless())).toThrow(UsageError);
    expect(() => schemaHash(endless())).toThrow(/nested more than \d+ levels/);
  });
});
