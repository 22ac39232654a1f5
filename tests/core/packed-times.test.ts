import { describe, expect, it } from 'vitest';
import { createWorkflow, type Clock, type WorkflowEvent, type WorkflowNode } from 'groundswell';
import { record } from '../support/events.js';

// A node keeps its start and end as small integers where that loses nothing (decision 0091):
// every time it shows must still be the very reading its events carry.

/** A clock that returns `readings` in turn. */
function scripted(readings: number[]): Clock {
  let i = 0;
  return {
    now: () => readings[Math.min(i++, readings.length - 1)] as number,
    sleep: async () => undefined,
  };
}

const NOW = 1_733_356_800_123.456_7;

function walk(node: WorkflowNode, out: WorkflowNode[] = []): WorkflowNode[] {
  out.push(node);
  for (const child of node.children) walk(child, out);
  return out;
}

describe("a node's start and end", () => {
  it.each([
    ['fractional readings a microsecond apart', [NOW, NOW + 0.001, NOW + 0.002_5, NOW + 0.003]],
    ['a step longer than the ~262 s a tick count holds', [NOW, NOW + 1, NOW + 400_000.25, NOW + 400_001]],
    ['small fractions that are no whole number of ticks', [0.1, 0.2, 0.30000000000000004, 1e-9]],
    ['readings going backwards', [NOW, NOW - 5_000, NOW - 4_000.123, NOW + 3]],
  ])('are the readings its events carry: %s', async (_label, base) => {
    const readings = base.flatMap((at, i) => [at, at + i / 7]);
    const wf = createWorkflow({ name: 'timed', clock: scripted(readings) }, async (ctx) => {
      await ctx.step('a', () => 1);
      await ctx.step('b', () => 2);
    });
    const rec = record(wf);
    await wf.run();
    const starts = new Map<string, number>();
    const ends = new Map<string, WorkflowEvent>();
    for (const e of rec.events) {
      if (e.type === 'workflowStart' || e.type === 'stepStart') starts.set(e.nodeId, e.timestamp);
      if (e.type === 'workflowEnd' || e.type === 'stepEnd') ends.set(e.nodeId, e);
    }
    for (const node of walk(wf.node)) {
      const end = ends.get(node.id) as WorkflowEvent & { duration?: number };
      expect(Object.is(node.startTime, starts.get(node.id))).toBe(true);
      expect(Object.is(node.endTime, end.timestamp)).toBe(true);
      expect(Object.is(node.duration, (node.endTime as number) - (node.startTime as number))).toBe(true);
      if (end.duration !== undefined) expect(Object.is(node.duration, end.duration)).toBe(true);
      expect(node.events.filter((e) => e.nodeId === node.id && e.type !== 'treeUpdated')).toEqual(
        rec.events.filter((e) => e.nodeId === node.id && e.type !== 'treeUpdated'),
      );
    }
  });
});
