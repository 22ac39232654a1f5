import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { transformJSONSchema as sdkTransform } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { strictJsonSchema } from '../../src/agent/strict-json-schema.js';
import { SchemaWithoutTypeError } from '../../src/agent/schema-without-type-error.js';

// Our strict transform replaced the SDK's (decision 0083's addendum): the schema sent must stay
// byte-identical, key order included, and a schema the SDK refused must be refused the same way.

/** What a transform made of a JSON schema: its JSON text, or the error it threw. */
type Made = { readonly json: string } | { readonly error: { readonly name: string; readonly message: string; readonly isError: boolean } };

function made(transform: (schema: unknown) => unknown, schema: unknown): Made {
  try {
    return { json: JSON.stringify(transform(schema)) };
  } catch (error) {
    return { error: { name: (error as Error).name, message: (error as Error).message, isError: error instanceof Error } };
  }
}

/** Ours and the SDK's on `schema` (each on its own copy), and that neither changed its input. */
function expectSame(schema: unknown): Made {
  const before = JSON.stringify(schema);
  const theirs = made(sdkTransform as (schema: unknown) => unknown, structuredClone(schema));
  const ours = made(strictJsonSchema, schema);
  expect(ours).toEqual(theirs);
  expect(JSON.stringify(schema)).toBe(before);
  return ours;
}

const category = z.enum(['billing', 'shipping', 'product']);
const Address = z.object({ street: z.string(), city: z.string().min(1), zip: z.string().regex(/^\d{5}$/).optional() });
interface Tree {
  value: number;
  children: Tree[];
}
const TreeNode: z.ZodType<Tree> = z.object({ value: z.number(), get children() { return z.array(TreeNode); } });
const Category = z.object({ name: z.string(), get sub(): z.ZodOptional<typeof Category> { return Category.optional(); } });
const registered = z.string().min(3).meta({ id: 'Handle', description: 'a user handle' });
const Shape = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('circle'), radius: z.number().positive() }),
  z.object({ kind: z.literal('square'), side: z.number().gt(0).lt(100) }),
]);
enum Colour {
  Red = 'red',
  Green = 'green',
}
enum Level {
  Low,
  High,
}

