import { describe, expect, it } from 'vitest';
import type { WorkflowNode } from '../../src/types/node.js';
import type { TokenUsage } from '../../src/types/usage.js';
import { sameRow, wireRow } from '../../src/viewer/node-row.js';
import { fromWire } from '../../src/viewer/wire-row.js';

const usage: TokenUsage = { inputTokens: 5, outputTokens: 2, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

/** A finished step as the viewer reads it; `replayed` as a durable run marks it. */
function step(replayed: boolean): WorkflowNode {
  const parent = { id: 'w1' } as WorkflowNode;
  return {
    id: 's1',
    parent,
    name: 'fetch "x"',
    kind: 'step',
    status: 'completed',
    events: [],
    eventCount: 2,
    logs: [],
    dropped: { events: 0, logs: 0, children: 0 },
    startTime: 1_000.25,
    duration: 3.5,
    replayed,
  } as unknown as WorkflowNode;
}

describe('a row on the page stream', () => {
  it('reads back as the same row with or without its trailing defaults (replayed, usage)', () => {
    const shown = { id: 's1', parentId: 'w1', name: 'fetch "x"', kind: 'step', status: 'completed', events: 2, logs: 0, startTime: 1_000.25, duration: 3.5 };
    const plain = wireRow(step(false), undefined, 1_000);
    expect(plain).toHaveLength(9);
    expect(fromWire(JSON.parse(JSON.stringify(plain)), 1_000)).toEqual(shown);

    const replayed = wireRow(step(true), undefined, 1_000);
    expect(replayed).toHaveLength(10);
    expect(fromWire(JSON.parse(JSON.stringify(replayed)), 1_000)).toEqual({ ...shown, replayed: true });

    const spent = wireRow(step(false), usage, 1_000);
    expect(spent).toHaveLength(11);
    expect(fromWire(JSON.parse(JSON.stringify(spent)), 1_000)).toEqual({ ...shown, usage });
  });

  it('differs from a row that shows another replayed flag or usage, whatever their length', () => {
    const plain = wireRow(step(false), undefined, 1_000);
    expect(sameRow(plain, wireRow(step(false), undefined, 1_000))).toBe(true);
    expect(sameRow(plain, wireRow(step(true), undefined, 1_000))).toBe(false);
    expect(sameRow(wireRow(step(true), undefined, 1_000), plain)).toBe(false);
    expect(sameRow(plain, wireRow(step(false), usage, 1_000))).toBe(false);
    expect(sameRow(wireRow(step(false), usage, 1_000), plain)).toBe(false);
    expect(sameRow(wireRow(step(true), usage, 1_000), wireRow(step(true), { ...usage }, 1_000))).toBe(true);
  });
});
