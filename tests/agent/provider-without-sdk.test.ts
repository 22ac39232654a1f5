import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { LanguageModelLike } from 'groundswell';

const Sum = z.object({ sum: z.number() });

/** A v3 language model answering `{ sum: 1 }` as JSON to every call. */
function jsonModel(): LanguageModelLike {
  const result = {
    content: [{ type: 'text', text: '{"sum":1}' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } },
    warnings: [],
  };
  return {
    specificationVersion: 'v3',
    provider: 'local.chat',
    modelId: 'llama-test',
    supportsStructuredOutputs: true,
    doGenerate: async () => result,
    doStream: async () => ({
      stream: new ReadableStream({
        start: (controller) => {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-delta', id: 't', delta: '{"sum":1}' });
          controller.enqueue({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
          controller.close();
        },
      }),
    }),
  } as unknown as LanguageModelLike;
}

describe('a call on a provider model', () => {
  it('neither makes the default Anthropic client nor loads the SDK (a first call would wait about 0.1 s for it)', async () => {
    // Fresh modules: test files share a worker's modules, and another file may have loaded the SDK.
    vi.resetModules();
    const { createAgent, createPrompt, createWorkflow } = await import('../../src/index.js');
    const { loadedAnthropicRuntime } = await import('../../src/agent/load-anthropic-runtime.js');
    const agent = createAgent({ name: 'local', model: jsonModel(), enableCache: false });
    const prompt = createPrompt({ user: 'Add.', responseFormat: Sum });

    const answers = await createWorkflow('provider', (ctx) =>
      ctx.step('calls', async () => [
        await agent.prompt(prompt),
        (await agent.execute(prompt)).value,
        await agent.stream(prompt).finalValue(),
        await agent.prompt(prompt, { maxTokens: 100 }),
      ]),
    ).run();

    expect(answers).toEqual([{ sum: 1 }, { sum: 1 }, { sum: 1 }, { sum: 1 }]);
    expect(loadedAnthropicRuntime()).toBeUndefined();
  });
});
