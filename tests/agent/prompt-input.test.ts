import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, UsageError, type Prompt } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';

const Answer = z.object({ answer: z.string() });

function agentOn(model: ScriptedModel) {
  return createAgent({ name: 'asker', client: model.client(), model: 'claude-haiku-4-5' });
}

/** Calls `call` and reports whether it threw synchronously, and what its promise settled to. */
async function outcomeOf(call: () => Promise<unknown>): Promise<{ threw: unknown; rejected: unknown; value: unknown }> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (threw) {
    return { threw, rejected: undefined, value: undefined };
  }
  try {
    return { threw: undefined, rejected: undefined, value: await promise };
  } catch (rejected) {
    return { threw: undefined, rejected, value: undefined };
  }
}

describe('agent.prompt() with bad input', () => {
  // The first call loads the SDK and zod; later calls take the path without an async frame.
  it.each([
    ['on the first call', 0],
    ['after a call that answered', 1],
  ])('rejects (never throws) when given something that is not a Prompt, %s', async (_when, earlier) => {
    const model = new ScriptedModel(() => json({ answer: 'yes' }));
    const agent = agentOn(model);
    const prompt = createPrompt({ user: 'ok?', responseFormat: Answer });
    for (let i = 0; i < earlier; i += 1) await expect(agent.prompt(prompt)).resolves.toEqual({ answer: 'yes' });

    const result = await outcomeOf(() => agent.prompt({ user: 'not a prompt' } as unknown as Prompt<unknown>));
    expect(result.threw).toBeUndefined();
    expect(result.rejected).toBeInstanceOf(UsageError);
    expect((result.rejected as Error).message).toContain('needs a Prompt');
    expect(model.requests).toHaveLength(earlier);
  });

  it.each([
    ['on the first call', 0],
    ['after a call that answered', 1],
  ])('rejects (never throws) on an override of the wrong type, %s, and sends nothing', async (_when, earlier) => {
    const model = new ScriptedModel(() => json({ answer: 'yes' }));
    const agent = agentOn(model);
    const prompt = createPrompt({ user: 'ok?', responseFormat: Answer });
    for (let i = 0; i < earlier; i += 1) await agent.prompt(prompt);

    const result = await outcomeOf(() => agent.prompt(prompt, { maxTokens: 'many' } as unknown as { maxTokens: number }));
    expect(result.threw).toBeUndefined();
    expect(result.rejected).toBeInstanceOf(UsageError);
    expect((result.rejected as Error).message).toContain('maxTokens');
    expect(model.requests).toHaveLength(earlier);
  });

  it('answers again after a rejected call', async () => {
    const model = new ScriptedModel(() => json({ answer: 'yes' }));
    const agent = agentOn(model);
    const prompt = createPrompt({ user: 'ok?', responseFormat: Answer });
    await agent.prompt(prompt);
    await expect(agent.prompt(null as unknown as Prompt<unknown>)).rejects.toBeInstanceOf(UsageError);
    await expect(agent.prompt(prompt)).resolves.toEqual({ answer: 'yes' });
  });
});
