import { describe, expect, it } from 'vitest';
import { DEFAULT_SPAWN_ANSWER } from 'groundswell';

describe('built-in schemas used before any agent call', () => {
  it('DEFAULT_SPAWN_ANSWER parses without an agent call having loaded zod first', () => {
    // In this file no agent ran, so zod was loaded by nothing but this call.
    expect(DEFAULT_SPAWN_ANSWER.safeParse({ answer: 'done' }).success).toBe(true);
    expect(() => DEFAULT_SPAWN_ANSWER.parse(42)).toThrow();
  });
});