/** Zod schemas a user can write as a response format (and a few they should not: the SDK's refusal must be kept too). */
const ZOD_CORPUS: Record<string, z.ZodType> = {
  'flat object': z.object({ a: z.string(), b: z.number(), c: z.boolean() }),
  'nested objects': z.object({ order: z.object({ id: z.string(), address: Address, billing: Address.nullable() }) }),
  'arrays with bounds': z.object({
    any: z.array(z.string()),
    min0: z.array(z.string()).min(0),
    min1: z.array(z.number()).min(1),
    nonempty: z.array(z.number()).nonempty(),
    min2max5: z.array(z.string()).min(2).max(5),
    exact: z.array(z.boolean()).length(3),
    nested: z.array(z.array(z.object({ x: z.number() }))),
  }),
  'enums and literals': z.object({
    category,
    native: z.enum(Colour),
    numeric: z.enum(Level),
    one: z.literal('fixed'),
    many: z.literal(['a', 'b', 3]),
    num: z.literal(42),
    bool: z.literal(true),
    nul: z.null(),
    categories: z.array(category).max(3),
    extracted: category.extract(['billing']),
    excluded: category.exclude(['billing']),
  }),
  unions: z.object({
    either: z.union([z.string(), z.number()]),
    objects: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
    shape: Shape,
    xor: z.xor([z.object({ a: z.string() }), z.object({ b: z.string() })]),
  }),
  intersection: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })),
  'optional, nullable, nullish, defaults': z.object({
    opt: z.string().optional(),
    nul: z.string().nullable(),
    nullish: z.number().nullish(),
    def: z.number().default(3),
    defObj: z.object({ x: z.number() }).default({ x: 1 }),
    defArr: z.array(z.string()).default([]),
    prefault: z.string().prefault('p'),
    caught: z.number().catch(0),
    readonly: z.object({ r: z.string() }).readonly(),
    optEnum: category.optional(),
    nullEnum: category.nullable(),
    nullLiteral: z.literal('x').nullable(),
  }),
  records: z.object({
    byString: z.record(z.string(), z.number()),
    byEnum: z.record(category, z.boolean()),
    partial: z.partialRecord(category, z.string()),
    ofObjects: z.record(z.string(), z.object({ n: z.number() })),
  }),
  'string formats': z.object({
    email: z.email(),
    url: z.url(),
    uuid: z.uuid(),
    guid: z.guid(),
    datetime: z.iso.datetime(),
    date: z.iso.date(),
    time: z.iso.time(),
    duration: z.iso.duration(),
    ipv4: z.ipv4(),
    ipv6: z.ipv6(),
    cidr: z.cidrv4(),
    hostname: z.hostname(),
    base64: z.base64(),
    emoji: z.emoji(),
    nanoid: z.nanoid(),
    cuid: z.cuid(),
    ulid: z.ulid(),
    jwt: z.jwt(),
    e164: z.e164(),
  }),
  'string checks': z.object({
    min: z.string().min(20).max(400),
    len: z.string().length(3),
    regex: z.string().regex(/^ORD-\d{6}$/),
    starts: z.string().startsWith('a'),
    ends: z.string().endsWith('z'),
    includes: z.string().includes('mid'),
    lower: z.string().lowercase(),
    upper: z.string().toUpperCase(),
    trimmed: z.string().trim(),
    template: z.templateLiteral(['id-', z.number()]),
  }),
  'numbers with bounds': z.object({
    int: z.number().int(),
    bounded: z.number().int().min(1).max(5),
    open: z.number().gt(-1).lt(1),
    nonneg: z.number().nonnegative(),
    positive: z.number().positive(),
    multiple: z.number().multipleOf(0.5),
    int32: z.int32(),
    safe: z.number().safe(),
    sentiment: z.number().min(-1).max(1),
  }),
  descriptions: z
    .object({
      described: z.string().describe('what it is'),
      titled: z.number().meta({ title: 'A number', description: 'with a title', examples: [1, 2] }),
      bounded: z.number().min(0).describe('never negative'),
      empty: z.string().describe(''),
      emptyBounded: z.string().min(1).describe(''),
      obj: z.object({ x: z.string() }).describe('an object'),
      arr: z.array(z.string()).min(2).describe('two or more'),
      badFormat: z.url().describe('a link'),
      enumDescribed: category.describe('which queue'),
      deprecated: z.string().meta({ deprecated: true }),
    })
    .describe('the root'),
  'refs and recursion': z.object({ tree: TreeNode, category: Category, handle: registered, again: registered, list: z.array(registered) }),
  'recursive root': TreeNode,
  'reused object': z.object({ home: Address, work: Address, others: z.array(Address) }),
  'strict, loose and catchall objects': z.object({
    strict: z.strictObject({ a: z.string() }),
    loose: z.looseObject({ a: z.string() }),
    catchall: z.object({ a: z.string() }).catchall(z.number()),
    empty: z.object({}),
  }),
  tuples: z.object({ pair: z.tuple([z.string(), z.number()]), rest: z.tuple([z.string()], z.number()) }),
  'pipes and transforms': z.object({
    trimmed: z.string().transform((s) => s.trim()),
    piped: z.string().pipe(z.string().min(1)),
    coerced: z.coerce.number(),
    branded: z.string().brand<'Id'>(),
    refined: z.number().refine((n) => n > 0, 'positive'),
  }),
  'root array': z.array(z.object({ a: z.string() })),
  'root string': z.string().min(1),
  'root enum': category,
  'root union': z.union([z.object({ a: z.string() }), z.null()]),
  'any and unknown (refused)': z.object({ anything: z.any(), unknown: z.unknown() }),
  'root any (refused)': z.any(),
  'unrepresentable as any (refused)': z.object({ when: z.date(), big: z.bigint() }),
  'json (refused)': z.object({ value: z.json() }),
  never: z.object({ none: z.never().optional(), a: z.string() }),
  'boolean and null': z.object({ flag: z.boolean(), nothing: z.null(), maybe: z.boolean().nullable() }),
};

