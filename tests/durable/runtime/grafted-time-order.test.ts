import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, signal, type Workflow, type WorkflowEvent, type WorkflowNode } from 'groundswell';
import { MemoryRunStore } from 'groundswell/durable';
import type { TreeNode } from '../../../src/core/tree-node.js';
import { FakeClock } from '../../support/fake-clock.js';

// A step held two workers' runs whose events reached it out of time order (as DBOS relays them).
// On resume the step replays and its history is grafted back: numbered in the order it happened.

const T = Date.UTC(2026, 0, 1);

function run(store: MemoryRunStore, clock: FakeClock): Workflow<string> {
  return createWorkflow({ name: 'Launcher', clock, durable: { store, runId: 'fan' } }, async (ctx) => {
    await ctx.step('fan-out', async () => {
      const a = createWorkflow({ name: 'worker-a' }, async () => clock.advance(10));
      const b = createWorkflow({ name: 'worker-b' }, async () => clock.advance(10));
      await ctx.spawnWorkflow(a);
      await ctx.spawnWorkflow(b);
      // worker-a's event from before worker-b started arrives last.
      a.emit(a.node as TreeNode, { type: 'taskStart', name: 'a-relayed', concurrent: false }, T + 5);
    });
    await ctx.waitFor('go', z.literal('go'));
    return 'done';
  });
}

function below(step: WorkflowNode): WorkflowEvent[] {
  const events: WorkflowEvent[] = [];
  const stack = [...step.children];
  while (stack.length > 0) {
    const at = stack.pop() as WorkflowNode;
    events.push(...at.events);
    stack.push(...at.children);
  }
  return events.sort((x, y) => x.id - y.id);
}

const label = (event: WorkflowEvent): string => `${event.type}:${(event as { name?: string }).name ?? ''}@${event.timestamp - T}`;

describe('a resumed run\u2019s grafted history', () => {
  it('numbers the events a replayed step held in the order they happened, not the order they reached the earlier process', async () => {
    const store = new MemoryRunStore();
    const clock = new FakeClock({ start: T });
    const first = run(store, clock);
    expect(isSuspension(await first.run().catch((error: unknown) => error))).toBe(true);
    const firstStep = first.node.children.find((c) => c.name === 'fan-out') as WorkflowNode;
    // The earlier process got a-relayed last (its highest id), though it happened at +5.
    expect(below(firstStep).map(label).at(-1)).toBe('taskStart:a-relayed@5');

    let again: Workflow<string> | undefined;
    const result = await signal('fan', 'go', 'go', { store, workflows: { Launcher: () => (again = run(store, clock)) } });
    expect(result).toBe('done');
    const step = (again as Workflow<string>).node.children.find((c) => c.name === 'fan-out') as WorkflowNode;
    const grafted = below(step);
    expect(grafted.map(label)).toEqual([...grafted].sort((x, y) => x.timestamp - y.timestamp || x.id - y.id).map(label));
    expect(grafted.map(label)).toContain('taskStart:a-relayed@5');
    expect(grafted.length).toBe(below(firstStep).length);
  });
});
