import { describe, expect, it } from 'vitest';
import { createWorkflow, Workflow, type WorkflowEvent } from 'groundswell';

/** The step events an observer on `root` saw, as `type:name`. */
function stepEvents(events: readonly WorkflowEvent[]): string[] {
  return events.filter((e) => e.type === 'stepStart' || e.type === 'stepEnd').map((e) => `${e.type}:${(e as { name: string }).name}`);
}

describe('a step settling (decision 0095)', () => {
  it('a body returning a plain value ends its step at once; a promise or thenable is awaited', async () => {
    const events: WorkflowEvent[] = [];
    const wf = createWorkflow('steps', async (ctx) => {
      const plain = ctx.step('plain', () => 1);
      const statusAfterCall = ctx.workflow.node.children.find((n) => n.name === 'plain')?.status;
      const thenable = ctx.step('thenable', () => ({ then(ok: (v: number) => void): void { ok(2); } }) as unknown);
      const promised = ctx.step('promised', async () => 3);
      expect(statusAfterCall).toBe('completed');
      return [await plain, await thenable, await promised];
    });
    wf.addObserver({ onEvent: (e) => void events.push(e) });
    await expect(wf.run()).resolves.toEqual([1, 2, 3]);
    expect(stepEvents(events)).toEqual([
      'stepStart:plain',
      'stepEnd:plain',
      'stepStart:thenable',
      'stepStart:promised',
      // A thenable is adopted a turn later than a promise, as awaiting it would be.
      'stepEnd:promised',
      'stepEnd:thenable',
    ]);
  });

  it('a subclass run after others of its class died keeps its fields and tree', async () => {
    class Counter extends Workflow<number> {
      count = 0;
      label = 'counter';
      override async run(): Promise<number> {
        this.count += 1;
        return this.count;
      }
    }
    for (let i = 0; i < 3; i += 1) {
      const wf = new Counter(`c-${i}`);
      await expect(wf.run()).resolves.toBe(1);
      expect(wf.label).toBe('counter');
      expect(wf.status).toBe('completed');
    }
  });
});
