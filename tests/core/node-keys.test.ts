import { describe, expect, it } from 'vitest';
import { exportRun, parseRunExport, usageRollup, WorkflowTreeDebugger, type TokenUsage } from 'groundswell';
import { DEFAULT_RETENTION } from '../../src/core/retention.js';
import { TreeNode, type NodeOwner } from '../../src/core/tree-node.js';
import { createNodeKey } from '../../src/util/node-key.js';
import { NODE_USAGE } from '../../src/util/node-usage.js';

// Feature data hangs on nodes under keys the feature owns (decision 0030). These tests drive the
// mechanism directly: a parent keeping two finished children, so the batch prune runs at 19.
const owner: NodeOwner = { id: 'wf-test', retention: { ...DEFAULT_RETENTION, maxChildrenPerNode: 2 } };

function finishedChild(parent: TreeNode, name: string): TreeNode {
  const node = new TreeNode('step', name, owner);
  parent.addChild(node);
  node.start(1);
  node.finish('completed', 2);
  return node;
}

function tokens(input: number, costUsd?: number): TokenUsage {
  const usage: TokenUsage = { inputTokens: input, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
  if (costUsd !== undefined) usage.costUsd = costUsd;
  return usage;
}

describe('node keys', () => {
  it('an absent key reads undefined and adds nothing to the node or its export', () => {
    const counted = createNodeKey<number>('count', { merge: (a, b) => a + b, exportAs: 'count' });
    const node = new TreeNode('step', 'quiet', owner);
    expect(node.getAttr(counted)).toBeUndefined();
    expect(node.getDroppedAttr(counted)).toBeUndefined();
    expect(node.usage).toBeNull();
    expect(node.toJSON()).not.toHaveProperty('count');
    expect(node.toJSON()).not.toHaveProperty('usage');
    expect(node.dropped).toEqual({ events: 0, logs: 0, children: 0 });
  });

  it('keys are told apart by identity, not by name, and setting undefined removes a value', () => {
    const first = createNodeKey<string>('same');
    const second = createNodeKey<string>('same');
    const node = new TreeNode('step', 'n', owner);
    node.setAttr(first, 'a');
    expect(node.getAttr(first)).toBe('a');
    expect(node.getAttr(second)).toBeUndefined();
    node.setAttr(first, undefined);
    expect(node.getAttr(first)).toBeUndefined();
  });

  it('a key with merge survives pruning: the parent keeps the sum of what pruned subtrees held', () => {
    const counted = createNodeKey<number>('count', { merge: (a, b) => a + b });
    const plain = createNodeKey<string>('label');
    const parent = new TreeNode('workflow', 'root', owner);
    for (let i = 0; i < 19; i += 1) {
      const child = finishedChild(parent, `s${i}`);
      child.setAttr(counted, 1);
      child.setAttr(plain, `s${i}`);
      // A grandchild's value counts too: the whole pruned subtree is folded in.
      if (i === 0) finishedChild(child, 'inner').setAttr(counted, 100);
    }
    expect(parent.dropped.children).toBe(17);
    expect(parent.getDroppedAttr(counted)).toBe(117);
    // Without a merge the value went with its node; an unexported key never shows in `dropped`.
    expect(parent.getDroppedAttr(plain)).toBeUndefined();
    expect(parent.dropped).toEqual({ events: 0, logs: 0, children: 17 });
    const kept = parent.children.map((child) => child.getAttr(counted) ?? 0).reduce((a, b) => a + b, 0);
    expect(kept + (parent.getDroppedAttr(counted) ?? 0)).toBe(119);
  });

  it('usage of pruned children stays whole through export and parse', () => {
    const parent = new TreeNode('workflow', 'root', owner);
    parent.start(0);
    for (let i = 0; i < 19; i += 1) finishedChild(parent, `call${i}`).setAttr(NODE_USAGE, tokens(10, 0.5));
    parent.finish('completed', 3);
    const json = parent.toJSON();
    // The export's field order is the format's (usage after children, before the times).
    expect(Object.keys(json)).toEqual([
      'id', 'kind', 'name', 'workflowId', 'parentId', 'status', 'stateSnapshot', 'logs', 'events', 'dropped', 'children', 'startTime', 'endTime', 'duration',
    ]);
    expect(Object.keys(json.children[0] ?? {})).toContain('usage');
    expect(Object.keys(json.children[0] ?? {}).indexOf('usage')).toBe(Object.keys(json.children[0] ?? {}).indexOf('children') + 1);
    expect(json.dropped).toEqual({ events: 0, logs: 0, children: 17, usage: { ...tokens(170), outputTokens: 17, costUsd: 8.5 } });

    const text = JSON.stringify(exportRun(parent, 5));
    const parsed = parseRunExport(text);
    expect(JSON.stringify(parsed)).toBe(text);
    const whole = { inputTokens: 190, outputTokens: 19, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, costUsd: 9.5 };
    expect(usageRollup(parent).get(parent)).toEqual(whole);
    expect(WorkflowTreeDebugger.fromJSON(text).getStats().usage).toEqual(whole);
  });
  it('a node holding several keys exports them in the order they were set, through removals and re-sets', () => {
    const keys = ['a', 'b', 'c'].map((name) => createNodeKey<string>(name, { exportAs: name }));
    const [a, b, c] = keys as [(typeof keys)[0], (typeof keys)[0], (typeof keys)[0]];
    const exportedKeys = (node: TreeNode): string[] => Object.keys(node.toJSON()).filter((key) => ['a', 'b', 'c'].includes(key));
    const node = new TreeNode('step', 'n', owner);
    node.setAttr(a, '1');
    node.setAttr(b, '2');
    expect(exportedKeys(node)).toEqual(['a', 'b']);
    // The first key removed and set again comes after the ones still held, as with any map.
    node.setAttr(a, undefined);
    expect(node.getAttr(a)).toBeUndefined();
    expect(exportedKeys(node)).toEqual(['b']);
    node.setAttr(a, '3');
    node.setAttr(c, '4');
    expect(exportedKeys(node)).toEqual(['b', 'a', 'c']);
    expect([node.getAttr(a), node.getAttr(b), node.getAttr(c)]).toEqual(['3', '2', '4']);
    // Overwriting keeps a key's place.
    node.setAttr(b, '5');
    expect(exportedKeys(node)).toEqual(['b', 'a', 'c']);
    expect(node.toJSON()).toMatchObject({ a: '3', b: '5', c: '4' });
    // Emptied, the node takes a key again from the start.
    for (const key of keys) node.setAttr(key, undefined);
    expect(exportedKeys(node)).toEqual([]);
    node.setAttr(c, '6');
    node.setAttr(a, '7');
    expect(exportedKeys(node)).toEqual(['c', 'a']);
  });

  it('a pruned child holding one merged key and one plain key folds only the merged one into its parent', () => {
    const counted = createNodeKey<number>('count', { merge: (a, b) => a + b });
    const plain = createNodeKey<string>('label');
    const parent = new TreeNode('workflow', 'root', owner);
    for (let i = 0; i < 19; i += 1) {
      const child = finishedChild(parent, `s${i}`);
      // The plain key first: the merged one is then the node's second key.
      child.setAttr(plain, `s${i}`);
      child.setAttr(counted, 2);
    }
    expect(parent.getDroppedAttr(counted)).toBe(34);
    expect(parent.getDroppedAttr(plain)).toBeUndefined();
  });
});
