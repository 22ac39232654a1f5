import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';

const Sum = z.object({ sum: z.number() });

describe('json() answers in the form the request asks for', () => {
  it('as text for a native structured answer, as the answer tool call when the request forces that tool', async () => {
    const model = new ScriptedModel([json({ sum: 3 }), json({ sum: 4 })]);
    const native = createAgent({ name: 'native', client: model.client() });
    const forced = createAgent({ name: 'forced', client: model.client(), structuredOutput: 'tool' });

    expect(await native.prompt(createPrompt({ user: '1+2?', responseFormat: Sum }))).toEqual({ sum: 3 });
    expect(await forced.prompt(createPrompt({ user: '2+2?', responseFormat: Sum }))).toEqual({ sum: 4 });
    expect(model.requests[1]?.body.tool_choice).toEqual({ type: 'tool', name: 'final_answer' });
    model.assertComplete();
  });

  it('a json() array stays text (a tool call input must be an object), so a forced tool gets no call', async () => {
    const model = new ScriptedModel([json([1, 2])]);
    const forced = createAgent({ name: 'forced', client: model.client(), structuredOutput: 'tool' });
    await expect(forced.prompt(createPrompt({ user: 'list', responseFormat: z.array(z.number()) }))).rejects.toThrow(/without calling final_answer/);
  });
});
