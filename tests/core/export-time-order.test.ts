import { describe, expect, it } from 'vitest';
import { createWorkflow, exportRun, WorkflowTreeDebugger, type RunExport, type WorkflowEvent, type WorkflowNode } from 'groundswell';
import type { SerializedNode } from '../../src/types/serialized.js';
import type { TreeNode } from '../../src/core/tree-node.js';
import { FakeClock } from '../support/fake-clock.js';

// Events relayed from workers (DBOS) reach the run in arrival order: their ids say when they
// arrived, their timestamps when they happened. Exports and fromJSON give them in time order.

const T = Date.UTC(2026, 0, 1);

function node(id: string, name: string, parentId: string | null, events: Array<[number, number, string]>, children: SerializedNode[] = []): SerializedNode {
  return {
    id,
    kind: 'workflow',
    name,
    workflowId: id,
    parentId,
    status: 'completed',
    stateSnapshot: null,
    logs: [],
    // [id, ms after T, type]: only the fields the order reads, plus a name.
    events: events.map(([eventId, at, type]) => ({ id: eventId, nodeId: id, workflowId: id, timestamp: T + at, type: 'taskStart', name: type, concurrent: false })),
    dropped: { events: 0, logs: 0, children: 0 },
    children,
    startTime: T,
    endTime: T + 500,
  };
}

/** A launcher and two workers; the workers' events arrived late and interleaved (ids 4..9). */
function relayedExport(): RunExport {
  const a = node('a', 'worker-a', 'root', [[6, 110, 'a-start'], [4, 300, 'a-late'], [8, 120, 'a-step']]);
  const b = node('b', 'worker-b', 'root', [[5, 200, 'b-start'], [9, 110, 'b-tie'], [7, 250, 'b-end']]);
  const root = node('root', 'launcher', null, [[1, 0, 'root-start'], [2, 100, 'spawn-a'], [3, 100, 'spawn-b'], [10, 400, 'root-end']], [a, b]);
  return { format: 'groundswell.run', version: 1, exportedAt: T + 1000, root };
}

/** The events the order must give: timestamp, then id (6 and 9 share a time; 2 and 3 too). */
const TIME_ORDER = ['root-start', 'spawn-a', 'spawn-b', 'a-start', 'b-tie', 'a-step', 'b-start', 'b-end', 'a-late', 'root-end'];

const label = (event: WorkflowEvent): string => (event as { name?: string }).name ?? event.type;

function replay(debug: WorkflowTreeDebugger): WorkflowEvent[] {
  const out: WorkflowEvent[] = [];
  debug.events.subscribe((event) => out.push(event));
  return out;
}

function nodes(root: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const at = stack.pop() as WorkflowNode;
    out.push(at);
    stack.push(...at.children);
  }
  return out;
}

const inTimeOrder = (events: readonly WorkflowEvent[]): boolean => events.every((e, i) => i === 0 || events[i - 1]!.timestamp < e.timestamp || (events[i - 1]!.timestamp === e.timestamp && events[i - 1]!.id < e.id));

describe('exports and fromJSON give events in the order they happened', () => {
  it('fromJSON replays a relayed export in time order, and its tree holds each node\u2019s events so, ids unchanged', () => {
    const input = relayedExport();
    const before = structuredClone(input);
    const debug = WorkflowTreeDebugger.fromJSON(JSON.stringify(input));
    const replayed = replay(debug);
    expect(replayed.map(label)).toEqual(TIME_ORDER);
    expect(replayed.map((e) => e.id)).toEqual([1, 2, 3, 6, 9, 8, 5, 7, 4, 10]);
    // The tree matches the replay: each node's events are the replay's for that node, in its order.
    for (const at of nodes(debug.getTree())) {
      expect([at.name, at.events.map(label)]).toEqual([at.name, replayed.filter((e) => e.nodeId === at.id).map(label)]);
    }
    // Loaded from the object too, which is left as it was.
    expect(replay(WorkflowTreeDebugger.fromJSON(input)).map(label)).toEqual(TIME_ORDER);
    expect(input).toEqual(before);
    // Exporting the loaded tree again gives the same time order.
    const again = debug.toJSON();
    for (const at of [again.root, ...again.root.children]) expect([at.name, inTimeOrder(at.events)]).toEqual([at.name, true]);
    expect(replay(WorkflowTreeDebugger.fromJSON(exportRun(debug.getTree()))).map(label)).toEqual(TIME_ORDER);
  });

  it('an export already in time order is loaded and given back as it was (no copy, no sort)', () => {
    const ordered = exportRun(WorkflowTreeDebugger.fromJSON(relayedExport()).getTree());
    const debug = WorkflowTreeDebugger.fromJSON(ordered);
    expect(debug.toJSON().root).toBe(ordered.root);
    expect(debug.getTree().events).toBe(ordered.root.events);
  });

  it('exportRun gives a live run\u2019s events in time order while observers heard them as they arrived', async () => {
    const clock = new FakeClock({ start: T });
    const heard: WorkflowEvent[] = [];
    const wf = createWorkflow({ name: 'launcher', clock }, async (ctx) => {
      clock.advance(100);
      await ctx.step('work', () => clock.advance(50));
      // Two workers' events arrive now, after the step, the later one first: as a relay delivers them.
      wf.emit(wf.node as TreeNode, { type: 'taskStart', name: 'relayed-30', concurrent: false }, T + 30);
      wf.emit(wf.node as TreeNode, { type: 'taskStart', name: 'relayed-20', concurrent: false }, T + 20);
      clock.advance(10);
    });
    wf.addObserver({ onEvent: (event) => heard.push(event) });
    await wf.run();
    // Live: arrival order, ids ascending, on the node as on the observer.
    expect(heard.map((e) => e.id)).toEqual([...heard.map((e) => e.id)].sort((x, y) => x - y));
    expect(heard.filter((e) => e.type === 'taskStart').map(label)).toEqual(['relayed-30', 'relayed-20']);
    expect(wf.node.events.map(label)).toEqual(['launcher', 'relayed-30', 'relayed-20', 'launcher']);
    const exported = exportRun(wf.node);
    expect(exported.root.events.map(label)).toEqual(['launcher', 'relayed-20', 'relayed-30', 'launcher']);
    for (const event of exported.root.events) expect(heard.find((e) => label(e) === label(event) && e.type === event.type)?.id).toBe(event.id);
    expect(inTimeOrder(exported.root.events)).toBe(true);
    const replayed = replay(WorkflowTreeDebugger.fromJSON(exported));
    expect(replayed.map((e) => `${e.type}:${label(e)}`)).toEqual(['workflowStart:launcher', 'taskStart:relayed-20', 'taskStart:relayed-30', 'stepStart:work', 'stepEnd:work', 'workflowEnd:launcher']);
  });
});
