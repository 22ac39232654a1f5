import { getEventListeners } from 'node:events';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, ProviderApiError, type WorkflowEvent } from 'groundswell';
import { json, ScriptedModel, serveChatCompletions } from 'groundswell/testing';

const Sum = z.object({ sum: z.number() });

describe('a provider model over real HTTP (@ai-sdk/openai-compatible against the loopback stand-in)', () => {
  it('many calls in one run leave no abort listeners on the run’s signal, and cancelling the run aborts a call in flight', async () => {
    const script = new ScriptedModel((_req, index) => (index < 25 ? json({ sum: index }) : json({ sum: -1 }, { delayMs: 60_000 })));
    const server = await serveChatCompletions(script);
    try {
      const model = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, supportsStructuredOutputs: true }).chatModel('m');
      const agent = createAgent({ name: 'counter', model });
      let listenersAfter = -1;
      const wf = createWorkflow({ name: 'many' }, async (ctx) => {
        for (let i = 0; i < 25; i += 1) await ctx.step(`ask ${i}`, () => agent.prompt(createPrompt({ user: `n${i}`, responseFormat: Sum })));
        listenersAfter = getEventListeners(ctx.signal, 'abort').length;
        return ctx.step('slow', () => agent.prompt(createPrompt({ user: 'slow', responseFormat: Sum })));
      });
      const running = wf.run();
      // Cancel once the slow request has reached the server (progress, not a clock).
      while (script.requests.length < 26) await new Promise((resolve) => setTimeout(resolve, 5));
      wf.cancel('stop');
      await expect(running).rejects.toThrow();
      expect(listenersAfter).toBeLessThanOrEqual(2);
    } finally {
      await server.close();
    }
  });

  it('a request timeout set on the provider’s fetch is retried twice, each an apiError event, then a ProviderApiError', async () => {
    // The server never answers in time: every attempt waits a minute, and the fetch times out once
    // the server holds the request (on progress, not a clock: a busy machine cannot reorder it).
    const script = new ScriptedModel(() => json({ sum: 1 }, { delayMs: 60_000 }));
    const server = await serveChatCompletions(script);
    const timingOut: typeof fetch = async (input, init) => {
      const received = script.requests.length + 1;
      const timeout = new AbortController();
      let settled = false;
      const answer = fetch(input, { ...init, signal: AbortSignal.any([...(init?.signal ? [init.signal] : []), timeout.signal]) });
      void answer.then(
        () => (settled = true),
        () => (settled = true),
      );
      while (!settled && script.requests.length < received) await new Promise((resolve) => setTimeout(resolve, 1));
      timeout.abort(new DOMException('The request timed out.', 'TimeoutError'));
      return answer;
    };
    try {
      const model = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, fetch: timingOut }).chatModel('m');
      const agent = createAgent({ name: 'slow', model });
      const events: WorkflowEvent[] = [];
      const wf = createWorkflow({ name: 'timeouts' }, (ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'add', responseFormat: Sum }))));
      wf.addObserver({ onEvent: (event) => events.push(event) });
      const error = await wf.run().then(
        () => undefined,
        (e: unknown) => e,
      );
      const failure = (error as { cause?: unknown }).cause ?? error;
      expect(failure).toBeInstanceOf(ProviderApiError);
      expect(failure).toMatchObject({ provider: 'local', model: 'm', status: null });
      expect(events.filter((event) => event.type === 'apiError').map((event) => (event as { attempt: number }).attempt)).toEqual([1, 2, 3]);
      expect(script.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
