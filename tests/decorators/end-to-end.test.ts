import { describe, expect, it } from 'vitest';
import { ObservedState, Step, Task, Workflow, WorkflowTreeDebugger } from 'groundswell';
import { childNamed } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';

// The former smoke test, with assertions: all three decorators together in one tree.
class Child extends Workflow {
  @ObservedState() count = 0;
  @Step() async work(): Promise<number> {
    this.count += 1;
    this.logger.info('child working');
    return this.count;
  }
  override async run(): Promise<number> {
    return this.work();
  }
}

class Parent extends Workflow {
  @ObservedState({ redact: true }) secret = 'hunter2';
  @ObservedState() seen: string[] = [];

  @Step({ snapshotState: true }) async first(): Promise<string> {
    this.seen.push('first');
    return 'a';
  }

  @Task({ concurrent: true }) async spawn(): Promise<Child[]> {
    return [new Child('c1', this), new Child('c2', this)];
  }

  override async run(): Promise<string> {
    await this.first();
    await this.spawn();
    return 'done';
  }
}

describe('decorators end to end', () => {
  it('runs a parent with a step and a concurrent task of child workflows as one tree', async () => {
    const wf = new Parent();
    const events = record(wf).events;
    await expect(wf.run()).resolves.toBe('done');
    expect(wf.status).toBe('completed');
    const kinds = events.map((e) => e.type);

    // Tree: Parent > [first (step), spawn (task) > [c1 > work, c2 > work]]
    expect(wf.node.children.map((node) => `${node.kind}:${node.name}`)).toEqual(['step:first', 'task:spawn']);
    const task = childNamed(wf.node, 'spawn');
    expect(task.children.map((node) => `${node.kind}:${node.name}:${node.status}`)).toEqual([
      'workflow:c1:completed',
      'workflow:c2:completed',
    ]);
    for (const childNode of task.children) {
      const work = childNamed(childNode, 'work');
      expect(work.status).toBe('completed');
      expect(work.logs.map((entry) => entry.message)).toEqual(['child working']);
    }
    expect(wf.children.map((child) => child.name)).toEqual(['c1', 'c2']);
    for (const child of wf.children) {
      expect(child).toBeInstanceOf(Child);
      expect(child.snapshotState()).toEqual({ count: 1 });
    }

    // State snapshot taken by `first`, with the secret redacted everywhere it can surface.
    expect(wf.node.stateSnapshot).toEqual({ secret: '***', seen: ['first'] });
    const debuggerView = new WorkflowTreeDebugger(wf);
    for (const text of [JSON.stringify(wf.toJSON()), debuggerView.toTreeString(), debuggerView.toLogString()]) {
      expect(text).not.toContain('hunter2');
    }
    expect(debuggerView.toLogString()).toContain('child working');

    // Events of the whole tree reach the root observer, in a sensible order.
    expect(kinds[0]).toBe('workflowStart');
    expect(kinds.at(-1)).toBe('workflowEnd');
    expect(kinds.indexOf('stepStart')).toBeLessThan(kinds.indexOf('stateSnapshot'));
    expect(kinds.indexOf('stateSnapshot')).toBeLessThan(kinds.indexOf('stepEnd'));
    expect(kinds.indexOf('stepEnd')).toBeLessThan(kinds.indexOf('taskStart'));
    expect(kinds.lastIndexOf('taskEnd')).toBe(kinds.length - 2);
    expect(kinds.filter((kind) => kind === 'stateSnapshot')).toHaveLength(1);
    expect(eventsOfType(events, 'stepEnd').map((e) => e.name)).toEqual(['first', 'work', 'work']);
    expect(eventsOfType(events, 'workflowEnd').map((e) => e.name).sort()).toEqual(['Parent', 'c1', 'c2']);
    expect(eventsOfType(events, 'taskEnd')).toEqual([
      expect.objectContaining({ name: 'spawn', status: 'completed', childIds: wf.children.map((child) => child.id) }),
    ]);
  });
});
