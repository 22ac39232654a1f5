import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';
import { usageErrorFrom } from '../support/usage-error.js';

const refusal = usageErrorFrom;

// Each refused at the root and as an object field; `json` says whether z.toJSONSchema can express it.
const unanswerable: readonly [string, () => z.ZodType, boolean][] = [
  ['z.function()', () => z.function() as unknown as z.ZodType, false],
  ['z.promise()', () => z.promise(z.string()), true],
  ['z.symbol()', () => z.symbol(), false],
  ['z.custom()', () => z.custom<string>((v) => typeof v === 'string'), false],
  ['z.undefined()', () => z.undefined(), false],
  ['z.void()', () => z.void(), false],
  ['z.bigint()', () => z.bigint(), false],
  ['z.date()', () => z.date(), false],
  ['z.nan()', () => z.nan(), false],
  ['z.map()', () => z.map(z.string(), z.string()), false],
  ['z.set()', () => z.set(z.string()), false],
  ['z.file()', () => z.file(), true],
  ['z.literal(undefined)', () => z.literal(undefined), false],
];

describe('createPrompt refuses a response format no JSON answer can satisfy', () => {
  for (const [type, make, expressible] of unanswerable) {
    it(`${type} at the root`, () => {
      const error = refusal(() => createPrompt({ user: 'x', responseFormat: make() }));
      expect(error.message).toContain('config.responseFormat');
      expect(error.message).toContain(type);
      // Agrees with zod: what it cannot express as JSON Schema is refused (promise and file it can, but no JSON value parses into them).
      if (!expressible) expect(() => z.toJSONSchema(make(), { io: 'input' })).toThrow(/cannot be represented/);
    });

    it(`${type} inside an object names the field`, () => {
      const error = refusal(() => createPrompt({ user: 'x', responseFormat: z.object({ ok: z.string(), inner: z.object({ when: make() }) }) }));
      expect(error.message).toMatch(/^Prompt: config\.responseFormat has /);
      expect(error.message).toContain(`${type} at .inner.when`);
    });
  }

  it('finds the part inside arrays, unions, optionals, records, tuples and the input side of a pipe', () => {
    const cases: [z.ZodType, string][] = [
      [z.array(z.object({ at: z.date() })), '[].at'],
      [z.object({ a: z.union([z.string(), z.bigint()]) }), '.a'],
      [z.object({ a: z.date().optional().nullable() }), '.a'],
      [z.record(z.string(), z.symbol()), '[*]'],
      [z.tuple([z.string(), z.date()]), '[1]'],
      [z.object({ a: z.date().transform((d) => d.getTime()) }), '.a'],
      [z.object({ a: z.lazy(() => z.date()) }), '.a'],
      [z.object({ a: z.coerce.date() }), '.a'],
    ];
    for (const [schema, where] of cases) {
      expect(refusal(() => createPrompt({ user: 'x', responseFormat: schema })).message).toContain(` at ${where}`);
    }
  });

  it('names the prompt by its name and says what to use instead', () => {
    const error = refusal(() => createPrompt({ user: 'x', name: 'when', responseFormat: z.object({ d: z.date() }) }));
    expect(error.name).toBe('UsageError');
    expect(error.message).toBe(
      'Prompt "when": config.responseFormat has z.date() at .d, which a model\'s JSON answer cannot satisfy: ' +
        'JSON has no dates (use z.iso.datetime(), or z.codec(z.iso.datetime(), z.date(), ...) to get a Date).',
    );
  });
});

describe('createPrompt keeps every response format a JSON answer can satisfy', () => {
  const fine: readonly z.ZodType[] = [
    z.object({ title: z.string(), n: z.number().int(), ok: z.boolean(), none: z.null() }),
    z.string(),
    z.array(z.enum(['a', 'b'])),
    z.object({ a: z.string().optional(), b: z.number().default(3), c: z.string().nullable() }),
    z.string().transform((s) => s.length),
    z.iso.datetime().pipe(z.coerce.date()),
    z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() }),
    z.union([z.literal('x'), z.literal(1), z.literal(null)]),
    z.record(z.string(), z.number()),
    z.tuple([z.string(), z.number()]),
    z.any(),
    z.unknown(),
    z.object({ a: z.string() }).catchall(z.number()),
    z.discriminatedUnion('kind', [z.object({ kind: z.literal('a') }), z.object({ kind: z.literal('b'), n: z.number() })]),
    z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })),
    z.string().readonly(),
    z.string().catch('fallback'),
    z.stringbool(),
    z.templateLiteral(['id-', z.number()]),
  ];

  it('accepts JSON-shaped schemas, transforms after JSON input and codecs from strings', () => {
    for (const schema of fine) {
      expect(() => createPrompt({ user: 'x', responseFormat: schema })).not.toThrow();
      expect(() => z.toJSONSchema(schema, { io: 'input' })).not.toThrow();
    }
  });

  it('accepts a recursive schema', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    expect(() => createPrompt({ user: 'x', responseFormat: node })).not.toThrow();
  });

  it('accepts a custom type that carries its own JSON schema', () => {
    const custom = z.custom<string>((v) => typeof v === 'string');
    custom._zod.toJSONSchema = () => ({ type: 'string' });
    expect(() => createPrompt({ user: 'x', responseFormat: z.object({ s: custom }) })).not.toThrow();
  });

  it('a date answer written as an ISO string still parses through a codec', async () => {
    const schema = z.object({ at: z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() }) });
    const model = new ScriptedModel([json({ at: '2024-01-02T03:04:05.000Z' })]);
    const agent = createAgent({ name: 'dates', ...(await agentModel(model)) });
    const value = await agent.prompt(createPrompt({ user: 'when', responseFormat: schema }));
    expect(value.at).toBeInstanceOf(Date);
  });
});

describe('a response format with a part of no JSON type', () => {
  it('is refused at the call with the strict transform\'s error (a plain Error, as the SDK threw), and nothing is sent', async () => {
    const model = new ScriptedModel([json({ anything: 1 })]);
    const agent = createAgent({ name: 'loose', ...(await agentModel(model)) });
    const error = await agent.prompt(createPrompt({ user: 'x', responseFormat: z.object({ anything: z.any() }) })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('Error');
    expect((error as Error).message).toBe('JSON schema must have a type defined if anyOf/oneOf/allOf/enum/const are not used');
    expect(model.requests).toHaveLength(0);
  });
});
