import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';

// A forced collection without a command-line flag: the flag set now, `gc` read from a fresh context.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const WARM_UP = 200;
const CALLS = 1_500;
const BATCHES = 3;
/**
 * Bytes one finished agent call may keep while its step holds its node: the node, its start,
 * request and end events, its usage. It was ~1.5 KB (events with out-of-object fields, a
 * 17-slot ring for a third event, a map for the one usage value); ~1.2 KB now.
 */
const MAX_BYTES_PER_CALL = 1_350;

/**
 * Heap kept per agent call by a step that made CALLS of them one after another (after a warm-up),
 * the smallest of three batches: whatever else the process keeps meanwhile only adds to a batch.
 * The model's own record of requests is cleared before each measure, so only the tree counts.
 */
async function heapPerCall(): Promise<number> {
  const model = new ScriptedModel(() => json({ label: 'billing', score: 3 }));
  const agent = createAgent({ name: 'triage', client: model.client(), model: 'claude-test-1' });
  const prompt = createPrompt({ user: 'Triage this.', responseFormat: z.object({ label: z.string(), score: z.number() }) });
  const batches: number[] = [];
  const clearRequests = (): void => {
    (model.requests as unknown[]).length = 0;
  };
  const run = createWorkflow<void>({ name: 'calls', retention: { maxChildrenPerNode: 20_000 } }, (ctx) =>
    ctx.step('ask', async () => {
      for (let i = 0; i < WARM_UP; i += 1) await agent.prompt(prompt);
      for (let batch = 0; batch < BATCHES; batch += 1) {
        clearRequests();
        gc();
        gc();
        const before = process.memoryUsage().heapUsed;
        for (let i = 0; i < CALLS; i += 1) {
          await agent.prompt(prompt);
          clearRequests();
        }
        gc();
        gc();
        batches.push((process.memoryUsage().heapUsed - before) / CALLS);
      }
    }),
  );
  run.addObserver({ onEvent() {} });
  await run.run();
  return Math.min(...batches);
}

describe('a step making agent calls in a loop', () => {
  it('keeps a bounded heap per finished call node', async () => {
    expect(await heapPerCall()).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
  });
});
