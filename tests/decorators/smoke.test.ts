import { describe, expect, it } from 'vitest';
import { ObservedState, Step, Task, Workflow, WorkflowTreeDebugger, type WorkflowEvent } from 'groundswell';

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

describe('smoke', () => {
  it('runs a tree', async () => {
    const wf = new Parent();
    const events: WorkflowEvent[] = [];
    wf.addObserver({ onEvent: (e) => events.push(e) });
    await expect(wf.run()).resolves.toBe('done');
    const dbg = new WorkflowTreeDebugger(wf);
    console.log(dbg.toTreeString());
    console.log(dbg.toLogString());
    console.log(events.map((e) => e.type).join(','));
    expect(wf.status).toBe('completed');
    expect(JSON.stringify(wf.toJSON())).not.toContain('hunter2');
  });
});
