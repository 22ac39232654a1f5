import { describe, expect, it } from 'vitest';
import { otelObserver } from 'groundswell/otel';
import type { WorkflowNode } from 'groundswell';
import { walkTree } from '../../src/util/tree-walk.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { randomRun } from '../support/random-run.js';
import { seeded } from '../support/seeded.js';
import { memoryTracing, parentOf, sumAttribute } from './span-helpers.js';

/**
 * Random run shapes (steps, agent calls in and out of steps, child workflows, fan-outs, caught
 * failures, replaced calls) under small retention: every node that ever started gets exactly one
 * span, every span ends, a kept node's span hangs under its parent's (a replaced call's under the
 * parent it ran in), and the chat spans carry every token the model reported, pruned nodes' included.
 */

async function life(seed: number, cancel: boolean): Promise<void> {
  const { run, handedOut } = randomRun(seed);
  const tracing = memoryTracing();
  const started = new Set<string>();
  // A replaced call moves beneath its replacement after its span has ended under its old parent.
  const moved = new Set<string>();
  const requests = { count: 0, input: 0, output: 0, cached: 0 };
  // With `cancel`: cancelled between two of its events, at a random one.
  const at = cancel ? 1 + Math.floor(seeded(seed * 13 + 5)() * 80) : 0;
  let events = 0;
  run.addObserver({
    onEvent: (event) => {
      started.add(event.nodeId);
      if (event.type === 'promptReplaced') moved.add(event.replacedNodeId);
      if (event.type === 'modelRequest') {
        requests.count += 1;
        requests.input += event.usage.inputTokens + event.usage.cacheReadInputTokens + event.usage.cacheCreationInputTokens;
        requests.output += event.usage.outputTokens;
        requests.cached += event.usage.cacheReadInputTokens;
      }
      events += 1;
      if (events === at) queueMicrotask(() => run.cancel('enough'));
    },
  });
  const observer = await otelObserver({ tracerProvider: tracing.provider });
  run.addObserver(observer);
  await run.run().catch(() => undefined);
  // Work already under way (a call's answer, a step's body) stops at its next turn.
  for (let turn = 0; turn < 5; turn += 1) await nextTurn();

  const context = `seed ${seed}${cancel ? `, cancelled after event ${at} of ${events}` : ''}`;
  const spans = tracing.spans();
  expect(observer.openSpans, context).toBe(0);
  const nodeSpans = spans.filter((span) => span.attributes['gen_ai.operation.name'] !== 'chat');
  const ids = nodeSpans.map((span) => String(span.attributes['groundswell.node.id']));
  expect(new Set(ids).size, `${context}: one span per node`).toBe(ids.length);
  expect(new Set(ids), `${context}: a span for every node that started`).toEqual(started);
  const byNode = new Map(nodeSpans.map((span) => [span.attributes['groundswell.node.id'], span]));
  for (const node of walkTree<WorkflowNode>(run.node)) {
    if (moved.has(node.id)) continue;
    const span = byNode.get(node.id);
    expect(parentOf(span as never, spans)?.attributes['groundswell.node.id'], `${context}: parent of ${node.name}`).toBe(node.parent?.id);
  }
  // Uncancelled, every response the model gave was reported; cancelled, what was reported counts.
  if (!cancel) expect([requests.count, requests.output], context).toEqual([handedOut.turns, handedOut.output]);
  const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
  expect(chats, context).toHaveLength(requests.count);
  expect(sumAttribute(chats, 'gen_ai.usage.input_tokens'), context).toBe(requests.input);
  expect(sumAttribute(chats, 'gen_ai.usage.output_tokens'), context).toBe(requests.output);
  expect(sumAttribute(chats, 'gen_ai.usage.cache_read.input_tokens'), context).toBe(requests.cached);
}

// 100 runs of each take about a second here; 1,500 cancelled ones passed once.
describe('groundswell/otel on random runs', () => {
  it('gives every node one ended span under its parent and every token to the chat spans', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 100; seed += 1) await life(seed, false);
  });

  it('ends every span of a run cancelled at a random moment', { timeout: 120_000 }, async () => {
    for (let seed = 1; seed <= 100; seed += 1) await life(seed, true);
  });
});
