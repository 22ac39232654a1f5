import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { keptBytesPerItem } from '../support/kept-heap.js';

// Long enough for the agent's code to be optimized before measuring: compiled code lands on the
// heap too, and with 200 calls of warm-up the measure read 1.23-1.41 KB against 0.9-1.1 KB later
// in the same process (the same on the code before the call-node change).
const WARM_UP = 2_000;
const CALLS = 1_000;
const BATCHES = 3;
/**
 * Bytes one finished agent call may keep while its step holds its node: the node, its start,
 * request and end events, its usage. It was ~1.5 KB (events with out-of-object fields, a
 * 17-slot ring for a third event, a map for the one usage value); 0.9-1.3 KB now.
 */
const MAX_BYTES_PER_CALL = 1_350;

/**
 * Heap kept per agent call by a step that made CALLS of them one after another (after a warm-up).
 * The model's own record of requests is cleared as it goes, so only the tree counts.
 */
async function heapPerCall(): Promise<number> {
  const model = new ScriptedModel(() => json({ label: 'billing', score: 3 }));
  const agent = createAgent({ name: 'triage', client: model.client(), model: 'claude-test-1' });
  const prompt = createPrompt({ user: 'Triage this.', responseFormat: z.object({ label: z.string(), score: z.number() }) });
  const clearRequests = (): void => {
    (model.requests as unknown[]).length = 0;
  };
  let perCall = Number.NaN;
  const run = createWorkflow<void>({ name: 'calls', retention: { maxChildrenPerNode: 20_000 } }, (ctx) =>
    ctx.step('ask', async () => {
      for (let i = 0; i < WARM_UP; i += 1) await agent.prompt(prompt);
      perCall = await keptBytesPerItem(
        CALLS,
        BATCHES,
        async () => {
          for (let i = 0; i < CALLS; i += 1) {
            await agent.prompt(prompt);
            clearRequests();
          }
        },
        clearRequests,
      );
    }),
  );
  run.addObserver({ onEvent() {} });
  await run.run();
  return perCall;
}

describe('a step making agent calls in a loop', () => {
  // A few thousand calls: seconds on a loaded machine, so the limit only catches a hang.
  it('keeps a bounded heap per finished call node', async () => {
    expect(await heapPerCall()).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
  }, 120_000);
});