/** The options outputFormat converts with, and others a schema could have been converted with. */
const CONVERSIONS: Record<string, Parameters<typeof z.toJSONSchema>[1]> = {
  'as sent (io input, reused ref, unrepresentable any)': { io: 'input', reused: 'ref', unrepresentable: 'any' },
  'zod defaults': { unrepresentable: 'any' },
  'io output': { io: 'output', unrepresentable: 'any' },
  'draft-7': { target: 'draft-7', io: 'input', reused: 'ref', unrepresentable: 'any' },
  'openapi-3.0': { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' },
};

/** JSON schemas no zod conversion makes, for the rules zod never reaches. */
const HAND_WRITTEN: Record<string, unknown> = {
  'enum of objects (told, not kept)': { type: 'object', enum: [{ a: 1 }], properties: {} },
  'empty enum': { type: 'string', enum: [] },
  'enum and const': { enum: ['a', 'b'], const: 'a', type: 'string', description: 'both' },
  'const object (told)': { type: 'object', const: { a: 1 } },
  'const null': { const: null },
  'const with type kept out': { const: 3, type: 'number', minimum: 1 },
  'oneOf as anyOf': { oneOf: [{ type: 'string' }, { type: 'number' }], description: 'one' },
  'anyOf wins over oneOf': { anyOf: [{ type: 'string' }], oneOf: [{ type: 'number' }] },
  allOf: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object' }] },
  'anyOf not an array': { anyOf: { type: 'string' }, type: 'string' },
  'anyOf beside an object type': { type: 'object', anyOf: [{ type: 'string' }], properties: { p: { type: 'number' } } },
  'enum beside anyOf': { enum: [1, 2], anyOf: [{ type: 'number' }] },
  'type list': { type: ['string', 'null'], minLength: 2 },
  'ref with siblings (dropped)': { $ref: '#/$defs/a', description: 'dropped', $defs: { a: { type: 'string', maxLength: 3 } } },
  'nested defs': { type: 'object', properties: { x: { $ref: '#/$defs/y' } }, $defs: { y: { type: 'object', $defs: { z: { type: 'number' } }, properties: {} } } },
  'unsupported format then other keywords': { type: 'string', format: 'binary', minLength: 1, maxLength: 9 },
  'supported format': { type: 'string', format: 'ipv6', title: 'addr' },
  'format on a non-string (told)': { type: 'number', format: 'float' },
  'minItems 0, 1, 2': { type: 'object', properties: { a: { type: 'array', minItems: 0 }, b: { type: 'array', minItems: 1, items: { type: 'string' } }, c: { type: 'array', minItems: 2, maxItems: 4, uniqueItems: true } } },
  'items as a list (refused)': { type: 'array', items: [{ type: 'string' }] },
  'items false (refused)': { type: 'array', prefixItems: [{ type: 'string' }], items: false },
  'properties null': { type: 'object', properties: null, required: [] },
  'object without properties': { type: 'object', additionalProperties: { type: 'string' }, propertyNames: { pattern: '^a' } },
  'description not a string': { type: 'string', description: 5, pattern: 'x' },
  'description empty string with rest': { type: 'integer', description: '', minimum: 0 },
  'title before description in input': { title: 'T', description: 'D', type: 'boolean', default: true },
  '$schema only dropped': { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'null' },
  'no type (refused)': { description: 'nothing' },
  'nested no type (refused)': { type: 'object', properties: { a: {} } },
  'undefined and NaN fields': { type: 'number', default: Number.NaN, maximum: undefined, examples: [Infinity] },
  'property named like keywords': { type: 'object', properties: { type: { type: 'string' }, $ref: { type: 'string' }, description: { enum: ['x'] } } },
  'defs keyed oddly': { $defs: { '0': { type: 'string' }, b: { const: 1 } }, type: 'object', properties: {} },
  'integer-like leftover keys': { type: 'string', '2': 'two', '1': 'one', maxLength: 3 },
  'null subschema (TypeError)': { type: 'array', items: null },
};

describe('the strict JSON-schema transform', () => {
  for (const [conversion, options] of Object.entries(CONVERSIONS)) {
    describe(`zod schemas converted ${conversion}`, () => {
      for (const [name, schema] of Object.entries(ZOD_CORPUS)) {
        it(`is the SDK's, byte for byte: ${name}`, () => {
          expectSame(z.toJSONSchema(schema, options));
        });
      }
    });
  }

  describe('hand-written JSON schemas', () => {
    for (const [name, schema] of Object.entries(HAND_WRITTEN)) {
      it(`is the SDK's, byte for byte: ${name}`, () => {
        expectSame(schema);
      });
    }
  });

  it('refuses a part with no type as the SDK did, with a named class', () => {
    const result = expectSame({ type: 'object', properties: { a: {} } });
    expect(result).toEqual({ error: { name: 'Error', message: expect.stringContaining('must have a type') as string, isError: true } });
    expect(() => strictJsonSchema({})).toThrow(SchemaWithoutTypeError);
  });

  it('covers every rule with the corpus: kept, told and dropped keywords all occur', () => {
    const all = [
      ...Object.values(CONVERSIONS).flatMap((options) => Object.values(ZOD_CORPUS).map((schema) => made(strictJsonSchema, z.toJSONSchema(schema, options)))),
      ...Object.values(HAND_WRITTEN).map((schema) => made(strictJsonSchema, schema)),
    ];
    const texts = all.flatMap((result) => ('json' in result ? [result.json] : []));
    for (const needle of ['"$defs"', '"$ref"', '"anyOf"', '"allOf"', '"enum"', '"const"', '"format":"email"', '"minItems":1', 'minItems: 2', 'format: ', 'pattern: ', 'default: ', '\\n\\n{']) {
      expect(texts.some((text) => text.includes(needle)), needle).toBe(true);
    }
    expect(all.filter((result) => 'error' in result).length).toBeGreaterThan(3);
  });
});
