import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPrompt, defineTool, UsageError } from 'groundswell';

/** What a zod 3 schema looks like to us: `safeParse` and `_def`, but none of zod 4's `_zod` internals. */
const zod3Like = { safeParse: () => ({ success: true, data: {} }), parse: () => ({}), _def: { typeName: 'ZodObject' } };

describe('zod 4 is required and said so', () => {
  it('a zod 3 schema as a response format is a UsageError that names zod 4', () => {
    expect(() => createPrompt({ user: 'hi', responseFormat: zod3Like as never })).toThrow(UsageError);
    expect(() => createPrompt({ user: 'hi', responseFormat: zod3Like as never })).toThrow(/zod 4 schema/);
  });

  it('a zod 3 schema as a tool input is a UsageError that names zod 4', () => {
    const tool = { name: 't', description: 'T.', input: zod3Like as never, execute: () => 'ok' };
    expect(() => defineTool(tool)).toThrow(/zod 4 schema/);
  });

  it('zod 4 schemas are accepted', () => {
    expect(() => createPrompt({ user: 'hi', responseFormat: z.object({ a: z.string() }) })).not.toThrow();
  });
});
